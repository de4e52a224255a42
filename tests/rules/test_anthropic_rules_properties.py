"""Properties of the rules on the Anthropic Messages shape (``sanitize_anthropic_messages``).

Over generated ``/v1/messages`` requests (``tests/support/anthropic_strategies.py``: Claude Code's
turns and odd ones), for every target LiteLLM sends that shape to as it is: the caller's
request is never mutated, the output is a fixed point, the stand-in's judge of the
provider finds nothing in it, and a history of Claude's own turns goes out untouched.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from litellm_hygiene import sanitize_anthropic_messages
from litellm_hygiene._standin.rules import problems
from tests.support.anthropic_strategies import anthropic_requests

SETTINGS = settings(max_examples=200, deadline=None)
TARGETS = st.sampled_from(
    [
        "anthropic/claude-sonnet-4-5",
        "anthropic/claude-opus-4-8",
        "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "deepseek/deepseek-chat",
    ]
)
PARAMS = st.sampled_from([None, {"thinking": {"type": "enabled", "budget_tokens": 2048}}])
SIGNATURE = "EqQBCkgIAxABGAIiQL0t1cJmUMqzNvJ0MPLKbFQyB7gqEpOPh0hY0y4xeA=="


@SETTINGS
@given(anthropic_requests(), TARGETS, PARAMS)
# Found by an unseeded run: thinking after a call is not the turn's opening, so Claude,
# asked to think, gets the open tool loop without thinking.
@example(
    (
        [
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "toolu_01A", "name": "Bash", "input": {}},
                    {"type": "thinking", "thinking": "hmm", "signature": SIGNATURE},
                ],
            }
        ],
        None,
    ),
    "anthropic/claude-sonnet-4-5",
    {"thinking": {"type": "enabled", "budget_tokens": 2048}},
)
def test_the_output_is_valid_a_fixed_point_and_the_input_untouched(
    request: tuple[list[dict[str, Any]], Any], model: str, params: dict[str, Any] | None
) -> None:
    messages, system = request
    before = copy.deepcopy((request, params))
    result = sanitize_anthropic_messages(messages, model, system=system, params=params)
    assert (request, params) == before
    again = sanitize_anthropic_messages(
        result.messages, model, system=result.system, params=result.params
    )
    assert again.report.changes == (), again.report.changes
    assert again.messages == result.messages and again.system == result.system
    body: dict[str, Any] = {"messages": result.messages}
    if "thinking" in result.params and model.startswith("anthropic/"):
        body["thinking"] = result.params["thinking"]
    assert problems("anthropic-messages", body, model.split("/")[-1]) == []


@st.composite
def claude_sessions(draw: Any) -> list[dict[str, Any]]:
    """Claude Code's own history: signed thinking, ``toolu_`` calls, each answered."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "start"}]
    for turn in range(draw(st.integers(1, 4))):
        calls = draw(st.integers(0, 2))
        content: list[dict[str, Any]] = [
            {"type": "thinking", "thinking": f"step {turn}", "signature": SIGNATURE}
        ]
        if draw(st.booleans()):
            content.append({"type": "redacted_thinking", "data": "EmwKAhgBEgy3va"})
        content.append({"type": "text", "text": f"doing {turn}"})
        ids = [f"toolu_01{turn}{n}" for n in range(calls)]
        content += [{"type": "tool_use", "id": i, "name": "Bash", "input": {}} for i in ids]
        messages.append({"role": "assistant", "content": content})
        if ids:
            results: list[dict[str, Any]] = [
                {"type": "tool_result", "tool_use_id": i, "content": "ok"} for i in ids
            ]
            if draw(st.booleans()):
                results.append({"type": "text", "text": "go on"})
            messages.append({"role": "user", "content": results})
        else:
            messages.append({"role": "user", "content": "next"})
    return messages


CLAUDES = st.sampled_from(
    [
        "anthropic/claude-sonnet-4-5",
        "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "vertex_ai/claude-sonnet-4-5",
    ]
)


@SETTINGS
@given(claude_sessions(), PARAMS, CLAUDES)
def test_claudes_own_session_goes_out_untouched(
    messages: list[dict[str, Any]], params: dict[str, Any] | None, model: str
) -> None:
    """Bedrock's Claude too: ``/v1/messages`` reaches it in Anthropic's own protocol."""
    system = [
        {"type": "text", "text": "You are Claude Code.", "cache_control": {"type": "ephemeral"}}
    ]
    result = sanitize_anthropic_messages(messages, model, system=system, params=params)
    assert result.report.changes == ()
    assert all(a is b for a, b in zip(result.messages, messages, strict=True))
    assert result.system is system
    assert result.params == (params or {})
