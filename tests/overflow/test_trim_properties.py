"""Properties of trimming: for any transcript, any limit, every target family.

Inside hygiene the rules run first and trimming after, so trimming must leave nothing
for them to find: for a transcript the rules accept for a target (the sanitized one),
what :func:`fit_to_context` keeps is accepted too, is the input's subsequence (plus the
marker; kept turns may lose their thinking), keeps every exchange whole, and fits the
budget whenever the minimal transcript fits (else it raises before anything is sent).
"""

from __future__ import annotations

import copy
from typing import Any

import litellm
import pytest
from hypothesis import given
from hypothesis import strategies as st
from litellm.exceptions import ContextWindowExceededError

from litellm_hygiene import (
    FitResult,
    SlidingWindow,
    fit_to_context,
    resolve_target,
    sanitize_messages,
    validate_for_target,
)
from litellm_hygiene._overflow._predict import _local_tokenizer
from litellm_hygiene._pipeline import context_for
from litellm_hygiene._trim._fit import COUNTER_OPTIONS, DEFAULT_MARKER
from litellm_hygiene._trim._structure import units_of
from litellm_hygiene._trim._thinking import THINKING_OMITTED
from tests.rules.test_rules_properties import SETTINGS, TARGETS
from tests.support.strategies import agent_transcripts, transcripts

THINKING = "thinking_blocks"
THINKING_PARTS = ("thinking", "redacted_thinking")


def count(model: str, messages: list[Any]) -> int:
    """LiteLLM's count of the whole request, as fit_to_context asks for it."""
    tokenizer = _local_tokenizer(model)
    return int(
        litellm.token_counter(
            model=model, messages=messages, custom_tokenizer=tokenizer, **COUNTER_OPTIONS
        )
    )


def _system() -> st.SearchStrategy[list[dict[str, Any]]]:
    return st.lists(
        st.builds(lambda t: {"role": "system", "content": t}, st.sampled_from(["Be brief.", "x"])),
        max_size=1,
    )


inputs = st.builds(lambda s, m: s + m, _system(), st.one_of(agent_transcripts, transcripts))


def _valid_for(model: str, messages: list[dict[str, Any]]) -> list[Any]:
    return list(sanitize_messages(messages, model).messages)


def _violations(model: str, messages: list[Any]) -> list[Any]:
    target = resolve_target(model)
    return validate_for_target(messages, target, context_for(target).policy)


def _same_but_thinking(a: Any, b: Any) -> bool:
    """``b`` is ``a``, or ``a`` without its thinking (kept after a cut).

    A turn's thinking is its ``thinking_blocks``, and also any ``thinking`` or
    ``redacted_thinking`` parts of its content: that is where a ``/v1/messages`` turn's
    thinking after its first other block sits in its chat form; the rules leave such
    parts in place, and a cut drops them like ``thinking_blocks`` (``FOUND`` below). A
    turn left with no text and no calls keeps its place with :data:`THINKING_OMITTED`
    (two user turns would meet without it).
    """
    if a is b:
        return True
    content = a.get("content")
    parts = content if isinstance(content, list) else []
    rest = [p for p in parts if p.get("type") not in THINKING_PARTS]
    if a.get("role") != "assistant" or (THINKING not in a and len(rest) == len(parts)):
        return False
    bare = {k: v for k, v in a.items() if k != THINKING}
    if isinstance(content, list):
        bare["content"] = rest
    if bare.get("content") or bare.get("tool_calls") or bare.get("function_call"):
        return bool(b == bare)
    return bool(b == {**bare, "content": THINKING_OMITTED})


def _is_subsequence_with_marker(out: list[Any], source: list[Any], marker: bool) -> None:
    position = 0
    markers = 0
    for message in out:
        found = next(
            (i for i in range(position, len(source)) if _same_but_thinking(source[i], message)),
            None,
        )
        if found is None:
            assert marker and message["role"] == "system", f"not from the input: {message}"
            markers += 1
        else:
            position = found + 1
    assert markers <= 1


def _exchanges_whole(source: list[Any], kept: set[int]) -> None:
    """Every unit is kept whole or dropped whole."""
    for unit in units_of(source):
        present = [i in kept for i in unit.indices]
        assert all(present) or not any(present), unit


def _kept_as_reported(source: list[Any], fitted: FitResult) -> set[int]:
    """The kept positions ``removed`` implies, checked against the messages sent."""
    removed = set(fitted.removed)
    kept = [i for i in range(len(source)) if i not in removed]
    body = list(fitted.messages)
    if fitted.marker:
        body.remove({"role": "system", "content": DEFAULT_MARKER})
    assert len(body) == len(kept)
    for index, message in zip(kept, body, strict=True):
        assert _same_but_thinking(source[index], message), (index, message)
    return set(kept)


@pytest.mark.parametrize("model", TARGETS)
@SETTINGS
@given(messages=inputs, data=st.data())
def test_fit_is_valid_subsequence_and_fits(
    model: str, messages: list[dict[str, Any]], data: st.DataObject
) -> None:
    source = _valid_for(model, messages)
    assert _violations(model, source) == []
    before = copy.deepcopy(source)
    total = count(model, source)
    window = data.draw(st.integers(1, total + 20), label="context_window")
    max_tokens = data.draw(st.none() | st.integers(0, 10), label="max_tokens")
    marker = data.draw(st.booleans(), label="marker")
    raised: ContextWindowExceededError | None = None
    try:
        fitted = fit_to_context(
            source, model, context_window=window, max_tokens=max_tokens, marker=marker
        )
    except ContextWindowExceededError as err:
        raised = err
    if raised is not None:
        assert f"context window {window}" in str(raised)
        _check_minimal_does_not_fit(model, source, window - (max_tokens or 0), marker)
    else:
        _check_fitted(model, source, before, fitted, window - (max_tokens or 0), marker)


BEDROCK = "bedrock/converse/us.anthropic.claude-3-7-sonnet-20250219-v1:0"
_REASONING = {"type": "reasoning", "id": "", "encrypted_content": ""}
FOUND = [
    pytest.param(
        [
            {"role": "system", "content": ""},
            {"role": "system", "content": ""},
            {"role": "user", "content": ""},
            {
                "role": "assistant",
                "content": None,
                "reasoning_items": [
                    {
                        **_REASONING,
                        "summary": [
                            {"type": "summary_text", "text": ""},
                            {"type": "summary_text", "text": "0"},
                        ],
                    }
                ],
            },
            {"role": "user", "content": ""},
            {"role": "system", "content": "000000000"},
            {
                "role": "assistant",
                "content": [{"type": "thinking", "thinking": "0"}, {"type": "text", "text": "0"}],
            },
        ],
        35,
        id="kept-turn-with-thinking-and-text-in-its-content",
    ),
    pytest.param(
        [
            {"role": "system", "content": ""},
            {"role": "system", "content": ""},
            {"role": "user", "content": ""},
            {
                "role": "assistant",
                "content": None,
                "reasoning_items": [
                    {
                        **_REASONING,
                        "summary": [
                            {"type": "summary_text", "text": ""},
                            {
                                "type": "summary_text",
                                "text": "\xa8\xc9\xa3\x7f.\U0001eb94\xa8\t\x0b",
                            },
                        ],
                    }
                ],
                "name": "",
            },
            {"role": "user", "content": "\U000edf26"},
            {"role": "system", "content": "\x96\xd4\xb2\xa5&\x8e\xd7\xfa!,n"},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "\xd3;$x"}]},
        ],
        60,
        id="kept-turn-of-thinking-only-in-its-content",
    ),
    pytest.param(
        [
            {"role": "system", "content": ""},
            {"role": "system", "content": [{"type": "text", "text": "0"}]},
            {"role": "user", "content": ""},
            {"role": "system", "content": "0:0:0:0\x81\x81\xd8\u0802\U00010000"},
            {"role": "user", "content": ""},
            {"role": "system", "content": "0:0:0:0\x81\x81\xd2"},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "0:0\x81"}]},
        ],
        64,
        id="fits-only-once-its-thinking-is-omitted",
    ),
]
"""Transcripts the property above found (Bedrock, no ``max_tokens``, no marker), each
with its window: thinking that sits in a turn's content (``{"type": "thinking"}`` parts,
which LiteLLM's counter reads) was counted as if it stayed after the cut, and a
transcript that fits once its thinking is omitted was cut by nothing."""


@pytest.mark.parametrize(("messages", "window"), FOUND)
def test_fit_examples_the_property_found(messages: list[dict[str, Any]], window: int) -> None:
    source = _valid_for(BEDROCK, messages)
    assert _violations(BEDROCK, source) == []
    before = copy.deepcopy(source)
    assert count(BEDROCK, source) > window
    fitted = fit_to_context(source, BEDROCK, context_window=window)
    _check_fitted(BEDROCK, source, before, fitted, window, marker=False)


def _check_minimal_does_not_fit(
    model: str, source: list[Any], available: int, marker: bool
) -> None:
    """Raising is right only when the system messages and latest user turn overflow."""
    users = [m for m in source if m.get("role") == "user"]
    minimal = [m for m in source if m.get("role") in ("system", "developer")] + users[-1:]
    if marker:
        minimal.insert(0, {"role": "system", "content": DEFAULT_MARKER})
    if users:
        assert count(model, minimal) > available
    else:  # no user turn: the newest exchange is the anchor
        assert count(model, source) > available


def _check_fitted(
    model: str,
    source: list[Any],
    before: list[Any],
    fitted: FitResult,
    available: int,
    marker: bool,
) -> None:
    assert source == before, "the input is never modified"
    out = fitted.messages
    assert fitted.tokens == count(model, out)
    assert fitted.tokens <= fitted.available_tokens == available
    assert fitted.changed == (fitted.original_tokens > available)
    assert _violations(model, out) == []
    _is_subsequence_with_marker(out, source, marker)
    _exchanges_whole(source, _kept_as_reported(source, fitted))
    assert fitted.marker == (marker and fitted.changed)


@pytest.mark.parametrize("model", TARGETS)
@SETTINGS
@given(messages=inputs, data=st.data())
def test_fit_drops_nothing_when_the_transcript_fits(
    model: str, messages: list[dict[str, Any]], data: st.DataObject
) -> None:
    source = _valid_for(model, messages)
    total = count(model, source)
    window = data.draw(st.integers(total, total + 1000), label="context_window")
    fitted = fit_to_context(source, model, context_window=window, marker=True)
    assert fitted.messages == source
    assert all(a is b for a, b in zip(fitted.messages, source, strict=True))
    assert fitted.tokens == fitted.original_tokens == total
    assert not fitted.changed


@SETTINGS
@given(messages=inputs, data=st.data())
def test_window_keeps_a_whole_exchange_subsequence_within_the_limit(
    messages: list[dict[str, Any]], data: st.DataObject
) -> None:
    limit = data.draw(st.none() | st.integers(1, 12), label="max_messages")
    turns = data.draw(st.none() | st.integers(1, 4), label="max_user_turns")
    if limit is None and turns is None:
        limit = data.draw(st.integers(1, 12), label="fallback limit")
    preserve = data.draw(st.booleans(), label="preserve_system_messages")
    window = SlidingWindow(limit, max_user_turns=turns, preserve_system_messages=preserve)
    out = window.apply(messages)
    _is_subsequence_with_marker(out, messages, marker=False)
    if limit is not None:
        pinned = sum(1 for m in messages if preserve and m.get("role") in ("system", "developer"))
        assert len(out) <= max(limit, pinned)
    if turns is not None:
        assert sum(1 for m in out if m.get("role") == "user") <= turns
    kept = {id(m) for m in out}
    for unit in units_of(messages):
        if unit.kind == "exchange":
            present = [id(messages[i]) in kept for i in unit.indices]
            assert all(present) or not any(present), "a call is cut from its results"
    if len(out) < len(messages):
        first = next((m for m in out if m.get("role") not in ("system", "developer")), None)
        assert first is None or first.get("role") not in ("tool", "function")


@pytest.mark.parametrize("model", TARGETS)
@SETTINGS
@given(messages=inputs, limit=st.integers(1, 10))
def test_window_then_rules_is_valid_for_every_target(
    model: str, messages: list[dict[str, Any]], limit: int
) -> None:
    """Inside hygiene the rules run again on what the window kept; it then is valid."""
    source = _valid_for(model, messages)
    out = _valid_for(model, SlidingWindow(limit).apply(source))
    assert _violations(model, out) == []
