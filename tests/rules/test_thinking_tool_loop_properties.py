"""``thinking_tool_loop`` against LiteLLM's own Anthropic conversion, on generated loops.

Each example is a tool loop in progress whose last turn varies in everything LiteLLM's
converter looks at (who wrote it, its ``thinking_blocks``, thinking parts in its content,
text before it in a message of its own, an empty message after the results) and a
request that asks to think, or not. The body is built by LiteLLM's ``AnthropicConfig``
(no HTTP) and judged by the stand-in's rule. Properties: what hygiene sends is never
refused for its thinking; hygiene drops thinking only where keeping it would be refused;
its output, sent again with the parameters it gave, changes nothing.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from litellm.llms.anthropic.chat.transformation import AnthropicConfig

from litellm_hygiene import STAMP_KEY, sanitize_messages
from litellm_hygiene._standin.rules import problems

CLAUDE = "anthropic/claude-sonnet-4-5"
THINKING = {"type": "enabled", "budget_tokens": 2048}
SIGNATURE = "EqQBCkgIARABGAIiQLTj6vLNnKw7Lh0Jf2Q6CXQc0Hn1s8B8p6m0eSCe4H9dXw=="

SIGNED = {"type": "thinking", "thinking": "Plan.", "signature": SIGNATURE}
UNSIGNED = {"type": "thinking", "thinking": "Plan.", "signature": ""}
REDACTED = {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"}
TEXT = {"type": "text", "text": "Checking."}

STAMPS: dict[str, dict[str, str] | None] = {
    "this claude": {"provider": "anthropic", "api": "anthropic-messages",
                    "model": "claude-sonnet-4-5"},
    "another claude": {"provider": "anthropic", "api": "anthropic-messages",
                       "model": "claude-opus-4-1"},
    "gpt": {"provider": "openai", "api": "openai-chat", "model": "gpt-4o"},
    "unknown": None,
}  # fmt: skip

_thinking_blocks = st.sampled_from(
    [None, [], [SIGNED], [UNSIGNED], [REDACTED], [UNSIGNED, SIGNED], [SIGNED, REDACTED]]
)
_content = st.sampled_from(
    [None, "", "Checking.", [TEXT], [SIGNED, TEXT], [REDACTED, TEXT], [UNSIGNED], [TEXT, SIGNED]]
)


@st.composite
def loops(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A question, maybe a text turn, the last turn's calls, their results, maybe more."""
    producer = draw(st.sampled_from(sorted(STAMPS)))
    call_id = "toolu_01A09q90qw90lq917835lq9" if "claude" in producer else "call_Qp7rT2xLm9"
    turn: dict[str, Any] = {
        "role": "assistant",
        "content": draw(_content),
        "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": "f", "arguments": "{}"}}
        ],
    }
    blocks = draw(_thinking_blocks)
    if blocks is not None:
        turn["thinking_blocks"] = blocks
    if draw(st.booleans()):
        turn["reasoning_content"] = "Plan."
    stamp = STAMPS[producer]
    if stamp is not None:
        turn[STAMP_KEY] = stamp
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Go."}]
    before = draw(st.sampled_from([None, "Let me check.", ""]))
    if before is not None:
        messages.append({"role": "assistant", "content": before})
    messages += [turn, {"role": "tool", "tool_call_id": call_id, "content": "42"}]
    after = draw(st.sampled_from([None, "user", "empty assistant"]))
    if after == "user":
        messages.append({"role": "user", "content": "And then?"})
    elif after == "empty assistant":
        messages.append({"role": "assistant", "content": ""})
    return messages


def _refused_for_thinking(messages: list[Any], thinking: bool) -> bool:
    """Whether Anthropic refuses LiteLLM's body of ``messages`` for its thinking."""
    optional: dict[str, Any] = {"max_tokens": 4096}
    if thinking:
        optional["thinking"] = THINKING
    sendable: list[Any] = [{k: v for k, v in m.items() if k != STAMP_KEY} for m in messages]
    body = AnthropicConfig().transform_request(
        model="claude-sonnet-4-5",
        messages=sendable,
        optional_params=optional,
        litellm_params={},
        headers={},
    )
    return any(p.kind == "thinking_first" for p in problems("anthropic-messages", body))


def _thinking_in_a_list(messages: list[dict[str, Any]]) -> bool:
    """A turn holds thinking parts in its content list, where LiteLLM's releases differ.

    1.106 then sends none of the turn's ``thinking_blocks`` and no redacted or unsigned
    part; 1.109 adds the blocks the list lacks and sends redacted parts. The rule follows
    1.106 (``_openai/_leading.py``): it drops thinking where 1.106 would be refused, so
    what it sends is accepted by both, and on 1.109 such a drop is one it could spare.
    """
    return any(
        isinstance(part, dict) and part.get("type") in ("thinking", "redacted_thinking")
        for message in messages
        if isinstance(message.get("content"), list)
        for part in message["content"]
    )


_params = st.sampled_from(
    [{"thinking": THINKING}, {"reasoning_effort": "low"}, {"thinking": {"type": "disabled"}}, {}]
)


@settings(max_examples=300, deadline=None)
@given(loops(), _params)
def test_hygiene_keeps_thinking_exactly_where_claude_accepts_it(
    messages: list[dict[str, Any]], params: dict[str, Any]
) -> None:
    result = sanitize_messages(messages, CLAUDE, params=params)
    asked = params in ({"thinking": THINKING}, {"reasoning_effort": "low"})
    kept = asked and not result.dropped_params
    assert not _refused_for_thinking(result.messages, kept), "what is sent is accepted"
    if result.dropped_params and not _thinking_in_a_list(result.messages):
        assert _refused_for_thinking(result.messages, True), "dropped only where needed"
    again = sanitize_messages(result.messages, CLAUDE, params=result.params)
    assert not again.report.changed and again.params == result.params


def test_the_property_sees_both_outcomes() -> None:
    """The generator reaches loops Claude accepts with thinking and loops it refuses."""
    gpt: list[dict[str, Any]] = [
        {"role": "user", "content": "Go."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "42"},
    ]  # fmt: skip
    assert _refused_for_thinking(gpt, True)
    own = [gpt[0], {**gpt[1], "thinking_blocks": [SIGNED]}, gpt[2]]
    assert not _refused_for_thinking(own, True)
