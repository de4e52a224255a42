"""Recorded round trips of provider-minted tokens: Gemini 3 signatures, Responses ids.

Gemini 3 → Claude → Gemini 3: Claude must see no Gemini thought signature (LiteLLM packs
them into tool-call ids as ``call_<id>__thought__<signature>``), and Gemini must get its
own signatures back byte for byte when the conversation returns. OpenAI Responses →
Claude / Mistral: the reasoning item (``rs_`` id, ``encrypted_content``) and the
``fc_`` item id stay behind; the ``call_`` ids are kept or renamed as the target needs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from litellm_hygiene import HygieneCallback
from litellm_hygiene._standin import Reply, StandIn, anthropic, gemini, mistral, openai_responses
from litellm_hygiene._standin.rules import WireApi, contains, violations
from tests.support.cassettes import (
    READONLY_WARNING,
    Provider,
    deterministic_gemini_ids,
    offline,
    recording,
    registered,
    running_standin,
    warm_up_litellm,
)
from tests.support.scenario import CLAUDE, CLAUDE_ID, CLAUDE_STAMP, TOOLS

pytestmark = pytest.mark.filterwarnings(f"ignore:{READONLY_WARNING}:UserWarning")

GEMINI_3 = "gemini/gemini-3-pro-preview"
GPT_5 = "openai/responses/gpt-5"
QUESTION = [{"role": "user", "content": "What's the weather in Paris and in Tokyo?"}]
RESULTS = ["18°C, light rain", "24°C, sunny"]
ANSWER = "Paris: 18°C with light rain. Tokyo: 24°C and sunny."


@pytest.fixture(scope="module")
def standin() -> Iterator[StandIn | None]:
    warm_up_litellm()
    with running_standin() as server:
        yield server


@pytest.fixture(autouse=True)
def _replayable(monkeypatch: pytest.MonkeyPatch) -> None:
    offline(monkeypatch)
    deterministic_gemini_ids(monkeypatch)


@pytest.fixture
def hygiene() -> Iterator[HygieneCallback]:
    with registered(HygieneCallback()) as callback:
        yield callback


def with_results(messages: list[Any], response: Any) -> list[Any]:
    """The history after the client appended the answer and ran every tool call."""
    message = response.choices[0].message
    results = [
        {"role": "tool", "tool_call_id": call.id, "content": RESULTS[i % len(RESULTS)]}
        for i, call in enumerate(message.tool_calls or [])
    ]
    return [*messages, message.model_dump(), *results]


def stamp(response: Any) -> Any:
    return response.choices[0].message.litellm_hygiene


def gemini_calls(body: Any) -> list[dict[str, Any]]:
    """The function-call parts of every model turn of a Gemini request or response."""
    contents = body.get("contents") or [c["content"] for c in body.get("candidates", [])]
    return [
        part
        for content in contents
        if content.get("role") == "model"
        for part in content["parts"]
        if "functionCall" in part or "function_call" in part
    ]


async def test_gemini_3_signatures_survive_a_detour_through_claude(
    standin: StandIn | None, hygiene: HygieneCallback
) -> None:
    with recording("gemini_3_to_anthropic_and_back", standin) as wire:
        first = await wire.acompletion(
            "gemini",
            GEMINI_3,
            QUESTION,
            gemini.generate_content(
                gemini.function_call("get_weather", {"city": "Paris"}, seed="g3-paris"),
                gemini.function_call("get_weather", {"city": "Tokyo"}, seed=None),
                model_version="gemini-3-pro-preview",
                seed="g3-1",
            ),
            tools=TOOLS,
        )
        history = with_results(QUESTION, first)
        second = await wire.acompletion(
            "anthropic",
            CLAUDE,
            history,
            anthropic.message(anthropic.text(ANSWER), model=CLAUDE_ID, seed="g3-claude"),
            tools=TOOLS,
            max_tokens=1024,
        )
        history = [
            *history,
            second.choices[0].message.model_dump(),
            {"role": "user", "content": "Thanks. Which one is warmer?"},
        ]
        third = await wire.acompletion(
            "gemini",
            GEMINI_3,
            history,
            gemini.generate_content(
                gemini.text("Tokyo is warmer.", seed="g3-3"),
                model_version="gemini-3-pro-preview",
                seed="g3-3",
            ),
            tools=TOOLS,
        )

    gemini_answer = wire.response_bodies[0]
    minted = gemini_calls(gemini_answer)[0]["thoughtSignature"]
    to_claude, back_to_gemini = wire.requests[1].body, wire.requests[2].body
    assert violations("anthropic-messages", to_claude) == []
    assert not contains(to_claude, minted), "a Gemini signature reached Anthropic"
    assert not contains(to_claude, "__thought__")

    assert violations("gemini", back_to_gemini) == []
    replayed = gemini_calls(back_to_gemini)
    assert [p.get("thoughtSignature") for p in replayed] == [
        p.get("thoughtSignature") for p in gemini_calls(gemini_answer)
    ], "Gemini must get its own signatures back byte for byte, on the same parts"
    assert replayed[0]["thoughtSignature"] == minted

    assert stamp(first) == {"provider": "gemini", "api": "gemini", "model": GEMINI_3[7:]}
    assert stamp(second) == CLAUDE_STAMP
    assert stamp(third) == stamp(first)
    assert "tool_pairing" not in second._hidden_params["litellm_hygiene"]["changes"]
    assert third._hidden_params["litellm_hygiene"]["overflow"] is None


RESPONSES_TARGETS: list[tuple[str, Provider, str, WireApi, Reply]] = [
    (
        "anthropic",
        "anthropic",
        CLAUDE,
        "anthropic-messages",
        anthropic.message(anthropic.text(ANSWER), model=CLAUDE_ID, seed="resp-claude"),
    ),
    (
        "mistral",
        "mistral",
        "mistral/mistral-large-latest",
        "mistral",
        mistral.completion(ANSWER, model="mistral-large-latest", seed="resp-mistral"),
    ),
]


@pytest.mark.parametrize(
    ("name", "provider", "model", "wire_api", "reply"),
    RESPONSES_TARGETS,
    ids=[t[0] for t in RESPONSES_TARGETS],
)
async def test_responses_reasoning_and_ids_to(
    name: str,
    provider: Provider,
    model: str,
    wire_api: WireApi,
    reply: Reply,
    standin: StandIn | None,
    hygiene: HygieneCallback,
) -> None:
    reasoning = openai_responses.reasoning(
        ["**Planning**\n\nI need the weather in both cities; call the tool twice."],
        seed=f"resp-{name}",
    )
    calls = [
        openai_responses.function_call("get_weather", {"city": city}, seed=f"resp-{name}-{city}")
        for city in ("Paris", "Tokyo")
    ]
    with recording(f"openai_responses_to_{name}", standin) as wire:
        first = await wire.acompletion(
            "responses",
            GPT_5,
            QUESTION,
            openai_responses.response(reasoning, *calls, model="gpt-5-2025-08-07", seed=name),
            tools=TOOLS,
            reasoning_effort="medium",
        )
        second = await wire.acompletion(
            provider, model, with_results(QUESTION, first), reply, tools=TOOLS, max_tokens=1024
        )

    output = wire.response_bodies[0]["output"]
    minted = [
        token
        for item in output
        if item["type"] in ("reasoning", "function_call")
        for token in (item["id"], item.get("encrypted_content"))
        if token
    ]
    call_ids = [item["call_id"] for item in output if item["type"] == "function_call"]
    sent = wire.requests[1].body
    assert violations(wire_api, sent) == []
    assert minted
    for token in minted:
        assert not contains(sent, token), f"{token[:12]}... reached {name}"
    assert stamp(first) == {"provider": "openai", "api": "openai-responses", "model": "gpt-5"}
    assert stamp(second)["provider"] == provider
    changes = second._hidden_params["litellm_hygiene"]["changes"]
    if wire_api == "mistral":
        assert changes.get("tool_call_id") == len(call_ids)
    else:
        sent_ids = [
            block["id"]
            for message in sent["messages"]
            if isinstance(message["content"], list)
            for block in message["content"]
            if block["type"] == "tool_use"
        ]
        assert sent_ids == call_ids, "Anthropic accepts OpenAI's call_ ids as they are"
