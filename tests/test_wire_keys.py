"""Which protocols LiteLLM sends a message's unknown keys to, read from the body it sends.

``WirePlan.sends_message_keys`` says where a key the provider does not know (hygiene's
stamp) would reach it; ``hygiene_stamp`` removes the stamp there and only there. These
tests send messages carrying such a key through ``litellm.acompletion`` to the local
stand-in, without hygiene, and read the body: the fact holds for the LiteLLM installed.
With the callback registered, no stamp reaches any provider, and where LiteLLM leaves
it behind a stamped same-model history goes out as the caller's own list.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import litellm
import pytest

from litellm_hygiene import STAMP_KEY, HygieneCallback, resolve_target, sanitize_messages
from litellm_hygiene._openai._facts import wire_plan
from litellm_hygiene._standin import (
    Reply,
    StandIn,
    anthropic,
    bedrock,
    deepseek,
    gemini,
    mistral,
    openai_chat,
    openai_responses,
)
from tests.cassettes import BASE_PATHS, FAKE_AWS, Provider, warm_up_litellm
from tests.litellm_callbacks import restored_callbacks

UNKNOWN = "x_unknown_key"


@dataclass(frozen=True)
class Route:
    provider: Provider
    model: str
    sends_keys: bool
    """What the body shows: LiteLLM sends the message's unknown keys on."""

    def reply(self, seed: str) -> Reply:
        return _REPLIES[self.provider](seed)


_REPLIES = {
    "anthropic": lambda s: anthropic.message(
        anthropic.text("Hi"), model="claude-sonnet-4-5", seed=s
    ),
    "gemini": lambda s: gemini.generate_content(
        gemini.text("Hi", seed=s), model_version="gemini-2.5-pro", seed=s
    ),
    "openai": lambda s: openai_chat.completion("Hi", model="gpt-4o", seed=s),
    "mistral": lambda s: mistral.completion("Hi", model="mistral-large-latest", seed=s),
    "responses": lambda s: openai_responses.response(
        openai_responses.message("Hi", seed=s), model="gpt-5", seed=s
    ),
    "bedrock": lambda s: bedrock.converse(bedrock.text("Hi")),
    "deepseek": lambda s: deepseek.completion("Hi", model="deepseek-chat", seed=s),
}

ROUTES = [
    Route("anthropic", "anthropic/claude-sonnet-4-5", False),
    Route("bedrock", "bedrock/converse/us.anthropic.claude-sonnet-4-5-20250929-v1:0", False),
    Route("gemini", "gemini/gemini-2.5-pro", False),
    Route("responses", "openai/responses/gpt-5", False),
    Route("openai", "openai/gpt-4o", True),
    Route("mistral", "mistral/mistral-large-latest", True),
    Route("deepseek", "deepseek/deepseek-chat", True),
]


def _history(key: str, value: Any) -> list[dict[str, Any]]:
    """Every role carrying ``key``: a user turn, a call, its result, and a user turn."""
    call = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    return [
        {"role": "system", "content": "Be brief.", key: value},
        {"role": "user", "content": "Look it up.", key: value},
        {"role": "assistant", "content": "On it.", "tool_calls": [call], key: value},
        {"role": "tool", "tool_call_id": "call_1", "content": "42", key: value},
        {"role": "user", "content": "And?"},
    ]


@pytest.fixture(scope="module")
def standin() -> Iterator[StandIn]:
    warm_up_litellm()
    with StandIn() as server:
        yield server


async def _sent(standin: StandIn, route: Route, messages: list[dict[str, Any]], seed: str) -> str:
    """The body LiteLLM sent for ``messages``, as JSON text."""
    standin.reset()
    standin.enqueue(route.reply(seed))
    extra: dict[str, Any] = FAKE_AWS if route.provider == "bedrock" else {}
    await litellm.acompletion(
        model=route.model,
        messages=messages,
        api_base=standin.base_url + BASE_PATHS[route.provider],
        api_key="sk-test",
        num_retries=0,
        **extra,
    )
    assert len(standin.received) == 1
    return json.dumps(standin.received[0].body)


@pytest.mark.parametrize("route", ROUTES, ids=[r.model for r in ROUTES])
async def test_the_plan_says_what_litellm_sends(standin: StandIn, route: Route) -> None:
    plan = wire_plan(resolve_target(route.model))
    assert plan.sends_message_keys is route.sends_keys
    with restored_callbacks(empty=True):
        body = await _sent(standin, route, _history(UNKNOWN, "marker-value"), "plain")
    assert (UNKNOWN in body) is route.sends_keys
    assert ("marker-value" in body) is route.sends_keys


@pytest.mark.parametrize("route", ROUTES, ids=[r.model for r in ROUTES])
async def test_no_stamp_reaches_the_provider_through_the_callback(
    standin: StandIn, route: Route
) -> None:
    stamp = {"provider": "openai", "api": "openai-chat", "model": "gpt-4o"}
    with restored_callbacks(empty=True):
        litellm.callbacks = [HygieneCallback(provenance_store="none")]
        body = await _sent(standin, route, _history(STAMP_KEY, stamp), "hook")
    assert STAMP_KEY not in body


@pytest.mark.parametrize("route", ROUTES, ids=[r.model for r in ROUTES])
def test_the_stamp_is_removed_only_where_litellm_would_send_it(route: Route) -> None:
    target = resolve_target(route.model)
    stamp = {"provider": target.provider, "api": target.api, "model": target.model_id}
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "Hi."},
        {"role": "assistant", "content": "Hello.", STAMP_KEY: stamp},
        {"role": "user", "content": "Bye."},
    ]
    result = sanitize_messages(messages, route.model)
    assert result.report.counts() == ({"hygiene_stamp": 1} if route.sends_keys else {})
    if route.sends_keys:
        assert all(STAMP_KEY not in m for m in result.messages)
        assert messages[1][STAMP_KEY] == stamp  # the caller's message is untouched
    else:  # the caller's own messages, not copies
        assert all(a is b for a, b in zip(result.messages, messages, strict=True))
