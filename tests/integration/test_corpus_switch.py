"""Real traffic switched between models.

Every assistant turn LiteLLM parsed from the recorded corpus is put in a transcript
(user, the turn stamped with its provenance, its tool results, a user follow-up) and
sent to every target family. The result must be well-formed for the target; sent back
to its own model, its signatures must be replayed unchanged.
"""

from __future__ import annotations

from typing import Any

import pytest

from litellm_hygiene import (
    STAMP_KEY,
    assistant_from_response,
    policy_for,
    resolve_target,
    sanitize_messages,
    validate_for_target,
)
from litellm_hygiene._rules.tool_call_id import id_is_valid
from litellm_hygiene._rules.turn_order import BRIDGE_TEXT
from litellm_hygiene._view import wire_plan
from litellm_hygiene._wire._ids import split_id
from tests.rules.test_rules_properties import TARGETS
from tests.support.corpus import CorpusResponse, litellm_responses, require_corpus


def _responses() -> list[CorpusResponse]:
    try:
        require_corpus()
    except pytest.skip.Exception:
        return []
    return [
        r
        for r in litellm_responses()
        if r.message.get("tool_calls")
        or r.features
        & {
            "thinking",
            "signature",
            "redacted_thinking",
            "reasoning_items",
            "thought_signature",
            "reasoning_content",
        }
    ]


RESPONSES = _responses()
IDS = [r.label.rsplit("/", 1)[-1] for r in RESPONSES]


@pytest.fixture(autouse=True)
def _corpus() -> None:
    require_corpus()


def _transcript(recorded: CorpusResponse) -> list[dict[str, Any]]:
    api = "openai-responses" if recorded.upstream == "openai-responses" else None
    neutral = assistant_from_response(recorded.response, api=api)  # type: ignore[arg-type]
    turn = dict(recorded.message)
    turn[STAMP_KEY] = {"provider": neutral.provider, "api": neutral.api, "model": neutral.model}
    results = [
        {"role": "tool", "tool_call_id": call["id"], "content": "42"}
        for call in turn.get("tool_calls") or []
    ]
    return [
        {"role": "user", "content": "question"},
        turn,
        *results,
        {"role": "user", "content": "thanks"},
    ]


@pytest.mark.parametrize("model", TARGETS)
@pytest.mark.parametrize("recorded", RESPONSES, ids=IDS)
def test_switched_turn_is_well_formed_for_every_target(
    recorded: CorpusResponse, model: str
) -> None:
    messages = _transcript(recorded)
    out = sanitize_messages(messages, model).messages
    assert_pairing(out)
    target = resolve_target(model)
    if wire_plan(target).sends_message_keys:  # elsewhere LiteLLM leaves it behind
        assert all(STAMP_KEY not in m for m in out)
    policy = policy_for(target)
    assert validate_for_target(out, target, policy) == []
    # Mistral gets a short assistant turn between the results and the next user turn.
    (turn,) = [m for m in out if m["role"] == "assistant" and m.get("content") != BRIDGE_TEXT]
    same = target.is_same_model(recorded.provider, target.api, recorded.response.model)
    if not same:
        for call in turn.get("tool_calls") or []:
            assert id_is_valid(split_id(call["id"])[0], policy.tool_ids), call["id"]
        assert not turn.get("thinking_blocks")
        assert "__thought__" not in str(turn.get("tool_calls"))
    for field in policy.strip_fields:
        assert field not in turn


@pytest.mark.parametrize("recorded", RESPONSES, ids=IDS)
def test_switching_back_replays_signatures_unchanged(recorded: CorpusResponse) -> None:
    messages = _transcript(recorded)
    original = recorded.litellm_model
    mid = sanitize_messages(messages, "mistral/mistral-large-latest").messages
    assert mid  # the stored history itself is what goes back, not the switched copy
    back = sanitize_messages(messages, original).messages
    (turn,) = [m for m in back if m["role"] == "assistant" and m.get("content") != BRIDGE_TEXT]
    source = recorded.message
    assert turn.get("thinking_blocks") == source.get("thinking_blocks")
    assert turn.get("reasoning_items") == source.get("reasoning_items")
    # Empty ids (Gemini's OpenAI-compatible endpoint) get valid ones even same-model.
    sent = [c["id"] for c in turn.get("tool_calls") or []]
    recorded_ids = [c["id"] for c in source.get("tool_calls") or []]
    assert [s for s, r in zip(sent, recorded_ids, strict=True) if r] == [
        r for r in recorded_ids if r
    ]
    assert [c.get("provider_specific_fields") for c in turn.get("tool_calls") or []] == [
        c.get("provider_specific_fields") for c in source.get("tool_calls") or []
    ]


def _key(call: dict[str, Any]) -> str:
    return split_id(call["id"])[0] if isinstance(call.get("id"), str) else ""


def _expected(message: dict[str, Any]) -> list[str]:
    keys = [_key(c) for c in message.get("tool_calls") or []]
    if isinstance(message.get("function_call"), dict):
        keys.append("function:" + message["function_call"]["name"])
    return keys


def _answer_key(message: dict[str, Any]) -> str:
    if message["role"] == "function" and not message.get("tool_call_id"):
        return "function:" + str(message["name"])
    return split_id(str(message["tool_call_id"]))[0]


def assert_pairing(messages: list[dict[str, Any]]) -> None:
    """Every call has exactly one result before the next turn; no result without call."""
    position = 0
    while position < len(messages):
        message = messages[position]
        position += 1
        if message["role"] in ("tool", "function"):
            raise AssertionError(f"result without call at {position - 1}")
        if message["role"] != "assistant":
            continue
        expected = _expected(message)
        answers = []
        while position < len(messages) and messages[position]["role"] in ("tool", "function"):
            answers.append(_answer_key(messages[position]))
            position += 1
        assert answers == expected, (answers, expected)
