"""Structural rules: tool-call id shapes, call/result pairing, turn order.

Each rule is a pure function of a :class:`~litellm_hygiene._validate_report.Request`
that walks the message dicts once and reads only the Policy fields that switch it on.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ._policy import IdRule
from ._validate_report import ErrorKind, PathKind, Request
from ._validate_violation import Violation
from ._validate_wire import Msg

__all__ = ["check_pairing", "check_tool_ids", "check_turns", "id_fitter", "tool_id_fits"]

_NOT_TURNS = frozenset({"system", "developer"})
_RESULT_ROLES = frozenset({"tool", "function"})
_ITEM_ID = re.compile(r"[a-zA-Z0-9_-]*")
_SHOWN = 80


def _short(value: str) -> str:
    return value if len(value) <= _SHOWN else f"{value[:_SHOWN]}..."


@functools.lru_cache(maxsize=32)
def _charset(allowed: str) -> re.Pattern[str]:
    return re.compile(f"[{allowed}]*")


_At = tuple[int, str, PathKind, "int | None"]
"""Where an id sits: message index, field, wording path, and its call position (``None``
for a result's id)."""


def _plain_id(req: Request, at: _At, value: str) -> list[Violation]:
    """Check one id (or the call part of a Responses pair) against ``Policy.tool_ids``."""
    index, where, path, j = at
    rule = req.policy.tool_ids
    shown = _short(value)
    fields: dict[str, Any] = {"path": path, "call": j, "id": value, "n": len(value)}
    if value == "":
        return [
            req.report("empty_tool_call_id", index, where, "empty id", kind="id_empty", **fields)
        ]
    if rule.allowed is not None and not _charset(rule.allowed).fullmatch(value):
        reason = f"id {shown!r} has characters outside [{rule.allowed}]"
        return [req.report("tool_call_id_shape", index, where, reason, kind="id_chars", **fields)]
    if rule.max_length is not None and len(value) > rule.max_length:
        reason = f"id {shown!r} is {len(value)} characters; at most {rule.max_length} allowed"
        return [
            req.report(
                "tool_call_id_shape",
                index,
                where,
                reason,
                kind="id_too_long",
                limit=rule.max_length,
                **fields,
            )
        ]
    if rule.exact_length is not None and len(value) != rule.exact_length:
        reason = f"id {shown!r} is {len(value)} characters; exactly {rule.exact_length} required"
        return [req.report("tool_call_id_shape", index, where, reason, kind="id_length", **fields)]
    return []


def _item_id(req: Request, at: _At, item: str) -> list[Violation]:
    """Check the ``fc_...`` item part of an OpenAI Responses ``call_id|item_id`` pair."""
    index, where, _, j = at
    fields: dict[str, Any] = {"path": "item_id", "call": j, "id": item}
    if not item.startswith("fc"):
        reason = f"item id {_short(item)!r} of a call_id|item_id pair must start with 'fc'"
        return [
            req.report("tool_call_id_shape", index, where, reason, kind="item_id_prefix", **fields)
        ]
    if not _ITEM_ID.fullmatch(item):
        reason = f"item id {_short(item)!r} may hold only letters, digits, '_' and '-'"
        return [
            req.report("tool_call_id_shape", index, where, reason, kind="item_id_chars", **fields)
        ]
    return []


@functools.lru_cache(maxsize=32)
def id_fitter(rule: IdRule) -> Callable[[str], bool]:
    """The test :func:`tool_id_fits` applies for ``rule``, built once per rule."""
    chars = _charset(rule.allowed).fullmatch if rule.allowed is not None else None
    exact, longest = rule.exact_length, rule.max_length

    def plain(value: str) -> bool:
        if not value or (exact is not None and len(value) != exact):
            return False
        if longest is not None and len(value) > longest:
            return False
        return chars is None or chars(value) is not None

    def paired(value: str) -> bool:
        if "|" not in value:
            return plain(value)
        call_id, _, item = value.partition("|")
        fits_item = item.startswith("fc") and _ITEM_ID.fullmatch(item) is not None
        return fits_item and plain(call_id)

    return paired if rule.keep_responses_pairs else plain


def tool_id_fits(rule: IdRule, value: str) -> bool:
    """``value`` (an id as LiteLLM sends it) breaks no part of ``rule``.

    Exactly the ids for which the checks below report nothing; the hot path's scan
    (:mod:`litellm_hygiene._validate_scan`) asks this instead of building violations.
    """
    return id_fitter(rule)(value)


def _check_id(req: Request, at: _At, value: str) -> list[Violation]:
    if tool_id_fits(req.policy.tool_ids, value):
        return []
    if req.policy.tool_ids.keep_responses_pairs and "|" in value:
        call_id, _, item = value.partition("|")
        return _plain_id(req, at, call_id) + _item_id(req, at, item)
    return _plain_id(req, at, value)


def _call_ids(req: Request, index: int, msg: Msg) -> list[Violation]:
    calls = msg.get("tool_calls")
    if not isinstance(calls, list):
        return []
    out: list[Violation] = []
    seen: set[str] = set()
    for j, call in enumerate(calls):
        raw = call.get("id") if isinstance(call, dict) else None
        if not isinstance(raw, str | None):
            continue
        value = req.sent_id(raw or "")
        where = f"tool_calls[{j}].id"
        out += _check_id(req, (index, where, "call_id", j), value)
        if value and value in seen:
            reason = f"id {_short(value)!r} is used by two calls of this message"
            out.append(
                req.report(
                    "tool_call_id_collision",
                    index,
                    where,
                    reason,
                    kind="id_collision",
                    call=j,
                )
            )
        seen.add(value)
    return out


def check_tool_ids(req: Request) -> list[Violation]:
    """Every call id and result id, as LiteLLM sends it, fits ``Policy.tool_ids``."""
    out: list[Violation] = []
    for index, msg in enumerate(req.messages):
        if msg is None:
            continue
        if msg.get("role") == "assistant":
            out += _call_ids(req, index, msg)
        elif msg.get("role") == "tool" and isinstance(msg.get("tool_call_id"), str):
            value = req.sent_id(msg["tool_call_id"])
            out += _check_id(req, (index, "tool_call_id", "result_id", None), value)
    return out


@dataclass
class _OpenCalls:
    """The calls of one assistant message, waiting for their results."""

    index: int
    calls: list[tuple[str, str, str]] = field(default_factory=list)
    by_key: dict[str, list[int]] = field(default_factory=dict)
    answered: set[int] = field(default_factory=set)

    def add(self, where: str, key: str, shown: str) -> None:
        self.by_key.setdefault(key, []).append(len(self.calls))
        self.calls.append((where, key, shown))


def _open_calls(req: Request, index: int, msg: Msg) -> _OpenCalls | None:
    pending = _OpenCalls(index)
    calls = msg.get("tool_calls")
    for j, call in enumerate(calls if isinstance(calls, list) else ()):
        raw = call.get("id") if isinstance(call, dict) else None
        value = req.sent_id(raw) if isinstance(raw, str) else ""
        pending.add(f"tool_calls[{j}]", f"id:{value}", value)
    function_call = msg.get("function_call")
    if isinstance(function_call, dict) and isinstance(function_call.get("name"), str):
        pending.add("function_call", f"name:{function_call['name']}", function_call["name"])
    return pending if pending.calls else None


def _close(req: Request, pending: _OpenCalls) -> list[Violation]:
    out: list[Violation] = []
    for position, (where, _, shown) in enumerate(pending.calls):
        if position not in pending.answered:
            reason = f"call {_short(shown)!r} has no result before the next non-tool message"
            out.append(
                req.report(
                    "tool_call_without_result",
                    pending.index,
                    where,
                    reason,
                    kind="call_without_result",
                    id=shown,
                )
            )
    return out


def _result_key(req: Request, msg: Msg) -> tuple[str, str] | None:
    if msg.get("role") == "function":
        name = msg.get("name")
        return (f"name:{name}", name) if isinstance(name, str) else None
    raw = msg.get("tool_call_id")
    if not isinstance(raw, str):
        return None
    value = req.sent_id(raw)
    return f"id:{value}", value


def _match(req: Request, index: int, msg: Msg, pending: _OpenCalls | None) -> list[Violation]:
    found = _result_key(req, msg)
    if found is None:
        return []
    key, shown = found
    where = "name" if msg.get("role") == "function" else "tool_call_id"
    positions = pending.by_key.get(key, []) if pending is not None else []
    if pending is None or not positions:
        kind: ErrorKind = (
            "result_without_call" if msg.get("name") else "result_without_call_unnamed"
        )
        reason = f"result for {_short(shown)!r} answers no call of the message before it"
        return [req.report("tool_result_without_call", index, where, reason, kind=kind, id=shown)]
    for position in positions:
        if position not in pending.answered:
            pending.answered.add(position)
            return []
    reason = f"call {_short(shown)!r} already has a result"
    return [
        req.report("duplicate_tool_result", index, where, reason, kind="duplicate_result", id=shown)
    ]


def check_pairing(req: Request) -> list[Violation]:
    """Every call has exactly one result, in the tool messages directly after it.

    Results pair by id as LiteLLM sends it; the legacy ``function`` role pairs with a
    ``function_call`` by name. Any message other than a tool result (a system message
    too) closes the run of results.
    """
    out: list[Violation] = []
    pending: _OpenCalls | None = None
    for index, msg in enumerate(req.messages):
        if msg is not None and msg.get("role") in _RESULT_ROLES:
            out += _match(req, index, msg, pending)
            continue
        if pending is not None:
            out += _close(req, pending)
        pending = None
        if msg is not None and msg.get("role") == "assistant":
            pending = _open_calls(req, index, msg)
    if pending is not None:
        out += _close(req, pending)
    return out


def _turn_violation(req: Request, index: int, role: str, previous: str | None) -> Violation | None:
    policy = req.policy
    if role == "user" and previous == "user" and policy.merge_user_turns:
        return req.report(
            "consecutive_user_turns",
            index,
            "role",
            "a user turn follows a user turn",
            kind="user_after_user",
            role="user",
        )
    if role == "assistant" and previous == "assistant" and policy.merge_assistant_turns:
        return req.report(
            "consecutive_assistant_turns",
            index,
            "role",
            "an assistant turn follows an assistant turn",
            kind="assistant_after_assistant",
            role="assistant",
        )
    return None


def check_turns(req: Request) -> list[Violation]:
    """Turn order: alternation and a user turn first, as the policy requires.

    System and developer messages are not turns; tool results count as their own kind
    of turn (they neither make two user turns nor two assistant turns).
    """
    out: list[Violation] = []
    previous: str | None = None
    for index, msg in enumerate(req.messages):
        role = msg.get("role") if msg is not None else None
        if not isinstance(role, str) or role in _NOT_TURNS:
            continue
        assert msg is not None
        if previous is None and role == "assistant" and req.policy.require_user_first:
            with_calls = bool(msg.get("tool_calls")) or msg.get("function_call") is not None
            out.append(
                req.report(
                    "assistant_first",
                    index,
                    "role",
                    "the first turn is the assistant's",
                    kind="assistant_first_with_calls" if with_calls else "assistant_first",
                )
            )
        violation = _turn_violation(req, index, role, previous)
        if violation is not None:
            out.append(violation)
        previous = "tool" if role in _RESULT_ROLES else role
    return out
