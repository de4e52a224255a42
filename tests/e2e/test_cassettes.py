"""Recorded switches: Anthropic thinking + parallel tool calls, then every other family.

Turn 1 goes to Claude with extended thinking and two tools; the client appends the
answer as it came (``message.model_dump()``, stamp included) and both tool results; turn
2 goes to another family with the callback registered. The cassette pins the turn-2
wire body, which must be valid for its target, carry no Anthropic signature and no
stamp; both answers carry their stamp and hygiene's report.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from litellm_hygiene import HygieneCallback
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
from tests.support.scenario import ANSWER, CLAUDE, CLAUDE_STAMP, THINKING, TOOLS, claude_turn

pytestmark = pytest.mark.filterwarnings(f"ignore:{READONLY_WARNING}:UserWarning")

REPAIRS = {"tool_pairing"}
"""Pairing repairs: none is due when the client answered every call."""


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


def report_of(response: Any) -> dict[str, Any]:
    report = response._hidden_params["litellm_hygiene"]
    assert isinstance(report, dict)
    assert isinstance(report["target"], str)
    assert isinstance(report["changes"], dict)
    assert all(isinstance(k, str) and v > 0 for k, v in report["changes"].items())
    return report


@dataclass(frozen=True)
class Target:
    name: str
    provider: Provider
    model: str
    wire_api: WireApi
    stamp: dict[str, str]
    reply: Reply


TARGETS = [
    Target(
        "gemini_2_5",
        "gemini",
        "gemini/gemini-2.5-flash",
        "gemini",
        {"provider": "gemini", "api": "gemini", "model": "gemini-2.5-flash"},
        gemini.generate_content(
            gemini.text(ANSWER, seed="g25"), model_version="gemini-2.5-flash", seed="g25"
        ),
    ),
    Target(
        "gemini_3",
        "gemini",
        "gemini/gemini-3-pro-preview",
        "gemini",
        {"provider": "gemini", "api": "gemini", "model": "gemini-3-pro-preview"},
        gemini.generate_content(
            gemini.text(ANSWER, seed="g3"), model_version="gemini-3-pro-preview", seed="g3"
        ),
    ),
    Target(
        "openai_chat",
        "openai",
        "openai/gpt-4o",
        "openai-chat",
        {"provider": "openai", "api": "openai-chat", "model": "gpt-4o"},
        openai_chat.completion(ANSWER, model="gpt-4o-2024-08-06", seed="oc"),
    ),
    Target(
        "openai_responses",
        "responses",
        "openai/responses/gpt-5",
        "openai-responses",
        {"provider": "openai", "api": "openai-responses", "model": "gpt-5"},
        openai_responses.response(
            openai_responses.reasoning(["**Comparing**\n\n24 > 18."], seed="or"),
            openai_responses.message(ANSWER, seed="or"),
            model="gpt-5-2025-08-07",
            seed="or",
        ),
    ),
    Target(
        "mistral",
        "mistral",
        "mistral/mistral-large-latest",
        "mistral",
        {"provider": "mistral", "api": "mistral", "model": "mistral-large-latest"},
        mistral.completion(ANSWER, model="mistral-large-latest", seed="mi"),
    ),
    Target(
        "bedrock_converse",
        "bedrock",
        "bedrock/converse/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "bedrock-converse",
        {
            "provider": "bedrock",
            "api": "bedrock-converse",
            "model": "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        },
        bedrock.converse(bedrock.text(ANSWER)),
    ),
    Target(
        "deepseek",
        "deepseek",
        "deepseek/deepseek-chat",
        "openai-chat",
        {"provider": "deepseek", "api": "openai-compatible", "model": "deepseek-chat"},
        deepseek.completion(ANSWER, model="deepseek-chat", seed="ds"),
    ),
]


GEMINI_PLACEHOLDER = base64.b64encode(b"skip_thought_signature_validator").decode()
"""Google's documented thought signature for a call whose own signature is unknown."""


@pytest.mark.parametrize("target", TARGETS, ids=[t.name for t in TARGETS])
async def test_claude_thinking_and_tools_to(
    target: Target, standin: StandIn | None, hygiene: HygieneCallback
) -> None:
    with recording(f"anthropic_thinking_tools_to_{target.name}", standin) as wire:
        first, history = await claude_turn(wire, seed=f"to-{target.name}")
        second = await wire.acompletion(
            target.provider, target.model, history, target.reply, tools=TOOLS, max_tokens=512
        )

    sent, claude_answer = wire.requests[1].body, wire.response_bodies[0]
    signature = claude_answer["content"][0]["signature"]
    assert violations(target.wire_api, sent) == []
    assert not contains(sent, signature), "an Anthropic signature reached another provider"
    assert not contains(wire.requests[0].body, '"litellm_hygiene"')

    assert first.choices[0].message.litellm_hygiene == CLAUDE_STAMP
    assert second.choices[0].message.litellm_hygiene == target.stamp
    assert second.choices[0].message.content
    assert report_of(first)["changes"] == {}
    report = report_of(second)
    assert target.stamp["model"] in report["target"]
    assert report["changes"], "a cross-provider switch with thinking changed nothing"
    assert not REPAIRS & set(report["changes"]), "the client sent every result"
    assert report["overflow"] is None
    if target.wire_api == "mistral":
        calls = first.choices[0].message.tool_calls
        assert report["changes"].get("tool_call_id") == len(calls)
    if target.name == "gemini_3":
        # Claude's calls carry no Gemini signature: LiteLLM's converter gives the first
        # call of the turn Google's documented placeholder, and nothing else is signed.
        (model_turn,) = [c for c in sent["contents"] if c["role"] == "model"]
        calls = [p for p in model_turn["parts"] if "function_call" in p or "functionCall" in p]
        signed = [p.get("thoughtSignature") for p in calls]
        assert signed[0] == GEMINI_PLACEHOLDER
        assert all(value in (None, GEMINI_PLACEHOLDER) for value in signed)


async def test_claude_back_to_claude_keeps_its_own_thinking(
    standin: StandIn | None, hygiene: HygieneCallback
) -> None:
    """Same model: the signed thinking block goes back to Anthropic untouched."""
    with recording("anthropic_thinking_tools_same_model", standin) as wire:
        _, history = await claude_turn(wire, seed="same")
        second = await wire.acompletion(
            "anthropic",
            CLAUDE,
            history,
            anthropic.message(anthropic.text(ANSWER), model=CLAUDE_STAMP["model"], seed="same-2"),
            tools=TOOLS,
            max_tokens=2048,
            thinking=THINKING,
        )
    sent, claude_answer = wire.requests[1].body, wire.response_bodies[0]
    assert violations("anthropic-messages", sent) == []
    replayed = sent["messages"][1]["content"]
    assert replayed[0] == claude_answer["content"][0], "own thinking must replay byte for byte"
    assert [b["id"] for b in replayed if b["type"] == "tool_use"] == [
        b["id"] for b in claude_answer["content"] if b["type"] == "tool_use"
    ]
    assert set(report_of(second)["changes"]) <= {"hygiene_stamp"}
