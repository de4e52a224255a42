"""Two real proxy processes sharing one real Redis; Redis going down; failure injection.

Proxies **A** (fails open, the default) and **B** (``fail_closed: true``) have identical
Redis settings (``provenance_store: redis``, ``redis_retry_after: 0.5``) and sit in front
of one provider stand-in. Both use ``unknown_provenance: foreign`` so that whether a
turn was recognised as same-model shows in the body Anthropic receives (signature
replayed, or thinking turned into text), not only in the ``restored`` header.

Both proxies start once for the module, together. Every answer has its own seed, so no
test finds another test's turns in a store.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, cast

import openai
import pytest
import redis

from litellm_hygiene._standin import StandIn, anthropic, mistral
from tests.support.proxy_server import (
    STAMP,
    Answer,
    ProxyServer,
    chat,
    hygiene_headers,
    json_keys,
    proxy_client,
    running_proxies,
    standin_config,
)
from tests.support.redis_server import RedisServer, redis_server_or_skip

CLAUDE_MODEL = "claude-sonnet-4-5-20250929"
RETRY_AFTER = 0.5

Json = dict[str, Any]


@dataclass(frozen=True)
class Stack:
    standin: StandIn
    redis: RedisServer
    a: openai.OpenAI
    b: openai.OpenAI


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    with redis_server_or_skip() as redis_server, StandIn() as standin:
        shared = {
            "provenance_store": "redis",
            "redis_host": redis_server.host,
            "redis_port": redis_server.port,
            "redis_retry_after": RETRY_AFTER,
            # A loaded CI machine can take longer than the 0.25 s default to open a
            # proxy's first Redis connection; a stopped Redis refuses at once anyway.
            "redis_timeout": 2.0,
            "unknown_provenance": "foreign",
        }
        a = ProxyServer("A", standin_config(standin.base_url, **shared))
        b = ProxyServer("B", standin_config(standin.base_url, **shared, fail_closed=True))
        with running_proxies([a, b]), proxy_client(a) as client_a, proxy_client(b) as client_b:
            yield Stack(standin, redis_server, client_a, client_b)


@pytest.fixture
def standin(stack: Stack) -> StandIn:
    """The stand-in with no queued replies and an empty request log; Redis running."""
    stack.standin.reset()
    if not stack.redis.running:  # an earlier failure left it stopped
        stack.redis.start()
    return stack.standin


def answer_from_a(stack: Stack, seed: str) -> tuple[list[Json], Json]:
    """A Claude answer through A, kept by a client that drops the stamp; its thinking."""
    thinking = anthropic.thinking(f"Think {seed}.", seed=seed)
    reply = anthropic.message(
        thinking, anthropic.text(f"Answer {seed}."), model=CLAUDE_MODEL, seed=seed
    )
    stack.standin.enqueue(reply)
    first = chat(stack.a, "claude", [{"role": "user", "content": "hi"}])
    assert STAMP in first.message
    dropped = first.without_stamp()  # model_dump(exclude={"litellm_hygiene"})
    assert STAMP not in dropped
    history = [{"role": "user", "content": "hi"}, dropped, {"role": "user", "content": "more"}]
    return history, thinking


def follow_up(
    client: openai.OpenAI, standin: StandIn, history: list[Json], seed: str
) -> tuple[Answer, Json]:
    """Send ``history`` to the Claude group: the answer, and the turn Anthropic received."""
    standin.enqueue(anthropic.message(anthropic.text("OK."), model=CLAUDE_MODEL, seed=seed))
    answer = chat(client, "claude", history)
    body = standin.received[-1].body
    assert STAMP not in json_keys(body)
    return answer, body["messages"][1]


def assert_replayed(turn: Json, thinking: Json) -> None:
    assert turn["content"][0] == thinking  # the signature, byte for byte


def assert_foreign(turn: Json, thinking: Json) -> None:
    # The thinking became text, joined to the turn's own text (one string, one part).
    assert turn["content"][0]["type"] == "text"
    assert turn["content"][0]["text"].startswith(thinking["thinking"] + "\n\n")
    assert thinking["signature"] not in json.dumps(turn)


# -- 5. two instances, one Redis ----------------------------------------------------------


def test_instance_b_restores_a_stamp_that_instance_a_recorded(
    stack: Stack, standin: StandIn
) -> None:
    history, thinking = answer_from_a(stack, "t5")
    answer, turn = follow_up(stack.b, standin, history, "t5-next")
    assert answer.headers["x-litellm-hygiene-restored"] == "1"
    assert_replayed(turn, thinking)


def test_without_the_shared_record_instance_b_does_not_restore(
    stack: Stack, standin: StandIn
) -> None:
    """Control: the same exchange with Redis emptied; A still knows its own turn."""
    history, thinking = answer_from_a(stack, "t5-control")
    with redis.Redis(host=stack.redis.host, port=stack.redis.port) as client:
        client.flushdb()
    answer, turn = follow_up(stack.b, standin, history, "t5-control-b")
    assert "x-litellm-hygiene-restored" not in answer.headers
    assert_foreign(turn, thinking)
    answer, turn = follow_up(stack.a, standin, history, "t5-control-a")  # A's in-process store
    assert answer.headers["x-litellm-hygiene-restored"] == "1"
    assert_replayed(turn, thinking)


# -- 6. Redis stopped mid-test ----------------------------------------------------------------


def test_redis_down_falls_back_to_the_in_process_store_then_recovers(
    stack: Stack, standin: StandIn
) -> None:
    stack.redis.stop()
    try:
        history, thinking = answer_from_a(stack, "t6-down")  # recorded by A locally only
        answer, turn = follow_up(stack.a, standin, history, "t6-down-a")
        assert answer.headers["x-litellm-hygiene-restored"] == "1"
        assert_replayed(turn, thinking)
        answer, turn = follow_up(stack.b, standin, history, "t6-down-b")  # B cannot see A's record
        assert "x-litellm-hygiene-restored" not in answer.headers
        assert_foreign(turn, thinking)
    finally:
        stack.redis.start()  # empty again: the test server keeps no data
    time.sleep(2 * RETRY_AFTER)  # both proxies' breakers close
    history, thinking = answer_from_a(stack, "t6-up")
    answer, turn = follow_up(stack.b, standin, history, "t6-up-b")
    assert answer.headers["x-litellm-hygiene-restored"] == "1"
    assert_replayed(turn, thinking)


# -- 7. failure injection ---------------------------------------------------------------------

MALFORMED: list[Json] = [{"role": "user", "content": "hi"}, {"role": "tool", "content": "x"}]
"""A tool message without ``tool_call_id``: hygiene cannot read it."""


def test_malformed_messages_go_as_they_came_when_failing_open(
    stack: Stack, standin: StandIn
) -> None:
    """Kept at its place and counted in a header; hygiene does not give the request up."""
    standin.enqueue(mistral.completion("OK.", model="mistral-large-latest", seed="t7"))
    answer = chat(stack.a, "mistral", MALFORMED)
    [request] = standin.received
    assert request.body["messages"] == MALFORMED
    assert "x-litellm-hygiene-error" not in answer.headers
    assert answer.headers["x-litellm-hygiene-unread"] == "1"
    assert answer.headers["x-litellm-hygiene-changes"] == "none"


def test_malformed_messages_are_rejected_when_failing_closed(
    stack: Stack, standin: StandIn
) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        stack.b.chat.completions.create(model="mistral", messages=cast(Any, MALFORMED))
    error = caught.value
    assert error.status_code == 400
    assert isinstance(error.body, dict)
    assert error.body["message"].startswith(
        "litellm.BadRequestError: litellm_hygiene: messages[1].tool_call_id: missing"
    )
    assert hygiene_headers(error.response.headers)["x-litellm-hygiene-error"] == (
        "InvalidMessageError"
    )
    assert standin.received == []
