"""End to end through a real ``litellm --config`` proxy process, driven by the OpenAI SDK.

One proxy with hygiene at its defaults, every model group's ``api_base`` pointing at the
provider stand-in (``litellm_hygiene._standin``). What the tests read: the bodies the stand-in
received (after LiteLLM's own transformation for the provider), the
``x-litellm-hygiene-*`` response headers, and what the client gets back. Two instances
sharing Redis, and failure injection, are in ``test_proxy_instances.py``.

The proxy starts once for the module (importing ``litellm.proxy`` takes seconds).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import httpx
import openai
import pytest
import yaml

from litellm_hygiene._standin import (
    Reply,
    StandIn,
    anthropic,
    mistral,
    openai_chat,
    openai_responses,
)
from tests.support.proxy_server import (
    MASTER_KEY,
    STAMP,
    ProxyServer,
    chat,
    hygiene_headers,
    json_keys,
    proxy_client,
    running_proxies,
    standin_config,
)

CLAUDE_MODEL = "claude-sonnet-4-5-20250929"
SIGNATURE = "RXVnQ2tZSUJoQUNHMmJ3VWVaTHNpZ25hdHVyZQ=="
TOOLU = "toolu_01A09q90qw90lq917835lq9"
MISTRAL_ID = re.compile(r"[A-Za-z0-9]{9}")
EXAMPLE_CONFIG = Path(__file__).resolve().parents[2] / "examples" / "proxy_config.yaml"

Json = dict[str, Any]


@dataclass(frozen=True)
class Stack:
    standin: StandIn
    client: openai.OpenAI


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    with StandIn() as standin:
        server = ProxyServer("defaults", standin_config(standin.base_url))
        with running_proxies([server]), proxy_client(server) as client:
            yield Stack(standin, client)


@pytest.fixture
def standin(stack: Stack) -> StandIn:
    """The stand-in with no queued replies and an empty request log."""
    stack.standin.reset()
    return stack.standin


def bodies(standin: StandIn) -> list[Json]:
    return [request.body for request in standin.received]


def changes(headers: dict[str, str]) -> dict[str, int]:
    raw = headers["x-litellm-hygiene-changes"]
    if raw == "none":
        return {}
    return {k: int(v) for k, v in (pair.split("=") for pair in raw.split(", "))}


def claude_history() -> list[Json]:
    """A turn as the proxy returns Anthropic answers: signed thinking, a toolu_ call."""
    thinking = [{"type": "thinking", "thinking": "Multiply.", "signature": SIGNATURE}]
    call = {"name": "multiply", "arguments": '{"a": 6, "b": 7}'}
    return [
        {"role": "user", "content": "What is 6*7?"},
        {
            "role": "assistant",
            "content": "",
            "reasoning_content": "Multiply.",
            "thinking_blocks": thinking,
            "provider_specific_fields": {"thinking_blocks": thinking},
            "tool_calls": [{"id": TOOLU, "type": "function", "function": call}],
        },
        {"role": "tool", "tool_call_id": TOOLU, "content": "42"},
    ]


def mistral_ok(seed: str) -> Reply:
    return mistral.completion("42.", model="mistral-large-latest", seed=seed)


def assert_valid_for_mistral(body: Json) -> None:
    assistant, tool = body["messages"][1], body["messages"][2]
    new_id = assistant["tool_calls"][0]["id"]
    assert MISTRAL_ID.fullmatch(new_id), new_id
    assert tool["tool_call_id"] == new_id
    assert assistant["content"] == "Multiply."  # the thinking, kept as text
    found = json_keys(body)
    assert not found & {"thinking_blocks", "provider_specific_fields", "reasoning_content"}
    assert STAMP not in found
    assert SIGNATURE not in json.dumps(body)


# -- 1. the upstream body is valid for its target ----------------------------------------


def test_anthropic_history_reaches_mistral_as_a_valid_mistral_body(
    stack: Stack, standin: StandIn
) -> None:
    standin.enqueue(mistral_ok("t1"))
    answer = chat(stack.client, "mistral", claude_history())
    [body] = bodies(standin)
    assert_valid_for_mistral(body)
    assert changes(answer.headers) == {
        "response_only_field": 1,  # provider_specific_fields
        "foreign_reasoning": 1,  # the thinking became text (its reasoning_content copy too)
        "tool_call_id": 1,  # the call renamed (its result with it)
    }
    assert answer.headers["x-litellm-hygiene-target"] == "mistral/mistral-large-latest"


def test_anthropic_history_reaches_openai_without_anthropic_fields(
    stack: Stack, standin: StandIn
) -> None:
    """LiteLLM forwards ``thinking_blocks`` to OpenAI verbatim; hygiene removes them."""
    standin.enqueue(openai_chat.completion("42.", model="gpt-4o-2024-08-06", seed="t1o"))
    answer = chat(stack.client, "gpt", claude_history())
    [body] = bodies(standin)
    assert not json_keys(body) & {"thinking_blocks", "provider_specific_fields", STAMP}
    assert SIGNATURE not in json.dumps(body)
    assert changes(answer.headers)
    assert answer.headers["x-litellm-hygiene-target"] == "openai/gpt-4o"


def test_a_gpt_tool_loop_reaches_claude_without_thinking(stack: Stack, standin: StandIn) -> None:
    """Claude asked to think refuses another model's open loop; hygiene sends it without."""
    standin.enqueue(anthropic.message(anthropic.text("42."), model=CLAUDE_MODEL, seed="t1t"))
    call = {"name": "multiply", "arguments": '{"a": 6, "b": 7}'}
    history: list[Json] = [
        {"role": "user", "content": "What is 6*7?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "call_Qp7rT2xLm9", "type": "function", "function": call}],
        },
        {"role": "tool", "tool_call_id": "call_Qp7rT2xLm9", "content": "42"},
    ]
    thinking = {"type": "enabled", "budget_tokens": 2048}
    raw = stack.client.chat.completions.with_raw_response.create(
        model="claude",
        messages=cast(Any, history),
        max_tokens=4096,
        extra_body={"thinking": thinking},
    )
    [body] = bodies(standin)
    assert "thinking" not in body
    assert body["messages"][1]["content"][0]["type"] == "tool_use"
    assert changes(hygiene_headers(raw.headers))["thinking_tool_loop"] == 1
    # Claude's own signed loop: the parameter does reach Claude through this proxy.
    standin.reset()
    standin.enqueue(anthropic.message(anthropic.text("42."), model=CLAUDE_MODEL, seed="t2t"))
    stack.client.chat.completions.create(
        model="claude",
        messages=cast(Any, claude_history()),
        max_tokens=4096,
        extra_body={"thinking": thinking},
    )
    [body] = bodies(standin)
    assert body["thinking"]["type"] == "enabled"
    assert body["messages"][1]["content"][0]["signature"] == SIGNATURE


# -- 2. the stamp's round trip ----------------------------------------------------------------


def test_stamp_round_trip_replays_the_same_model_signature(stack: Stack, standin: StandIn) -> None:
    thinking = anthropic.thinking("Look it up.", seed="t2")
    call = anthropic.tool_use("lookup", {"q": "t2"}, seed="t2")
    standin.enqueue(anthropic.message(thinking, call, model=CLAUDE_MODEL, seed="t2"))
    first = chat(stack.client, "claude", [{"role": "user", "content": "Look it up."}])
    assert first.message[STAMP] == {
        "provider": "anthropic",
        "api": "anthropic-messages",
        "model": "claude-sonnet-4-5",
    }
    history = [
        {"role": "user", "content": "Look it up."},
        first.message,  # as the client dumped it: stamp, thinking_blocks, tool_calls
        {"role": "tool", "tool_call_id": call["id"], "content": "found"},
    ]
    standin.enqueue(anthropic.message(anthropic.text("Found."), model=CLAUDE_MODEL, seed="t2b"))
    second = chat(stack.client, "claude", history)
    body = bodies(standin)[1]
    assert STAMP not in json_keys(body)
    assert body["messages"][1]["content"] == [thinking, call]  # signature byte for byte
    assert changes(second.headers) == {}  # removing the stamp is not a counted change
    assert "x-litellm-hygiene-restored" not in second.headers


# -- 3. the Router fallback through the proxy -------------------------------------------------


@pytest.mark.parametrize(
    ("status", "kind"), [(529, "overloaded_error"), (500, "api_error")], ids=["529", "500"]
)
def test_fallback_hop_to_mistral_gets_a_mistral_valid_body(
    stack: Stack, standin: StandIn, status: int, kind: str
) -> None:
    standin.enqueue(anthropic.error(status, kind, "Overloaded", seed=f"t3-{status}"))
    standin.enqueue(mistral_ok(f"t3-{status}"))
    answer = chat(stack.client, "claude", claude_history())
    assert [r.route for r in standin.received] == ["anthropic-messages", "chat-completions"]
    anthropic_body, mistral_body = bodies(standin)
    claude_turn = anthropic_body["messages"][1]["content"]
    assert claude_turn[0]["signature"] == SIGNATURE  # the first hop: Claude's own turn
    assert claude_turn[-1]["id"] == TOOLU
    assert_valid_for_mistral(mistral_body)  # the fallback hop: made valid for Mistral
    assert answer.headers["x-litellm-hygiene-target"] == "mistral/mistral-large-latest"
    assert answer.message[STAMP]["provider"] == "mistral"


# -- 4. overflow ------------------------------------------------------------------------------


def test_context_window_stop_reason_is_reported_in_a_header(stack: Stack, standin: StandIn) -> None:
    """LiteLLM turns Anthropic's ``model_context_window_exceeded`` into a plain stop."""
    standin.enqueue(
        anthropic.message(
            anthropic.text("Partial"),
            model=CLAUDE_MODEL,
            seed="t4a",
            stop_reason="model_context_window_exceeded",
            input_tokens=199_990,
            output_tokens=10,
        )
    )
    answer = chat(stack.client, "claude", [{"role": "user", "content": "hi"}])
    assert answer.headers["x-litellm-hygiene-overflow"] == (
        "kind=stop_reason; signal=model_context_window_exceeded; "
        "input_tokens=199990; context_window=200000"
    )


def overflow_error_of(client: openai.OpenAI, model: str) -> openai.BadRequestError:
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(
            model=model, messages=[{"role": "user", "content": "a very long prompt"}]
        )
    return caught.value


def test_mistral_overflow_reaches_the_client_like_litellms_own_overflow_error(
    stack: Stack, standin: StandIn
) -> None:
    """Ours (the failure hook) next to LiteLLM's own mapping of OpenAI's overflow.

    Same status, class, ``type``, ``param``, ``code`` and message prefix. LiteLLM's own
    also has the Router's ``context_window_fallbacks`` hint in its message and the
    provider's ``llm_provider-*`` headers; a hook-made ``HTTPException`` has neither.
    """
    standin.enqueue(mistral.overflow_error())
    ours = overflow_error_of(stack.client, "mistral")
    standin.enqueue(
        openai_chat.error(
            400,
            "This model's maximum context length is 128000 tokens. However, your messages "
            "resulted in 150004 tokens. Please reduce the length of the messages.",
            "invalid_request_error",
            "context_length_exceeded",
        )
    )
    theirs = overflow_error_of(stack.client, "gpt")
    prefix = "litellm.ContextWindowExceededError: litellm.BadRequestError: "
    for error in (ours, theirs):
        assert error.status_code == 400
        assert isinstance(error.body, dict)
        assert error.body["message"].startswith(prefix)
        assert (error.type, error.param, error.code) == ("invalid_request_error", None, "400")
    assert set(cast(Json, ours.body)) == set(cast(Json, theirs.body))
    assert "MistralException" in ours.message
    assert "too large for model with 131072 maximum context length" in ours.message
    assert hygiene_headers(ours.response.headers)["x-litellm-hygiene-overflow"] == (
        "kind=error_pattern; signal=mistral_too_large_for_model; "
        "input_tokens=150004; context_window=131072"
    )
    assert len(standin.received) == 2  # one attempt each: no retry, no fallback


def test_a_tool_id_error_reaches_the_client_as_a_bad_request_not_an_overflow(
    stack: Stack, standin: StandIn
) -> None:
    """LiteLLM maps OpenAI's tool-id length error to its overflow error (issue 10 item 14).

    It does so when the body has no ``string_above_max_length`` code (an OpenAI-shaped
    endpoint that relays the message without OpenAI's code).
    """
    standin.enqueue(
        openai_chat.error(
            400,
            "Invalid 'messages[2].tool_calls[0].id': string too long. Expected a string with "
            "maximum length 40, but got a string with length 83 instead.",
            "invalid_request_error",
        )
    )
    error = overflow_error_of(stack.client, "gpt")
    assert isinstance(error.body, dict)
    assert error.body["message"].startswith("litellm.BadRequestError: ")
    assert "ContextWindowExceededError" not in error.body["message"]
    assert "string too long" in error.message
    assert "not a context-window overflow" in error.message
    assert "x-litellm-hygiene-overflow" not in hygiene_headers(error.response.headers)
    assert len(standin.received) == 1


# -- the example config -----------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:Items? .* (is|are) using the `ReadOnly` qualifier:UserWarning")
def test_example_config_is_valid(monkeypatch: pytest.MonkeyPatch) -> None:
    """The example parses, points every deployment at the stand-in named by one variable,
    and shows every option but the Redis ones (its Redis variant shows those) and
    ``unknown_provenance`` (which it documents in comments). Both examples are run
    through a real proxy in ``tests/e2e/test_examples.py``."""
    from litellm_hygiene import HygieneOptions

    config = yaml.safe_load(EXAMPLE_CONFIG.read_text(encoding="utf-8"))
    assert config["litellm_settings"]["callbacks"] == "litellm_hygiene.proxy_handler"
    for deployment in config["model_list"]:
        params = deployment["litellm_params"]
        assert params["api_base"] == "os.environ/HYGIENE_STANDIN_URL"
        assert params["api_key"] == "stand-in-needs-no-key"
    section = config["callback_settings"]["litellm_hygiene"]
    options = HygieneOptions.from_settings(section)  # unknown keys and bad values raise
    assert set(section) == set(HygieneOptions.model_fields) - {
        "redis_host",
        "redis_port",
        "redis_password",
        "redis_username",
        "redis_url",
        "redis_ssl",
        "redis_db",
        "unknown_provenance",
    }
    assert options.provenance_store == "memory"

    redis_config = yaml.safe_load(EXAMPLE_CONFIG.with_name("proxy_config_redis.yaml").read_text())
    assert redis_config["model_list"] == config["model_list"]
    redis_section = redis_config["callback_settings"]["litellm_hygiene"]
    environment = {"REDIS_HOST": "redis.internal", "REDIS_PORT": "6379"}
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    named = {
        v.removeprefix("os.environ/") for v in redis_section.values() if str(v).startswith("os.")
    }
    assert named == set(environment)
    redis_options = HygieneOptions.from_settings(redis_section)
    assert (redis_options.provenance_store, redis_options.redis_port) == ("redis", 6379)


# -- /v1/messages (Claude Code) ---------------------------------------------------------


def _interrupted_claude_code() -> list[Json]:
    """A Claude Code history whose call the user interrupted: no ``tool_result``."""
    return [
        {"role": "user", "content": [{"type": "text", "text": "list the files"}]},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": TOOLU, "name": "Bash", "input": {"c": "ls"}}],
        },
        {"role": "user", "content": [{"type": "text", "text": "[Request interrupted by user]"}]},
    ]


def _interrupted_codex() -> list[Json]:
    """A Codex history whose call the user interrupted: no ``function_call_output``."""
    return [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "ls"}]},
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_1",
            "name": "shell",
            "arguments": "{}",
        },
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "stop"}]},
    ]


def test_claude_code_history_reaches_claude_with_its_interrupted_call_answered(
    stack: Stack, standin: StandIn
) -> None:
    """``/v1/messages`` is sent to Anthropic as it is: hygiene reads it in that shape."""
    standin.enqueue(anthropic.message(anthropic.text("ok"), model=CLAUDE_MODEL, seed="cc1"))
    history = _interrupted_claude_code()
    response = httpx.post(
        f"{str(stack.client.base_url).rstrip('/')}/messages",
        headers={"Authorization": f"Bearer {MASTER_KEY}"},
        json={"model": "claude", "max_tokens": 1024, "messages": history},
        timeout=60,
    )
    assert response.status_code == 200, response.text
    assert response.json()["content"][0]["text"] == "ok"
    [body] = bodies(standin)
    blocks = [block for message in body["messages"][2:] for block in message["content"]]
    assert blocks[0] == {
        "type": "tool_result",
        "tool_use_id": TOOLU,
        "content": "No result provided",
    }
    assert blocks[1] == history[2]["content"][0]
    assert "litellm_hygiene" not in json.dumps(body)
    headers = hygiene_headers(response.headers)
    assert changes(headers) == {"tool_pairing": 1}, headers


def test_codex_history_reaches_openai_with_its_interrupted_call_answered(
    stack: Stack, standin: StandIn
) -> None:
    """``/v1/responses`` is sent to OpenAI as it is: hygiene reads it in that shape."""
    standin.enqueue(
        openai_responses.response(
            openai_responses.message("ok", seed="cx1"), model="gpt-4o", seed="cx1"
        )
    )
    items = _interrupted_codex()
    response = httpx.post(
        f"{str(stack.client.base_url).rstrip('/')}/responses",
        headers={"Authorization": f"Bearer {MASTER_KEY}"},
        json={"model": "gpt", "input": items},
        timeout=60,
    )
    assert response.status_code == 200, response.text
    [body] = bodies(standin)
    assert body["input"][:2] == items[:2]
    assert body["input"][2] == {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": "No result provided",
    }
    assert body["input"][3] == items[2]
    assert changes(hygiene_headers(response.headers)) == {"tool_pairing": 1}


def test_a_streamed_claude_code_request_is_repaired_too(stack: Stack, standin: StandIn) -> None:
    """Streamed (``"stream": true``): the request is read and repaired the same way, and
    the client gets the stand-in's event stream."""
    standin.enqueue(anthropic.message(anthropic.text("ok"), model=CLAUDE_MODEL, seed="cc2"))
    history = _interrupted_claude_code()
    response = httpx.post(
        f"{str(stack.client.base_url).rstrip('/')}/messages",
        headers={"Authorization": f"Bearer {MASTER_KEY}"},
        json={"model": "claude", "max_tokens": 1024, "messages": history, "stream": True},
        timeout=60,
    )
    assert response.status_code == 200, response.text
    assert "event: message_stop" in response.text
    assert '"text":"ok"' in response.text.replace(" ", "")
    [body] = bodies(standin)
    assert body["stream"] is True
    first_result = body["messages"][2]["content"][0]
    assert first_result == {
        "type": "tool_result",
        "tool_use_id": TOOLU,
        "content": "No result provided",
    }


def test_a_streamed_codex_request_is_repaired_too(stack: Stack, standin: StandIn) -> None:
    standin.enqueue(
        openai_responses.response(
            openai_responses.message("ok", seed="cx2"), model="gpt-4o", seed="cx2"
        )
    )
    items = _interrupted_codex()
    response = httpx.post(
        f"{str(stack.client.base_url).rstrip('/')}/responses",
        headers={"Authorization": f"Bearer {MASTER_KEY}"},
        json={"model": "gpt", "input": items, "stream": True},
        timeout=60,
    )
    assert response.status_code == 200, response.text
    assert "response.completed" in response.text
    [body] = bodies(standin)
    assert body["stream"] is True
    assert body["input"][2] == {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": "No result provided",
    }
