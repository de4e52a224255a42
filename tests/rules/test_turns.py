"""Turns: the order each target accepts, and turns merged or moved without losing a boundary.

Mistral rejects a user turn right after a tool result, a system message after the
conversation has started, an assistant turn first, and an assistant turn last (unless
it is a prefix), behind OpenRouter, Together and vLLM too; other targets keep their
order. A blank transcript never becomes an empty request. Each case is repaired,
reported, valid for the validator and a fixed point.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from litellm.llms.mistral.chat.transformation import MistralConfig

from litellm_hygiene import (
    STAMP_KEY,
    sanitize_messages,
    validate_messages,
)
from litellm_hygiene._rules.assistant_first import LEADING_USER_TEXT
from litellm_hygiene._rules.empty_content import EMPTY_TURN_TEXT
from litellm_hygiene._rules.turn_order import BRIDGE_TEXT
from tests.support.rule_cases import call as _call
from tests.support.rule_cases import checked as _checked
from tests.support.rule_cases import fixed as _fixed

MISTRALS = [
    "mistral/mistral-large-latest",
    "openrouter/mistralai/mistral-large",
    "together_ai/mistralai/Mixtral-8x7B-Instruct-v0.1",
]


@pytest.mark.parametrize("kept", [{"reasoning_items": []}, {"thinking_blocks": []}])
@pytest.mark.parametrize(
    "model", ["bedrock/converse/us.anthropic.claude-3-7-sonnet-20250219-v1:0", "gpt-4o"]
)
def test_a_turn_the_rules_would_drop_merged_into_the_next_leaves_its_response_keys(
    model: str, kept: dict[str, Any]
) -> None:
    """Found by the property tests: the output was not a fixed point.

    A turn of empty thinking and an empty response-only list (kept as it is by the
    decoder) follows its own model's turn with a call; merged, the rules ahead of the
    merge dropped the thinking but the merge took the first turn's keys as they were,
    and the next run removed the list.
    """
    messages = [
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "content": "",
            "thinking_blocks": [{"type": "thinking", "thinking": "", "signature": ""}],
            **kept,
        },
        {"role": "assistant", "content": None, "tool_calls": [_call("call_0000")]},
        {"role": "tool", "tool_call_id": "call_0000", "content": "r"},
    ]
    out = _checked(model, messages)
    merged = [m for m in out if m["role"] == "assistant"]
    assert len(merged) == 1 or model == "gpt-4o"
    assert all(kept.keys().isdisjoint(m) for m in merged)


@pytest.mark.parametrize("model", MISTRALS)
def test_an_assistant_turn_goes_between_results_and_the_next_user_turn(model: str) -> None:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": None, "tool_calls": [_call("abcDEF123")]},
        {"role": "tool", "tool_call_id": "abcDEF123", "content": "18C"},
        {"role": "user", "content": "thanks"},
    ]
    violations = validate_messages(messages, model)
    assert [(v.code, v.index) for v in violations] == [("turn_order", 3)]
    if model.startswith("mistral/"):
        assert violations[0].provider_error == "Unexpected role 'user' after role 'tool'"
    out, counts = _fixed(model, messages)
    assert [m["role"] for m in out] == ["user", "assistant", "tool", "assistant", "user"]
    assert out[3] == {"role": "assistant", "content": BRIDGE_TEXT}
    assert out[4] is messages[3]
    assert counts == {"turn_order": 1}


def test_each_bridge_is_a_message_of_its_own() -> None:
    """Every result followed by a user turn gets a bridge, each its own object."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "weather?"}]
    for n in range(3):
        call_id = f"abcDEF12{n}"
        messages += [
            {"role": "assistant", "content": None, "tool_calls": [_call(call_id)]},
            {"role": "tool", "tool_call_id": call_id, "content": "18C"},
            {"role": "user", "content": "and tomorrow?"},
        ]
    out, counts = _fixed("mistral/mistral-large-latest", messages)
    bridges = [m for m in out if m == {"role": "assistant", "content": BRIDGE_TEXT}]
    assert len(bridges) == 3 and counts == {"turn_order": 3}
    assert len({id(m) for m in bridges}) == 3


def test_an_interrupted_call_gets_its_result_and_then_the_bridge() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": None, "tool_calls": [_call("abcDEF123")]},
        {"role": "user", "content": "never mind"},
    ]
    out, counts = _fixed("mistral/mistral-large-latest", messages)
    assert [m["role"] for m in out] == ["user", "assistant", "tool", "assistant", "user"]
    assert counts == {"tool_pairing": 1, "turn_order": 1}


def test_late_system_messages_move_to_the_start_in_order() -> None:
    messages = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "system", "content": "now answer in French"},
        {"role": "user", "content": "and now?"},
        {"role": "developer", "content": "no emoji"},
    ]
    violations = validate_messages(messages, "mistral/mistral-large-latest")
    assert [v.provider_error for v in violations] == [
        "Unexpected role 'system' after role 'assistant'",
        "Unexpected role 'system' after role 'user'",
    ]
    out, counts = _fixed("mistral/mistral-large-latest", messages)
    assert out == [messages[0], messages[3], messages[5], messages[1], messages[2], messages[4]]
    assert counts == {"turn_order": 2}


def test_moving_a_system_message_lets_the_user_turns_around_it_merge() -> None:
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "there"},
    ]
    out, counts = _fixed("mistral/mistral-large-latest", messages)
    assert [m["role"] for m in out] == ["system", "user"]
    assert counts == {"turn_order": 1, "consecutive_turns": 1}


def test_a_last_assistant_turn_becomes_a_prefix_to_continue() -> None:
    messages = [
        {"role": "user", "content": "write a haiku"},
        {"role": "assistant", "content": "Autumn moonlight"},
    ]
    (violation,) = validate_messages(messages, "mistral/mistral-large-latest")
    assert violation.provider_error is not None
    assert violation.provider_error.startswith("Expected last role User or Tool")
    out, counts = _fixed("mistral/mistral-large-latest", messages)
    assert out[1] == {"role": "assistant", "content": "Autumn moonlight", "prefix": True}
    assert counts == {"turn_order": 1}
    prefixed = [messages[0], {**messages[1], "prefix": True}]
    assert not sanitize_messages(prefixed, "mistral/mistral-large-latest").report.changed


def test_an_assistant_turn_first_gets_a_user_turn_before_it() -> None:
    messages = [
        {"role": "system", "content": "s"},
        {"role": "assistant", "content": "How can I help?"},
        {"role": "user", "content": "hi"},
    ]
    out, counts = _fixed("mistral/mistral-large-latest", messages)
    assert out[1] == {"role": "user", "content": LEADING_USER_TEXT}
    assert counts == {"assistant_first": 1}


@pytest.mark.parametrize(
    "model", ["openai/gpt-4o", "anthropic/claude-sonnet-4-5", "deepseek/deepseek-chat"]
)
def test_other_targets_keep_their_order(model: str) -> None:
    messages = [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": None, "tool_calls": [_call("call_1")]},
        {"role": "tool", "tool_call_id": "call_1", "content": "18C"},
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "thanks"},
        {"role": "assistant", "content": "ok"},
    ]
    out = sanitize_messages(messages, model).messages
    assert [m["role"] for m in out][1:] == ["assistant", "tool", "system", "user", "assistant"]


def test_a_whitespace_only_transcript_keeps_the_users_turn() -> None:
    messages = [{"role": "user", "content": "   \n  \t  "}, {"role": "assistant", "content": "  "}]
    out, counts = _fixed("anthropic/claude-sonnet-4-5", messages)
    assert out == [{"role": "user", "content": EMPTY_TURN_TEXT}]
    assert counts == {"empty_content": 4}


def test_a_blank_last_user_turn_is_kept_so_the_request_does_not_end_on_the_assistant() -> None:
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "user", "content": " "},
        {"role": "user", "content": ""},
    ]
    out, _ = _fixed("anthropic/claude-sonnet-4-5", messages)
    assert out[-1] == {"role": "user", "content": EMPTY_TURN_TEXT}
    assert [m["role"] for m in out] == ["user", "assistant", "user"]


def test_thinking_part_does_not_run_into_the_answer_when_litellm_joins_parts() -> None:
    claude = {"provider": "anthropic", "api": "anthropic-messages", "model": "claude-sonnet-4-5"}
    turn = {
        "role": "assistant",
        "content": [{"type": "text", "text": "Let me check."}],
        "thinking_blocks": [{"type": "thinking", "thinking": "in parallel.", "signature": "c2ln"}],
        "tool_calls": [_call("call_1")],
        STAMP_KEY: claude,
    }
    messages = [
        {"role": "user", "content": "q"},
        turn,
        {"role": "tool", "tool_call_id": "call_1", "content": "r"},
    ]
    out = sanitize_messages(messages, "mistral/mistral-large-latest").messages
    joined = MistralConfig()._transform_messages(copy.deepcopy(out), "mistral-large-latest")
    assert joined[1]["content"] == "in parallel.\n\nLet me check."


def test_merged_reasoning_is_a_blank_line_apart() -> None:
    gemini = {"provider": "gemini", "api": "gemini", "model": "gemini-2.5-pro"}
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "a", "reasoning_content": "r0", STAMP_KEY: gemini},
        {"role": "assistant", "content": "b", "reasoning_content": "line", STAMP_KEY: gemini},
        {"role": "user", "content": "n"},
    ]
    out, counts = _fixed("gemini/gemini-2.5-pro", messages)
    assert counts == {"consecutive_turns": 1}
    assert out[1]["reasoning_content"] == "r0\n\nline"


@pytest.mark.parametrize("model", [*MISTRALS, "anthropic/claude-sonnet-4-5"])
def test_whitespace_only_parts_are_left_out_of_a_merge(model: str) -> None:
    messages: list[dict[str, Any]] = [
        {
            "role": "user",
            "content": [{"type": "text", "text": "Look:"}, {"type": "text", "text": " \n "}],
        },
        {
            "role": "user",
            "content": [{"type": "text", "text": "\t"}, {"type": "text", "text": "here"}],
        },
    ]
    result = sanitize_messages(messages, model)
    (merged,) = [m for m in result.messages if m["role"] == "user"]
    assert merged["content"] == [
        {"type": "text", "text": "Look:"},
        {"type": "text", "text": "here"},
    ]
    assert validate_messages(result.messages, model) == []
    assert not sanitize_messages(result.messages, model).report.changed


def test_a_merge_keeps_a_turn_of_whitespace_only_when_nothing_else_is_left() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "Look:"},
        {"role": "user", "content": "   "},
        {"role": "user", "content": "here"},
    ]
    out, counts = _fixed("mistral/mistral-large-latest", messages)
    assert counts == {"consecutive_turns": 2}
    assert out == [{"role": "user", "content": "Look:\n\nhere"}]
