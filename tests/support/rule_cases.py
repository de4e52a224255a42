"""Building blocks of the rules' case files (``tests/rules/test_ids.py``, ``test_turns.py``,
``test_content.py``): a call, an exchange, a stamp, and the two checks every case ends with.

This is a test-support module, not a test file.
"""

from __future__ import annotations

import copy
from typing import Any

from litellm_hygiene import (
    STAMP_KEY,
    from_openai,
    resolve_target,
    sanitize_messages,
    to_openai,
    transform_messages,
    validate_messages,
)
from tests.support.stamps import without_stamps

__all__ = ["call", "checked", "exchange", "fixed", "stamp"]


def call(call_id: str) -> dict[str, Any]:
    """A tool call of ``f`` with no arguments."""
    return {"id": call_id, "type": "function", "function": {"name": "f", "arguments": "{}"}}


def exchange(
    call_id: str, content: Any = "x", result_id: str | None = None, **extra: Any
) -> list[dict[str, Any]]:
    """A user turn, an assistant turn calling ``call_id``, its result, the next user turn."""
    return [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": content, "tool_calls": [call(call_id)], **extra},
        {"role": "tool", "tool_call_id": result_id or call_id, "content": "the result"},
        {"role": "user", "content": "next"},
    ]


def stamp(provider: str, api: str, model: str) -> dict[str, Any]:
    """The fields of a message stamped as ``model``'s."""
    return {STAMP_KEY: {"provider": provider, "api": api, "model": model}}


def checked(model: str, messages: list[dict[str, Any]]) -> list[Any]:
    """The hot path's output, after checking it against the pipeline and the validator.

    The caller's messages are left as they were, something changed, the output is
    valid for ``model`` and a fixed point.
    """
    before = copy.deepcopy(messages)
    fast = sanitize_messages(messages, model)
    assert messages == before
    full = transform_messages(from_openai(messages), resolve_target(model))
    assert without_stamps(fast.messages) == without_stamps(to_openai(full.context))
    assert fast.report.counts() == full.report.counts()
    assert fast.report.changed
    assert validate_messages(fast.messages, model) == []
    again = sanitize_messages(fast.messages, model)
    assert not again.report.changed, again.report.counts()
    return fast.messages


def fixed(model: str, messages: list[dict[str, Any]]) -> tuple[list[Any], dict[str, int]]:
    """The hot path's output and its counts: the caller's messages untouched, the output
    valid for ``model`` and a fixed point."""
    before = copy.deepcopy(messages)
    result = sanitize_messages(messages, model)
    assert messages == before
    assert validate_messages(result.messages, model) == []
    again = sanitize_messages(result.messages, model)
    assert not again.report.changed, again.report.counts()
    return result.messages, result.report.counts()
