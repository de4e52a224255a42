"""Keep what you do not know, fix the rest: the unknown injected into real-shaped requests.

Clients add roles, blocks and items without notice. Into generated requests of all three
shapes (chat messages; ``/v1/messages`` as Claude Code sends it; ``/v1/responses`` as
Codex sends it) this injects blocks and parts of types no reader knows, Responses items
of unknown types, messages of unknown roles and messages no reader can read, each
carrying a unique mark. Through the hook's own core (``HygieneEngine.prepare_sync``,
what LiteLLM's hook runs):

- hygiene never gives the request up (``report.error`` stays ``None``) and reports each
  message it could not read, once;
- nothing is lost: every injected mark is in what is sent, exactly once, and a message
  kept unread is sent exactly as it came;
- the rest is fixed: sent through the core again, nothing changes (the output is a
  fixed point, so no rule finds anything left to fix);
- the caller's request is never mutated.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litellm_hygiene._integration._engine import HygieneEngine
from litellm_hygiene._integration._prepare import prepare_sync
from litellm_hygiene._integration._report import CallReport
from tests.shapes.test_responses_shape import codex_sessions
from tests.support.anthropic_strategies import anthropic_requests
from tests.support.strategies import message

SETTINGS = settings(max_examples=150, deadline=None)
MARK = "x_hygiene_mark"
Json = dict[str, Any]


def _marks(value: Any) -> list[int]:
    """Every mark in ``value``, in document order."""
    text = json.dumps(value)
    found: list[int] = []
    key = f'"{MARK}": '
    start = text.find(key)
    while start != -1:
        end = start + len(key)
        digits = ""
        while text[end].isdigit():
            digits += text[end]
            end += 1
        found.append(int(digits))
        start = text.find(key, end)
    return found


@st.composite
def _injected(
    draw: st.DrawFn,
    messages: list[Any],
    block: Callable[[int], Json],
    odd_messages: Sequence[Callable[[int], Json]],
) -> tuple[list[Any], list[Json]]:
    """``messages`` with unknown blocks in some user turns and odd messages between.

    Returns the new list and the odd messages put in it (each must go out as it came).
    """
    out: list[Any] = []
    odd: list[Json] = []
    number = 0
    for msg in copy.deepcopy(messages):
        if draw(st.integers(0, 4)) == 0:
            kind = draw(st.sampled_from(odd_messages))
            made = kind(number)
            number += 1
            odd.append(made)
            out.append(made)
        # Into user turns, which no rule drops (a dropped result or failed turn takes
        # what it holds with it, known or not).
        user = isinstance(msg, dict) and msg.get("role") == "user"
        content = msg.get("content") if user else None
        if isinstance(content, list) and draw(st.booleans()):
            content.insert(draw(st.integers(0, len(content))), block(number))
            number += 1
        out.append(msg)
    if draw(st.booleans()):
        kind = draw(st.sampled_from(odd_messages))
        made = kind(number)
        odd.append(made)
        out.append(made)
    return out, odd


def _unknown_role(number: int) -> Json:
    return {"role": "critic", "content": "fine", MARK: number}


def _unreadable_user(number: int) -> Json:
    return {"role": "user", "content": 7, MARK: number}


def _prepared(engine: HygieneEngine, kwargs: Json, shape: str | None) -> tuple[Json, CallReport]:
    report = CallReport()
    prepared = prepare_sync(engine, kwargs, report, shape)
    changed = prepared is not None and prepared.changed  # as the hook applies it
    return (prepared.apply(kwargs) if prepared is not None and changed else kwargs), report


def _check(kwargs: Json, shape: str | None, field: str, kept: list[Json], unread: int) -> None:
    """The properties of the module docstring; ``kept``: what must go out as it came;
    ``unread``: how many messages of the request no reader can read."""
    engine = HygieneEngine(provenance_store="none")
    before = copy.deepcopy(kwargs)
    sent, report = _prepared(engine, kwargs, shape)
    assert kwargs == before, "the caller's request was mutated"
    assert report.error is None, report.error
    assert engine.stats["errors"] == 0 and engine.stats["invalid_input"] == 0
    assert len(report.unread) == unread, report.unread
    assert sorted(_marks(sent)) == sorted(_marks(kwargs)), "a mark was lost"
    for odd in kept:
        assert odd in sent[field], "a message kept unread was changed"
    again, second = _prepared(engine, sent, shape)
    assert second.error is None
    assert second.changes == {}, second.changes
    assert again[field] == sent[field]


ANTHROPIC_TARGETS = ["anthropic/claude-sonnet-4-5", "anthropic/claude-opus-4-8"]


@pytest.mark.parametrize("model", ANTHROPIC_TARGETS)
@SETTINGS
@given(data=st.data())
def test_claude_code_requests_keep_the_unknown_and_fix_the_rest(
    model: str, data: st.DataObject
) -> None:
    messages, system = data.draw(anthropic_requests())
    odd = [_unknown_role, _unreadable_user]
    injected, kept = data.draw(
        _injected(messages, lambda n: {"type": "x_future_block", MARK: n}, odd)
    )
    kwargs: Json = {"model": model, "messages": injected}
    if system is not None:
        kwargs["system"] = system
    _check(kwargs, "anthropic_messages", "messages", kept, len(kept))


def _unknown_item(number: int) -> Json:
    return {"type": "x_future_item", "payload": {"k": 1}, MARK: number}


def _unknown_role_item(number: int) -> Json:
    return {"type": "message", "role": "critic", "content": "fine", MARK: number}


def _unreadable_item(number: int) -> Json:
    return {"type": "function_call_output", "output": "x", MARK: number}


@SETTINGS
@given(data=st.data())
def test_codex_requests_keep_the_unknown_and_fix_the_rest(data: st.DataObject) -> None:
    items, instructions = data.draw(codex_sessions())
    odd = [_unknown_item, _unknown_role_item, _unreadable_item]
    injected, kept = data.draw(_injected(items, lambda n: {"type": "x_future_part", MARK: n}, odd))
    kwargs: Json = {"model": "openai/gpt-4o", "input": injected}
    if instructions is not None:
        kwargs["instructions"] = instructions
    unread = [m for m in kept if m["type"] != "x_future_item"]  # that one is read, as opaque
    _check(kwargs, "responses", "input", kept, len(unread))


@pytest.mark.parametrize(
    "model", ["anthropic/claude-sonnet-4-5", "mistral/mistral-large-latest", "openai/gpt-4o"]
)
@SETTINGS
@given(data=st.data())
def test_chat_requests_keep_the_unknown_and_fix_the_rest(model: str, data: st.DataObject) -> None:
    messages = data.draw(st.lists(message(), min_size=1, max_size=6))
    odd = [_unknown_role, _unreadable_user]
    injected, kept = data.draw(
        _injected(messages, lambda n: {"type": "x_future_part", MARK: n}, odd)
    )
    _check({"model": model, "messages": injected}, None, "messages", kept, len(kept))
