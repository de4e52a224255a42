"""Pass 6: every tool call gets exactly one result, right after its call.

Every provider requires each assistant tool-call batch to be answered, one result per
call, before the next user or assistant turn; a result without its call is rejected
too (Anthropic: ``tool_use ids were found without tool_result blocks immediately
after``; OpenAI: ``Messages with role 'tool' must be a response to a preceding message
with 'tool_calls'``). So, per batch, in call order:

- a displaced result (after a user turn, or further on) is moved right after its call;
- duplicate results are dropped, a real result beating a synthesized one;
- a call with no result gets one: ``No result provided``, marked as an error and as
  synthesized (also at the end of the transcript and where a user turn interrupts);
- results that answer no call are dropped.

Ids may repeat across turns: a result belongs to the nearest earlier call with its id,
so the search for a call's results stops at the next turn that issues the same id.
Legacy ``function_call``/``function`` pairs match by function name.
"""

from __future__ import annotations

import bisect
from collections import defaultdict

from .._build import trusted
from .._content import TextContent, ToolCall
from .._messages import AssistantMessage, Message, ToolResultMessage
from ._base import Change, Messages, PassContext, PassResult, change

__all__ = ["NO_RESULT_TEXT", "repair_tool_result_pairing"]

STEP = "repair_tool_result_pairing"
NO_RESULT_TEXT = "No result provided"


def _call_key(call: ToolCall) -> str:
    return call.id if call.id or call.origin == "tool_calls" else f"\0function:{call.name}"


def _result_key(result: ToolResultMessage) -> str:
    if result.tool_call_id or result.role == "tool":
        return result.tool_call_id
    return f"\0function:{result.tool_name}"


def _calls(message: Message) -> list[ToolCall]:
    if isinstance(message, AssistantMessage):
        return [b for b in message.content if isinstance(b, ToolCall)]
    return []


class _Index:
    """Where each key's results sit, and where each key is next issued again."""

    def __init__(self, messages: Messages) -> None:
        self.results: dict[str, list[int]] = defaultdict(list)
        self.issued: dict[str, list[int]] = defaultdict(list)
        for position, message in enumerate(messages):
            if isinstance(message, ToolResultMessage):
                self.results[_result_key(message)].append(position)
            for call in _calls(message):
                self.issued[_call_key(call)].append(position)

    def window(self, key: str, start: int, end: int) -> list[int]:
        """Result positions for ``key`` after ``start`` and before the next re-issue."""
        issued = self.issued[key]
        after = bisect.bisect_right(issued, start)
        limit = min(issued[after], end) if after < len(issued) else end
        results = self.results.get(key, [])
        lo = bisect.bisect_right(results, start)
        hi = bisect.bisect_left(results, limit)
        return results[lo:hi]


def _synthesized(call: ToolCall) -> ToolResultMessage:
    return trusted(
        ToolResultMessage,
        tool_call_id=call.id,
        tool_name=None if call.id or call.origin == "tool_calls" else call.name,
        content=(trusted(TextContent, text=NO_RESULT_TEXT),),
        is_error=True,
        synthesized=True,
        role="tool" if call.id or call.origin == "tool_calls" else "function",
    )


def _answer(
    call: ToolCall, at: int, messages: Messages, index: _Index, consumed: set[int]
) -> tuple[int | None, list[Change]]:
    """Position of the one result for ``call`` (issued at ``at``); consumes duplicates."""
    key = _call_key(call)
    candidates = [p for p in index.window(key, at, len(messages)) if p not in consumed]
    if not candidates:
        return None, [change(step=STEP, kind="missing_result_synthesized", index=at)]
    real = [p for p in candidates if not _is_synthesized(messages[p])]
    chosen = (real or candidates)[0]
    consumed.update(candidates)
    changes = [
        change(step=STEP, kind="duplicate_result_dropped", index=p)
        for p in candidates
        if p != chosen
    ]
    return chosen, changes


def _is_synthesized(message: Message) -> bool:
    return isinstance(message, ToolResultMessage) and message.synthesized


def _already_paired(messages: Messages) -> bool:
    """Every call is answered once, by the results right after its turn, in call order.

    The repair then changes nothing: a call's window holds exactly the result in place
    (a later result with its key sits after the turn that issues the key again), so
    nothing moves, nothing is dropped and nothing is synthesized. One linear scan
    instead of the index the repair builds.
    """
    expected: list[str] = []
    answered = 0
    for message in messages:
        if isinstance(message, ToolResultMessage):
            if answered == len(expected) or _result_key(message) != expected[answered]:
                return False
            answered += 1
            continue
        if answered != len(expected):
            return False
        expected = [_call_key(call) for call in _calls(message)]
        answered = 0
        if len(set(expected)) != len(expected):
            return False
    return answered == len(expected)


def repair_tool_result_pairing(messages: Messages, ctx: PassContext) -> PassResult:
    """Give every tool call exactly one adjacent result (see the module docstring)."""
    if not ctx.policy.repair_tool_pairing or _already_paired(messages):
        return messages, []
    return _repair(messages)


def _repair(messages: Messages) -> PassResult:
    index = _Index(messages)
    consumed: set[int] = set()
    out: list[Message] = []
    changes: list[Change] = []
    for position, message in enumerate(messages):
        if isinstance(message, ToolResultMessage):
            if position not in consumed:
                changes.append(change(step=STEP, kind="orphan_result_dropped", index=position))
            continue
        out.append(message)
        cursor = position + 1
        for call in _calls(message):
            found, made = _answer(call, position, messages, index, consumed)
            changes.extend(made)
            if found is None:
                out.append(_synthesized(call))
                continue
            out.append(messages[found])
            if found == cursor:
                cursor += 1
            else:
                changes.append(change(step=STEP, kind="result_moved", index=found))
    if not changes:
        return messages, []
    return tuple(out), changes
