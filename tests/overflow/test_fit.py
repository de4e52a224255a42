"""fit_to_context: what it keeps, what it reports, when it refuses, and its cost."""

from __future__ import annotations

import copy
from typing import Any

import litellm
import pytest
from litellm.exceptions import ContextWindowExceededError

from litellm_hygiene import (
    ConfigurationError,
    fit_to_context,
    predict_overflow,
    sanitize_messages,
    validate_messages,
)
from litellm_hygiene._overflow._predict import _local_tokenizer
from litellm_hygiene._trim._fit import COUNTER_OPTIONS, DEFAULT_MARKER
from litellm_hygiene._trim._thinking import THINKING_OMITTED

CLAUDE = "anthropic/claude-sonnet-4-5"
SIGNATURE = "RXVnQ2tZSUJoQUNHMmJ3VWVaTHNpZ25hdHVyZQ=="
STAMP = {"provider": "anthropic", "api": "anthropic-messages", "model": "claude-sonnet-4-5"}
FAMILIES = [
    "anthropic/claude-sonnet-4-5",
    "bedrock/converse/us.anthropic.claude-3-7-sonnet-20250219-v1:0",
    "gemini/gemini-2.5-pro",
    "vertex_ai/gemini-3-pro-preview",
    "gpt-4o",
    "openai/responses/gpt-5",
    "mistral/mistral-large-latest",
    "openrouter/mistralai/mistral-large",
    "deepseek/deepseek-reasoner",
    "moonshot/kimi-k2-thinking",
]


def count(model: str, messages: list[Any], tools: list[Any] | None = None) -> int:
    return int(
        litellm.token_counter(
            model=model,
            messages=messages,
            tools=tools,
            custom_tokenizer=_local_tokenizer(model),
            **COUNTER_OPTIONS,
        )
    )


def exchange(n: int, calls: int = 2, thinking: bool = True) -> list[dict[str, Any]]:
    ids = [f"toolu_{n:04d}{k}" for k in range(calls)]
    turn: dict[str, Any] = {
        "role": "assistant",
        "content": f"Checking step {n}.",
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": "read", "arguments": '{"a": 1}'}}
            for i in ids
        ],
        "litellm_hygiene": dict(STAMP),
    }
    if thinking:
        turn["thinking_blocks"] = [
            {"type": "thinking", "thinking": f"Step {n}, think.", "signature": SIGNATURE}
        ]
    return [turn, *({"role": "tool", "tool_call_id": i, "content": "ok " * 30} for i in ids)]


def agent(rounds: int, per_round: int = 3) -> list[dict[str, Any]]:
    """A system prompt; rounds of a user message and tool exchanges; no final answer."""
    out: list[dict[str, Any]] = [{"role": "system", "content": "You are an agent. " * 10}]
    for r in range(rounds):
        out.append({"role": "user", "content": f"Task {r}: " + "please do it. " * 10})
        for e in range(per_round):
            out.extend(exchange(r * per_round + e))
    return out


def test_a_transcript_that_fits_is_returned_as_is() -> None:
    history = agent(2)
    fitted = fit_to_context(history, CLAUDE, context_window=100_000, marker=True)
    assert fitted.messages == history and fitted.messages is not history
    assert all(a is b for a, b in zip(fitted.messages, history, strict=True))
    assert not fitted.changed and fitted.removed == ()
    assert fitted.tokens == fitted.original_tokens == count(CLAUDE, history)
    assert fitted.tokens == predict_overflow(history, CLAUDE).estimated_tokens


def test_whole_rounds_then_whole_exchanges_are_dropped_oldest_first() -> None:
    history = agent(4)
    before = copy.deepcopy(history)
    latest_user = max(i for i, m in enumerate(history) if m["role"] == "user")
    minimal = count(CLAUDE, [history[0], history[latest_user]])
    total = count(CLAUDE, history)
    for window in range(minimal, total, 97):
        fitted = fit_to_context(history, CLAUDE, context_window=window)
        assert history == before
        assert fitted.tokens == count(CLAUDE, fitted.messages) <= window
        kept = [i for i in range(len(history)) if i not in fitted.removed]
        assert 0 in kept and latest_user in kept
        dropped_rounds = [i for i in fitted.removed if i < latest_user]
        assert dropped_rounds == list(range(1, len(dropped_rounds) + 1)), "oldest first"
        after = [i for i in fitted.removed if i > latest_user]
        assert after == list(range(latest_user + 1, latest_user + 1 + len(after)))
        if after:
            assert all(i < latest_user or i > max(after) for i in kept[1:] if i != latest_user)
        assert fitted.removed == tuple(sorted(fitted.removed))


def test_drops_no_more_than_needed() -> None:
    history = agent(4)
    window = count(CLAUDE, history) - 1
    fitted = fit_to_context(history, CLAUDE, context_window=window)
    assert fitted.removed == tuple(range(1, 1 + 1 + 3 * 3)), "exactly the oldest round"


def test_output_reserve_is_taken_from_the_window() -> None:
    history = agent(3)
    total = count(CLAUDE, history)
    assert not fit_to_context(history, CLAUDE, context_window=total).changed
    fitted = fit_to_context(history, CLAUDE, context_window=total, max_tokens=10)
    assert fitted.changed
    assert fitted.reserved_output == 10
    assert fitted.available_tokens == total - 10 >= fitted.tokens


def test_the_model_map_window_is_used_unless_overridden() -> None:
    history = agent(2)
    fitted = fit_to_context(history, CLAUDE)
    assert fitted.context_window == litellm.get_model_info(CLAUDE)["max_input_tokens"]
    small = fit_to_context(history, CLAUDE, model_info={"max_input_tokens": 400})
    assert small.context_window == 400 and small.changed


def test_tools_count_towards_the_prompt() -> None:
    history = agent(3)
    tools = [
        {
            "type": "function",
            "function": {
                "name": "read",
                "description": "Read a file. " * 40,
                "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}},
            },
        }
    ]
    window = count(CLAUDE, history)
    assert not fit_to_context(history, CLAUDE, context_window=window).changed
    fitted = fit_to_context(history, CLAUDE, context_window=window, tools=tools)
    assert fitted.changed
    assert fitted.tokens == count(CLAUDE, fitted.messages, tools) <= window


def test_a_marker_stands_for_what_was_dropped() -> None:
    history = agent(4)
    fitted = fit_to_context(history, CLAUDE, context_window=count(CLAUDE, history) - 1, marker=True)
    assert fitted.marker
    assert fitted.messages[0] is history[0]
    assert fitted.messages[1] == {"role": "system", "content": DEFAULT_MARKER}
    assert fitted.tokens == count(CLAUDE, fitted.messages)
    custom = fit_to_context(history, CLAUDE, context_window=fitted.tokens, marker="(trimmed)")
    assert custom.messages[1] == {"role": "system", "content": "(trimmed)"}


def test_kept_signed_thinking_after_the_cut_is_dropped() -> None:
    history = agent(3)
    history.append({"role": "assistant", "content": "Done."})
    fitted = fit_to_context(history, CLAUDE, context_window=count(CLAUDE, history) - 1)
    kept_turns = [m for m in fitted.messages if m["role"] == "assistant"]
    assert kept_turns and all("thinking_blocks" not in m for m in kept_turns)
    assert fitted.thinking_dropped == sum(1 for m in kept_turns if m.get("tool_calls"))
    assert not fitted.open_tool_loop, "the request ends on an answer, not in a tool loop"
    assert all("thinking_blocks" in m for m in history if m.get("tool_calls")), "input intact"


def test_a_tool_loop_in_progress_that_lost_its_thinking_is_flagged() -> None:
    history = agent(3)  # ends with the results of the last exchange
    fitted = fit_to_context(history, CLAUDE, context_window=count(CLAUDE, history) - 1)
    assert fitted.open_tool_loop
    untouched = fit_to_context(history, CLAUDE, context_window=count(CLAUDE, history))
    assert not untouched.open_tool_loop and untouched.thinking_dropped == 0


def test_a_turn_of_thinking_only_keeps_its_place_with_a_short_text() -> None:
    """Left out, two user turns would meet; left empty, Anthropic refuses it."""
    only_thinking = {
        "role": "assistant",
        "content": None,
        "thinking_blocks": [{"type": "thinking", "thinking": "hm", "signature": SIGNATURE}],
        "litellm_hygiene": dict(STAMP),
    }
    raw = [*agent(2), only_thinking, {"role": "user", "content": "Go on."}]
    history = sanitize_messages(raw, CLAUDE).messages
    assert history[-2]["thinking_blocks"] == only_thinking["thinking_blocks"], "same model"
    fitted = fit_to_context(history, CLAUDE, context_window=count(CLAUDE, history) - 1)
    # The stamp stays where LiteLLM leaves it behind (Claude: tests/shapes/test_wire_keys.py).
    assert fitted.messages[-2] == {
        "role": "assistant",
        "content": THINKING_OMITTED,
        "litellm_hygiene": STAMP,
    }
    assert fitted.tokens == count(CLAUDE, fitted.messages)
    assert validate_messages(fitted.messages, CLAUDE) == []


THOUGHT = {"type": "thinking", "thinking": "Let me weigh each option in turn. " * 8}
"""Thinking in a turn's content (a ``/v1/messages`` turn's chat form): LiteLLM's counter
reads its text, unlike ``thinking_blocks``."""


def test_thinking_in_a_kept_turns_content_is_not_counted_after_the_cut() -> None:
    answer = {"role": "assistant", "content": [THOUGHT, {"type": "text", "text": "Done."}]}
    history = [
        {"role": "user", "content": "Task one: " + "please do it. " * 10},
        {"role": "assistant", "content": "Done one."},
        {"role": "user", "content": "Task two."},
        answer,
    ]
    sent = [history[2], {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}]
    fitted = fit_to_context(history, CLAUDE, context_window=count(CLAUDE, sent))
    assert fitted.messages == sent, "the answer fits once its thinking is gone: it is kept"
    assert fitted.removed == (0, 1)
    assert fitted.tokens == count(CLAUDE, fitted.messages)


def test_a_transcript_that_fits_once_its_thinking_is_omitted_still_drops_a_unit() -> None:
    """Thinking is dropped only because a cut changed what precedes it: no cut, no drop."""
    history = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Go."},
        {"role": "assistant", "content": [THOUGHT]},
    ]
    omitted = [*history[:2], {"role": "assistant", "content": THINKING_OMITTED}]
    assert count(CLAUDE, omitted) < count(CLAUDE, history)
    fitted = fit_to_context(history, CLAUDE, context_window=count(CLAUDE, history) - 1)
    assert fitted.removed == (2,)
    assert fitted.messages == history[:2]
    assert fitted.tokens == count(CLAUDE, fitted.messages)


def test_nothing_to_drop_raises_even_if_the_thinking_omitted_would_fit() -> None:
    """No user message: the newest exchange is the anchor and there is no cut to make."""
    history = [
        {"role": "system", "content": "Be brief."},
        {"role": "assistant", "content": [THOUGHT]},
    ]
    total = count(CLAUDE, history)
    with pytest.raises(ContextWindowExceededError, match=f"needs {total} input tokens"):
        fit_to_context(history, CLAUDE, context_window=total - 1)


def test_even_the_minimal_transcript_too_long_raises_with_the_numbers() -> None:
    history = agent(2)
    history[-1] = {**history[-1]}  # a result; the latest user message is the anchor
    latest = {"role": "user", "content": "word " * 500}
    history.append(latest)
    minimal = count(CLAUDE, [history[0], latest])
    with pytest.raises(ContextWindowExceededError) as raised:
        fit_to_context(history, CLAUDE, context_window=minimal + 50, max_tokens=100)
    text = str(raised.value)
    assert f"needs {minimal} input tokens" in text
    assert f"has {minimal - 50} available (context window {minimal + 50}, 100 reserved" in text
    assert fit_to_context(history, CLAUDE, context_window=minimal).tokens == minimal


def test_unknown_window_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="context_window"):
        fit_to_context(agent(1), "openai/some-model-nobody-knows")
    with pytest.raises(ConfigurationError):
        fit_to_context(agent(1), CLAUDE, max_tokens=-1)


@pytest.mark.parametrize("model", FAMILIES)
def test_output_is_accepted_by_every_family(model: str) -> None:
    history = sanitize_messages(
        [*agent(5), {"role": "assistant", "content": "Done."}], model
    ).messages
    assert validate_messages(history, model) == []
    total = count(model, history)
    minimal = count(model, [m for m in history if m["role"] in ("system", "user")][:1])
    for window in range(minimal + 200, total, max(1, (total - minimal) // 7)):
        fitted = fit_to_context(history, model, context_window=window, marker=True)
        assert fitted.changed
        assert validate_messages(fitted.messages, model) == [], window


def test_each_message_is_counted_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Linear cost: the counter runs once per message, whatever is dropped."""
    history = agent(20)
    window = count(CLAUDE, history) // 3
    calls: list[int] = []
    real = litellm.token_counter

    def counting(**kwargs: Any) -> int:
        calls.append(len(kwargs.get("messages") or ()))
        return int(real(**kwargs))

    monkeypatch.setattr(litellm, "token_counter", counting)
    fit_to_context(history, CLAUDE, context_window=window, marker=True)
    assert all(n == 1 for n in calls)
    assert len(calls) == len(history) + 1  # each message, and the marker


def test_counting_never_fetches_a_remote_image(monkeypatch: pytest.MonkeyPatch) -> None:
    """LiteLLM's counter downloads a remote ``detail: high`` image to measure it, unless
    told not to."""
    import socket

    attempts: list[object] = []

    def record(*args: object, **kwargs: object) -> None:
        attempts.append(args)
        raise OSError("no network in tests")

    monkeypatch.setattr(socket.socket, "connect", record)
    monkeypatch.setattr(socket, "create_connection", record)
    monkeypatch.setattr(socket, "getaddrinfo", record)
    image = {
        "type": "image_url",
        "image_url": {"url": "https://example.com/cat.png", "detail": "high"},
    }
    history = [{"role": "user", "content": [{"type": "text", "text": "What is it?"}, image]}]
    assert predict_overflow(history, "gpt-4o").estimated_tokens is not None
    assert fit_to_context(history, "gpt-4o", context_window=10_000).tokens > 0
    assert attempts == []
