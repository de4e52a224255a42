"""Which routes LiteLLM sends a message's unknown keys on, read from the body it sends.

``WirePlan.sends_message_keys`` says where a key the provider does not know (hygiene's
stamp) would reach it; ``hygiene_stamp`` removes the stamp there and only there. These
tests send messages carrying such a key through ``litellm.acompletion`` to the local
stand-in (which answers every path with the route's reply), without hygiene, and read
the body: the fact holds for the LiteLLM installed, route by route, including the
OpenAI-compatible routes behind Vertex AI and Bedrock that hygiene reads as Gemini or
Converse.
With the callback registered, no stamp reaches any provider, and where LiteLLM leaves
it behind a stamped same-model history goes out as the caller's own list.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import litellm
import pytest

from litellm_hygiene import STAMP_KEY, HygieneCallback, resolve_target, sanitize_messages
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
from litellm_hygiene._standin._server import ReceivedRequest
from litellm_hygiene._view import wire_plan
from tests.support.cassettes import FAKE_AWS, READONLY_WARNING, warm_up_litellm
from tests.support.litellm_callbacks import restored_callbacks

# Newer LiteLLM releases (1.109.3) build more ReadOnly TypedDict schemas lazily, on a
# route's first request (Mistral's request routing, Gemini's context cache), past
# warm_up_litellm.
pytestmark = pytest.mark.filterwarnings(f"ignore:{READONLY_WARNING}:UserWarning")

UNKNOWN = "x_unknown_key"
VERTEX = {"vertex_project": "project", "vertex_location": "us-central1"}
AZURE = {"api_version": "2025-03-01-preview"}

_REPLIES: dict[str, Callable[[str], Reply]] = {
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
"""A reply in the shape of each API a route below is served by."""


@dataclass(frozen=True)
class Route:
    model: str
    reply: str
    """The API that serves the route (a key of :data:`_REPLIES`)."""
    sends_keys: bool
    """What the body shows: LiteLLM sends the message's unknown keys on."""
    base: str = ""
    extra: Mapping[str, str] = field(default_factory=dict)


_CLAUDE_ON_BEDROCK = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
ROUTES = [
    Route("anthropic/claude-sonnet-4-5", "anthropic", False),
    Route(f"bedrock/converse/{_CLAUDE_ON_BEDROCK}", "bedrock", False, extra=FAKE_AWS),
    Route(f"bedrock/{_CLAUDE_ON_BEDROCK}", "bedrock", False, extra=FAKE_AWS),
    Route(f"bedrock/invoke/{_CLAUDE_ON_BEDROCK}", "anthropic", False, extra=FAKE_AWS),
    Route("gemini/gemini-2.5-pro", "gemini", False, "/v1beta"),
    Route("vertex_ai/gemini-2.5-pro", "gemini", False, extra=VERTEX),
    Route("vertex_ai/claude-sonnet-4-5", "anthropic", False, extra=VERTEX),
    Route("azure_ai/claude-sonnet-4-5", "anthropic", False),
    Route("openai/responses/gpt-5", "responses", False, "/v1"),
    Route("azure/responses/gpt-5", "responses", False, extra=AZURE),
    Route("openai/gpt-4o", "openai", True, "/v1"),
    Route("mistral/mistral-large-latest", "mistral", True, "/v1"),
    Route("deepseek/deepseek-chat", "deepseek", True, "/beta"),
    # Served through OpenAI-compatible endpoints, whatever hygiene reads them as.
    Route("vertex_ai/meta/llama-3.1-405b-instruct-maas", "openai", True, extra=VERTEX),
    Route("vertex_ai/mistral-large@2407", "openai", True, extra=VERTEX),
    Route(f"bedrock/chat_completions/{_CLAUDE_ON_BEDROCK}", "openai", True, extra=FAKE_AWS),
    Route("bedrock/us.openai.gpt-5.6-sol", "openai", True, extra=FAKE_AWS),
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


class _Answering:
    """The stand-in's answer to every request: the reply of the route under test."""

    def __init__(self) -> None:
        self.reply: Reply | None = None

    def __call__(self, request: ReceivedRequest) -> Reply | None:
        return self.reply


@pytest.fixture(scope="module")
def standin() -> Iterator[tuple[StandIn, _Answering]]:
    warm_up_litellm()
    answering = _Answering()
    with StandIn(respond=answering) as server:
        yield server, answering


@pytest.fixture(autouse=True)
def _vertex_token(vertex_token: None) -> None:
    """Every route here may be Vertex AI's (conftest's token, never fetched)."""


async def _sent(
    standin: tuple[StandIn, _Answering], route: Route, messages: list[dict[str, Any]], seed: str
) -> str:
    """The body LiteLLM sent for ``messages``, as JSON text."""
    server, answering = standin
    server.reset()
    answering.reply = _REPLIES[route.reply](seed)
    await litellm.acompletion(
        model=route.model,
        messages=messages,
        api_base=server.base_url + route.base,
        api_key="sk-test",
        num_retries=0,
        **route.extra,
    )
    assert len(server.received) == 1
    return json.dumps(server.received[0].body)


@pytest.mark.parametrize("route", ROUTES, ids=[r.model for r in ROUTES])
async def test_the_plan_says_what_litellm_sends(
    standin: tuple[StandIn, _Answering], route: Route
) -> None:
    plan = wire_plan(resolve_target(route.model))
    assert plan.sends_message_keys is route.sends_keys
    with restored_callbacks(empty=True):
        body = await _sent(standin, route, _history(UNKNOWN, "marker-value"), "plain")
    assert (UNKNOWN in body) is route.sends_keys
    assert ("marker-value" in body) is route.sends_keys


@pytest.mark.parametrize("route", ROUTES, ids=[r.model for r in ROUTES])
async def test_no_stamp_reaches_the_provider_through_the_callback(
    standin: tuple[StandIn, _Answering], route: Route
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
