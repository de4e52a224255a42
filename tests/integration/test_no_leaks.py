"""Nothing leaks: logs, client-facing errors, store keys, remote images, image bombs.

Every test plants recognisable secrets (message text, an API key, a thinking signature,
a tool-call id, image bytes) and looks for them where they must never appear.
"""

from __future__ import annotations

import base64
import json
import re
import socket
import tracemalloc
from collections.abc import Iterator
from typing import Any

import litellm
import pytest
import redis
from litellm import ModelResponse

from litellm_hygiene import HygieneCallback, MemoryStore
from litellm_hygiene._integration._store._fingerprints import fingerprints
from litellm_hygiene._integration._store._redis import RedisStore
from litellm_hygiene._integration._store._tiered import TieredStore
from tests.rules import test_rules_properties as rules_properties
from tests.support.fuzz_strategies import bomb_png
from tests.support.hygiene_log import LogLines, hygiene_log
from tests.support.redis_server import redis_server_or_skip

pytestmark = pytest.mark.filterwarnings(
    "ignore:Items? .* (is|are) using the `ReadOnly` qualifier:UserWarning"
)

TARGETS: list[str] = rules_properties.TARGETS
SECRET_TEXT = "SECRET-TEXT-7f3a9"
SECRET_KEY = "sk-SECRET-KEY-0c41d"
SECRET_SIGNATURE = base64.b64encode(b"SECRET-SIGNATURE-51aa").decode()
SECRET_ID = "toolu_SECRETID82bf0"
SECRETS = (SECRET_TEXT, SECRET_KEY, SECRET_SIGNATURE, SECRET_ID, "SECRET")

Json = dict[str, Any]


def history() -> list[Json]:
    """A Claude turn with every kind of secret in it."""
    return [
        {"role": "user", "content": f"question {SECRET_TEXT}"},
        {
            "role": "assistant",
            "content": f"answer {SECRET_TEXT}",
            "thinking_blocks": [
                {"type": "thinking", "thinking": SECRET_TEXT, "signature": SECRET_SIGNATURE}
            ],
            "tool_calls": [
                {
                    "id": SECRET_ID,
                    "type": "function",
                    "function": {"name": "f", "arguments": json.dumps({"q": SECRET_TEXT})},
                }
            ],
        },
        {"role": "tool", "tool_call_id": SECRET_ID, "content": SECRET_TEXT},
    ]


MALFORMED: list[tuple[list[Json], int, str]] = [
    ([{"role": "user", "content": {"text": SECRET_TEXT}}], 0, "content"),
    ([*history(), {"content": SECRET_TEXT}], 3, "role"),
    ([*history(), {"role": SECRET_TEXT, "content": "x"}], 3, "role"),
    ([*history()[:2], {"role": "tool", "content": SECRET_TEXT}], 2, "tool_call_id"),
    ([{"role": "user", "content": [{"type": "text", "text": 7}, SECRET_TEXT]}], 0, "content"),
    (
        [{"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": SECRET_TEXT}],
        1,
        "tool_calls",
    ),
]
"""Unreadable transcripts, the index of the bad message, and the field it names."""


@pytest.fixture
def logged() -> Iterator[LogLines]:
    """Every record of hygiene's logger, at every level (DEBUG and up)."""
    with hygiene_log() as lines:
        yield lines


def assert_no_secret(text: str) -> None:
    found = [secret for secret in SECRETS if secret in text]
    assert not found, f"{found} in {text[:300]!r}"


def kwargs_for(model: str, messages: list[Json]) -> Json:
    return {"model": model, "messages": messages, "api_key": SECRET_KEY, "litellm_call_id": "c"}


@pytest.mark.parametrize("fail_closed", [False, True])
@pytest.mark.parametrize("model", TARGETS)
async def test_nothing_secret_is_logged_at_any_level(
    logged: LogLines, model: str, fail_closed: bool
) -> None:
    # A store that always fails: its errors are logged too.
    callback = HygieneCallback(
        fail_closed=fail_closed, provenance_store="redis", redis_host="127.0.0.1", redis_port=9
    )
    await callback.async_pre_call_deployment_hook(kwargs_for(model, history()), "acompletion")
    for messages, _, _ in MALFORMED:
        try:
            await callback.async_pre_call_deployment_hook(
                kwargs_for(model, messages), "acompletion"
            )
        except litellm.exceptions.BadRequestError:
            assert fail_closed
    assert logged.lines, "nothing was logged: the test would prove nothing"
    assert_no_secret("\n".join(logged.lines))


@pytest.mark.parametrize(("messages", "index", "field"), MALFORMED)
async def test_fail_closed_names_index_and_field_never_content(
    messages: list[Json], index: int, field: str
) -> None:
    callback = HygieneCallback(fail_closed=True)
    with pytest.raises(litellm.exceptions.BadRequestError) as raised:
        await callback.async_pre_call_deployment_hook(
            kwargs_for("mistral/mistral-large-latest", messages), "acompletion"
        )
    message = str(raised.value)
    assert f"messages[{index}]" in message and field in message, message
    assert_no_secret(message)


async def test_provenance_store_keys_are_hashes() -> None:
    store = MemoryStore()
    callback = HygieneCallback(store=store)
    assistant = history()[1]
    response = ModelResponse(
        model="claude-sonnet-4-5",
        choices=[{"index": 0, "finish_reason": "tool_calls", "message": assistant}],
    )
    request = {"model": "anthropic/claude-sonnet-4-5", "messages": history()[:1]}
    await callback.async_post_call_success_deployment_hook(request, response, "acompletion")
    keys = list(store._entries)
    assert len(keys) >= 3  # the tool id, the signature, the text
    assert set(fingerprints(assistant)) <= set(keys)
    for key in keys:
        assert re.fullmatch(r"[a-z_]+:[0-9a-f]{32}", key), key
        assert_no_secret(key)


async def test_a_remembered_conversation_leaves_no_content_in_redis_logs_or_reports(
    logged: LogLines,
) -> None:
    """What the hook remembers of a conversation is content, held in this process only.

    A conversation sent request by request (the recall copies it on its second request
    and finds it remembered after), each answer recorded in a real Redis store as the
    proxy records it, leaves none of it in Redis (keys and values), the logs, the
    reports or the metadata LiteLLM hands its spend logs.
    """
    with redis_server_or_skip() as server:
        callback = HygieneCallback(
            provenance_store="redis", redis_host=server.host, redis_port=server.port
        )
        conversation = history()
        published: list[str] = []
        for step in range(4):
            conversation.append({"role": "user", "content": f"go on {step} {SECRET_TEXT}"})
            kwargs = {**kwargs_for("mistral/mistral-large-latest", conversation)}
            kwargs["litellm_call_id"] = f"call-{step}"
            kwargs["messages"] = json.loads(json.dumps(conversation))  # parsed afresh
            returned = await callback.async_pre_call_deployment_hook(kwargs, "acompletion")
            data = returned if returned is not None else kwargs
            call = f"{SECRET_ID}{step}"
            answer: Json = {
                "role": "assistant",
                "content": f"step {step} {SECRET_TEXT}",
                "thinking_blocks": [
                    {"type": "thinking", "thinking": SECRET_TEXT, "signature": SECRET_SIGNATURE}
                ],
                "tool_calls": [
                    {"id": call, "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            }
            response = ModelResponse(
                model="claude-sonnet-4-5",
                choices=[{"index": 0, "finish_reason": "tool_calls", "message": answer}],
            )
            await callback.async_post_call_success_deployment_hook(data, response, "acompletion")
            report = callback.report_for(f"call-{step}")
            assert report is not None and report.error is None
            published.append(json.dumps(report.as_dict()))
            published.append(json.dumps(data["metadata"]))  # what the spend logs get
            conversation += [answer, {"role": "tool", "tool_call_id": call, "content": "done"}]
        tiered = callback.store
        assert isinstance(tiered, TieredStore)
        shared = tiered.shared
        assert isinstance(shared, RedisStore)
        await shared.aclose()
        assert callback.stats["recalled_messages"] > 0  # what is remembered was used
        assert callback.stats["changed"] == 4
        stored = redis.Redis(host=server.host, port=server.port, password=server.password)
        keys = list(stored.scan_iter("*"))
        assert keys, "nothing was stored: the test would prove nothing"
        for key in keys:
            value = stored.get(key)  # the store writes strings, as they are (DUMP compresses)
            assert isinstance(value, bytes)
            assert_no_secret(key.decode() + value.decode("latin-1"))
        stored.close()
    assert_no_secret("\n".join(published))
    assert_no_secret("\n".join(logged.lines))


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A TCP port on 127.0.0.1 that records whether anyone connected."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    sock.settimeout(0.3)
    try:
        yield sock
    finally:
        sock.close()


@pytest.mark.parametrize("model", TARGETS)
async def test_remote_image_urls_are_never_fetched(listener: socket.socket, model: str) -> None:
    port = listener.getsockname()[1]
    url = f"http://127.0.0.1:{port}/cat.png"
    messages: list[Json] = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "see"},
                {"type": "image_url", "image_url": {"url": url}},
            ],
        },
        {"role": "assistant", "content": "a cat"},
        {"role": "user", "content": [{"type": "image_url", "image_url": url}]},
    ]
    callback = HygieneCallback()
    await callback.async_pre_call_deployment_hook(kwargs_for(model, messages), "acompletion")
    report = callback.report_for("c")
    assert report is not None and report.error is None
    with pytest.raises(TimeoutError):
        listener.accept()  # nobody connected


IMAGE_TARGETS = [
    "anthropic/claude-sonnet-4-5",
    "gpt-4o",
    "gemini/gemini-2.5-pro",
    "mistral/mistral-large-latest",
]


@pytest.mark.parametrize("model", IMAGE_TARGETS)
async def test_a_decompression_bomb_is_refused_without_decoding_it(model: str) -> None:
    bomb = "data:image/png;base64," + base64.b64encode(bomb_png(60_000, 60_000)).decode()
    messages = [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": bomb}}]}]
    callback = HygieneCallback()
    tracemalloc.start()
    try:
        new = await callback.async_pre_call_deployment_hook(
            kwargs_for(model, messages), "acompletion"
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # 60,000 x 60,000 RGB pixels decoded would be 10.8 GB; refusing from the header
    # allocates next to nothing.
    assert peak < 16 * 1024 * 1024, peak
    assert new is not None
    assert bomb not in json.dumps(new["messages"])  # replaced, never sent on
    report = callback.report_for("c")
    assert report is not None and report.changes.get("image_payload") == 1, report
