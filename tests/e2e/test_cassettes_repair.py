"""Recorded repairs: an errored turn, an interrupted tool call, an image, overflow.

Each scenario records the conversation through LiteLLM with the callback registered,
then checks the pinned wire requests (valid for their target, no stamp) and what
hygiene reported on the answers.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from litellm.exceptions import AuthenticationError, BadRequestError, ContextWindowExceededError

import litellm_hygiene
from litellm_hygiene import HygieneCallback, is_context_overflow
from litellm_hygiene._rules.turn_order import BRIDGE_TEXT
from litellm_hygiene._standin import StandIn, anthropic, mistral, openai_chat
from litellm_hygiene._standin.rules import contains, violations
from tests.support.cassettes import (
    READONLY_WARNING,
    offline,
    recording,
    registered,
    running_standin,
    standin_only,
    warm_up_litellm,
)
from tests.support.scenario import (
    ANSWER,
    CLAUDE,
    CLAUDE_ID,
    QUESTION,
    TOOLS,
    claude_turn,
    tool_results,
)

pytestmark = pytest.mark.filterwarnings(f"ignore:{READONLY_WARNING}:UserWarning")

MISTRAL = "mistral/mistral-large-latest"
RED_PIXEL = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5E"
    "rkJggg=="
)
"""A 1x1 red PNG, spelled out: an encoder's output could differ between Pillow builds."""


@pytest.fixture(scope="module")
def standin() -> Iterator[StandIn | None]:
    warm_up_litellm()
    with running_standin() as server:
        yield server


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    offline(monkeypatch)


@pytest.fixture
def hygiene() -> Iterator[HygieneCallback]:
    with registered(HygieneCallback()) as callback:
        yield callback


def changes(response: Any) -> dict[str, int]:
    report = response._hidden_params["litellm_hygiene"]
    assert isinstance(report["changes"], dict)
    return report["changes"]


async def test_errored_turn_then_fallback(
    standin: StandIn | None, hygiene: HygieneCallback
) -> None:
    """GPT-4o calls a tool; the Claude deployment fails the next turn; Mistral takes over.

    The failure is a bad key (401), which the real API reproduces on demand.
    """
    with recording("errored_turn_fallback", standin) as wire:
        first = await wire.acompletion(
            "openai",
            "openai/gpt-4o",
            QUESTION,
            openai_chat.completion(
                None,
                model="gpt-4o-2024-08-06",
                seed="err",
                tool_calls=[
                    openai_chat.tool_call("get_weather", {"city": city}, seed=f"err-{city}")
                    for city in ("Paris", "Tokyo")
                ],
            ),
            tools=TOOLS,
        )
        message = first.choices[0].message
        history = [*QUESTION, message.model_dump(), *tool_results(message)]
        refused = anthropic.error(401, "authentication_error", "invalid x-api-key", seed="err")
        with pytest.raises(AuthenticationError) as failed:
            await wire.acompletion(
                "anthropic",
                CLAUDE,
                history,
                refused,
                tools=TOOLS,
                max_tokens=1024,
                api_key="sk-ant-revoked",
            )
        fallback = await wire.acompletion(
            "mistral",
            MISTRAL,
            history,
            mistral.completion(ANSWER, model="mistral-large-latest", seed="err"),
            tools=TOOLS,
        )

    assert not is_context_overflow(failed.value), "a refused key is not an overflow"
    to_claude, to_mistral = wire.requests[1].body, wire.requests[2].body
    assert violations("anthropic-messages", to_claude) == []
    assert violations("mistral", to_mistral) == []
    for call in message.tool_calls:
        assert contains(to_claude, call.id), "Anthropic accepts OpenAI's call_ ids"
        assert not contains(to_mistral, call.id), "Mistral rejects them"
    assert fallback.choices[0].message.litellm_hygiene["provider"] == "mistral"
    assert changes(fallback)["tool_call_id"] == len(message.tool_calls)


@pytest.mark.parametrize("target", ["openai_chat", "anthropic_same_model", "mistral"])
async def test_interrupted_tool_call(
    target: str, standin: StandIn | None, hygiene: HygieneCallback
) -> None:
    """The user stopped Claude's second tool call; the next request has one result only.

    Mistral also wants an assistant turn between the results and the user's next turn
    (``Unexpected role 'user' after role 'tool'``): hygiene puts a short one there.
    """
    with recording(f"interrupted_tool_call_to_{target}", standin) as wire:
        first, history = await claude_turn(wire, seed=f"cut-{target}", cities=("Paris",))
        history.append({"role": "user", "content": "Never mind Tokyo. Just Paris, please."})
        if target == "openai_chat":
            reply = openai_chat.completion("Paris: 18°C.", model="gpt-4o-2024-08-06", seed="cut")
            second = await wire.acompletion("openai", "openai/gpt-4o", history, reply, tools=TOOLS)
        elif target == "mistral":
            reply = mistral.completion("Paris: 18°C.", model="mistral-large-latest", seed="cut")
            second = await wire.acompletion("mistral", MISTRAL, history, reply, tools=TOOLS)
        else:
            reply = anthropic.message(anthropic.text("Paris: 18°C."), model=CLAUDE_ID, seed="cut")
            second = await wire.acompletion(
                "anthropic", CLAUDE, history, reply, tools=TOOLS, max_tokens=1024
            )

    sent = wire.requests[1].body
    family = {"openai_chat": "openai-chat", "mistral": "mistral"}.get(target, "anthropic-messages")
    assert violations(family, sent) == []  # type: ignore[arg-type]
    if target == "mistral":
        roles = [m["role"] for m in sent["messages"]]
        assert roles[-3:] == ["tool", "assistant", "user"]
        assert sent["messages"][-2]["content"] == BRIDGE_TEXT
        assert changes(second)["turn_order"] == 1
    assert contains(sent, "18°C, light rain"), "the real result is kept"
    unanswered = len(first.choices[0].message.tool_calls) - 1
    assert changes(second)["tool_pairing"] == unanswered


async def test_image_to_a_text_only_model(
    standin: StandIn | None, hygiene: HygieneCallback
) -> None:
    """Claude saw an image; o3-mini (no vision in LiteLLM's map) gets a text placeholder."""
    asking = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What colour is this pixel?"},
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{RED_PIXEL}"}},
            ],
        }
    ]
    with recording("image_to_text_only_model", standin) as wire:
        first = await wire.acompletion(
            "anthropic",
            CLAUDE,
            asking,
            anthropic.message(anthropic.text("It is red."), model=CLAUDE_ID, seed="img"),
            max_tokens=256,
        )
        history = [
            *asking,
            first.choices[0].message.model_dump(),
            {"role": "user", "content": "And in French?"},
        ]
        second = await wire.acompletion(
            "openai",
            "openai/o3-mini",
            history,
            openai_chat.completion("Rouge.", model="o3-mini-2025-01-31", seed="img"),
        )

    to_claude, to_o3 = wire.requests[0].body, wire.requests[1].body
    assert contains(to_claude, RED_PIXEL), "a vision model gets the image untouched"
    assert changes(first) == {}
    assert violations("openai-chat", to_o3) == []
    assert not contains(to_o3, RED_PIXEL)
    assert not contains(to_o3, "image_url")
    assert changes(second).get("image_unsupported", 0) >= 1


@standin_only("a real overflow needs a prompt over Mistral's 128k-token window")
async def test_mistral_overflow_is_recognised(
    standin: StandIn | None, hygiene: HygieneCallback
) -> None:
    """Mistral's overflow 400 is only a BadRequestError to LiteLLM; hygiene names it."""
    long_question = [{"role": "user", "content": "Summarise the attached report. " * 20}]
    with recording("mistral_overflow", standin) as wire:
        with pytest.raises(BadRequestError) as plain:
            await wire.acompletion("mistral", MISTRAL, long_question, mistral.overflow_error())
        wire.script(mistral.overflow_error())
        with pytest.raises(ContextWindowExceededError) as upgraded:
            await litellm_hygiene.acompletion(
                MISTRAL, long_question, num_retries=0, **wire.kwargs("mistral")
            )

    assert not isinstance(plain.value, ContextWindowExceededError)
    assert is_context_overflow(plain.value)
    assert "131072 maximum context length" in str(upgraded.value)
    first, second = wire.requests
    assert first.body == second.body, "the wrapper sends what the callback alone sends"
    assert violations("mistral", first.body) == []


@standin_only("a real model_context_window_exceeded stop needs a 200k-token prompt")
async def test_anthropic_stops_at_the_context_window(
    standin: StandIn | None, hygiene: HygieneCallback
) -> None:
    """``stop_reason: model_context_window_exceeded`` is a success; the report flags it."""
    with recording("anthropic_context_window_exceeded", standin) as wire:
        response = await wire.acompletion(
            "anthropic",
            CLAUDE,
            QUESTION,
            anthropic.message(
                anthropic.text("Tokyo is"),
                model=CLAUDE_ID,
                seed="cwe",
                stop_reason="model_context_window_exceeded",
                input_tokens=199_990,
                output_tokens=3,
            ),
            max_tokens=1024,
        )

    # LiteLLM 1.106 turns the raw stop reason into a plain "stop": only hygiene tells.
    assert response.choices[0].finish_reason in ("stop", "length")
    overflow = response._hidden_params["litellm_hygiene"]["overflow"]
    assert overflow is not None
    assert overflow["kind"] == "stop_reason"
    assert isinstance(overflow["signal"], str)
    assert response.choices[0].message.litellm_hygiene["provider"] == "anthropic"
