"""Every file in ``examples/`` runs as shipped, against the local stand-in.

The Python examples run in their own interpreter with ``HYGIENE_STANDIN_URL`` pointing at
a stand-in serving every provider's API (what ``litellm-hygiene standin`` runs); the
proxy configs are started with the real ``litellm --config`` CLI, the Redis variant with
a real ``redis-server``. The stand-in rejects what the real API would, so an example
passes only if hygiene made each request valid.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import yaml

from litellm_hygiene._standin import StandIn
from litellm_hygiene._standin.serve import answer
from tests.support.proxy_server import ProxyServer, chat, proxy_client, running_proxies
from tests.support.redis_server import redis_server_or_skip

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
HISTORY = json.loads((EXAMPLES / "claude_history.json").read_text("utf-8"))


@pytest.fixture
def standin() -> Iterator[StandIn]:
    with StandIn(respond=answer) as server:
        yield server


def run_example(name: str, standin: StandIn) -> str:
    env = {
        **os.environ,
        "HYGIENE_STANDIN_URL": standin.base_url,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=EXAMPLES.parent,
    )
    assert done.returncode == 0, done.stdout + done.stderr[-4000:]
    return done.stdout


def statuses(standin: StandIn) -> list[tuple[str, int]]:
    """Each request the stand-in got: its path and the status the rules gave it."""
    out = []
    for request in standin.received:
        reply = answer(request)
        out.append((request.path, reply.status if reply is not None else 500))
    return out


def test_the_history_is_the_demo_conversation() -> None:
    from litellm_hygiene._demo import load_conversation

    messages, tools = load_conversation()
    assert HISTORY == {"messages": messages, "tools": tools}


def test_async_sdk(standin: StandIn) -> None:
    out = run_example("async_sdk.py", standin)
    assert "target:  mistral/mistral-large-latest" in out
    assert "'tool_call_id': 3" in out and "'tool_pairing': 1" in out
    assert "your request was valid for mistral" in out
    assert statuses(standin) == [("/v1/chat/completions", 200)]


def test_router_falls_back_from_claude_to_mistral(standin: StandIn) -> None:
    out = run_example("router_fallback.py", standin)
    assert "asked for: claude; answered by: mistral/mistral-large-latest" in out
    assert "'tool_call_id': 3" in out
    assert statuses(standin) == [("/v1/chat/completions", 200)], "only the fallback reached it"


def test_sync_wrappers(standin: StandIn) -> None:
    out = run_example("sync_wrappers.py", standin)
    assert "openai/gpt-4o: Hello from the litellm-hygiene stand-in" in out
    assert "gemini/gemini-2.5-flash: Hello from the litellm-hygiene stand-in" in out
    assert [status for _, status in statuses(standin)] == [200, 200]


def _proxy(name: str, standin: StandIn, **env: str) -> ProxyServer:
    config = yaml.safe_load((EXAMPLES / name).read_text("utf-8"))
    return ProxyServer(name, config, env={"HYGIENE_STANDIN_URL": standin.base_url, **env})


def _send(server: ProxyServer, model: str) -> Any:
    with proxy_client(server) as client:
        return chat(client, model, HISTORY["messages"])


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_proxy_config_starts_anywhere(standin: StandIn) -> None:
    server = _proxy("proxy_config.yaml", standin)
    with running_proxies([server]):
        mistral = _send(server, "mistral")
        claude = _send(server, "claude")
    assert mistral.headers["x-litellm-hygiene-target"] == "mistral/mistral-large-latest"
    assert "tool_call_id=3" in mistral.headers["x-litellm-hygiene-changes"]
    assert "valid for mistral" in (mistral.sdk_message.content or "")
    assert claude.headers["x-litellm-hygiene-changes"] == "tool_pairing=1"
    assert [status for _, status in statuses(standin)] == [200, 200]


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_proxy_config_with_redis(standin: StandIn) -> None:
    with redis_server_or_skip() as store:
        server = _proxy(
            "proxy_config_redis.yaml", standin, REDIS_HOST=store.host, REDIS_PORT=str(store.port)
        )
        with running_proxies([server]):
            answer_ = _send(server, "gpt")
        client = redis.Redis(host=store.host, port=store.port)
        try:
            keys = client.dbsize()
        finally:
            client.close()
    assert answer_.headers["x-litellm-hygiene-target"] == "openai/gpt-4o"
    assert answer_.message["litellm_hygiene"]["provider"] == "openai"
    assert keys > 0, "the answer's provenance was written to Redis"
