"""JSON helpers for the OpenAI boundary: structural copies and best-effort decoding."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Final

__all__ = ["INVALID", "copy_dict", "copy_json", "decode_arguments", "encode_arguments", "loads"]

_CLOSERS: Final = {"{": "}", "[": "]"}
_MAX_REPAIR_ATTEMPTS: Final = 64


def copy_json(value: Any) -> Any:
    """Copy the containers of a JSON-like value, sharing immutable leaves.

    The converters copy every passthrough value on the way in and out so that neither
    the neutral model nor the outgoing request aliases the caller's stored history.
    """
    return _copy(value, 0)


def copy_dict(value: dict[str, Any]) -> dict[str, Any]:
    """:func:`copy_json` for a dict, typed as one."""
    return {k: _copy(v, 1) for k, v in value.items()}


_RECURSE: Final = 64
"""Below this depth containers are copied recursively (fast); deeper, by a loop, so JSON
nested hundreds deep is copied like any other instead of exhausting the stack."""


def _copy(value: Any, depth: int) -> Any:
    if isinstance(value, dict):
        if depth >= _RECURSE:
            return _copy_deep(value)
        return {k: _copy(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        if depth >= _RECURSE:
            return _copy_deep(value)
        return [_copy(v, depth + 1) for v in value]
    return value


def _copy_deep(value: dict[str, Any] | list[Any]) -> Any:
    """:func:`copy_json` without recursion: one work list of containers to fill."""
    root: Any = {} if isinstance(value, dict) else []
    work: list[tuple[Any, Any]] = [(value, root)]
    while work:
        source, target = work.pop()
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in items:
            if isinstance(item, dict) or isinstance(item, list):
                item_copy: Any = {} if isinstance(item, dict) else []
                work.append((item, item_copy))
                item = item_copy
            if isinstance(target, dict):
                target[key] = item
            else:
                target.append(item)
    return root


_ENCODER: Final = json.JSONEncoder(ensure_ascii=False)
"""``json.dumps(value, ensure_ascii=False)``, built once (``dumps`` builds an encoder per
call for any argument not its default)."""


def encode_arguments(value: Any) -> str:
    """A call's arguments as the ``arguments`` string of the chat shape: JSON, not ASCII-escaped."""
    return _ENCODER.encode(value)


def decode_arguments(text: str) -> dict[str, Any]:
    """Decode a tool call's JSON argument text into an object, best effort.

    Models stream arguments and streams get cut, so the text may be truncated or
    invalid. A truncated object is completed (open strings and brackets closed, a
    dangling key or separator dropped); a double-encoded object is unwrapped; anything
    that is still not an object yields ``{}``. The caller keeps the original text, so
    nothing is lost.
    """
    stripped = text.strip()
    if not stripped:
        return {}
    value = loads(stripped)
    if isinstance(value, str):
        value = loads(value.strip())
    if isinstance(value, dict):
        return value
    if value is INVALID and stripped.startswith("{"):
        repaired = _repair(stripped)
        if isinstance(repaired, dict):
            return repaired
    return {}


class _Invalid:
    pass


INVALID: Final[Any] = _Invalid()
"""What :func:`loads` gives for text that is not JSON."""

# The C scanner behind json.loads (not in the stubs), and JSON's whitespace (RFC 8259).
_scan_once: Final[Callable[[str, int], tuple[Any, int]]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
_SPACE: Final = re.compile(r"[ \t\n\r]*")


def _after_space(text: str, at: int) -> int:
    found = _SPACE.match(text, at)
    return found.end() if found else at


def loads(text: Any) -> Any:
    """``json.loads(text)`` for a ``str``, or :data:`INVALID` where it would raise.

    The same parser json.loads runs, called without its Python layers: arguments of
    tool calls are checked on every request, and most are a few dozen characters.
    """
    try:
        value, end = _scan_once(text, 0)  # most arguments start with their value
    except StopIteration:  # not a value here: leading whitespace, or not JSON
        return _spaced(text)
    except (TypeError, ValueError, RecursionError):
        return INVALID
    if end == len(text):
        return value
    return value if _after_space(text, end) == len(text) else INVALID


def _spaced(text: str) -> Any:
    """:func:`loads` of a string whose value does not start it."""
    try:
        value, end = _scan_once(text, _after_space(text, 0))
    except (StopIteration, TypeError, ValueError, RecursionError):
        return INVALID
    return value if _after_space(text, end) == len(text) else INVALID


def _scan(text: str) -> tuple[list[str], bool, list[int]]:
    """Return the open-bracket stack, whether a string is open, and safe cut points.

    A safe cut point is an index just before a ``,`` that separates members at some
    depth, or just after an opening bracket: cutting there leaves a prefix that closes
    into valid JSON.
    """
    stack: list[str] = []
    in_string = False
    escaped = False
    cuts: list[int] = []
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in _CLOSERS:
            stack.append(_CLOSERS[ch])
            cuts.append(i + 1)
        elif ch in "}]" and stack:
            stack.pop()
        elif ch == ",":
            cuts.append(i)
    return stack, in_string, cuts


def _close(prefix: str) -> Any:
    stack, in_string, _ = _scan(prefix)
    body = prefix + ('"' if in_string else "")
    return loads(body + "".join(reversed(stack)))


def _repair(text: str) -> Any:
    """Complete a truncated JSON object by closing it, cutting back member by member."""
    attempt = _close(text)
    if attempt is not INVALID:
        return attempt
    _, _, cuts = _scan(text)
    for cut in reversed(cuts[-_MAX_REPAIR_ATTEMPTS:]):
        attempt = _close(text[:cut])
        if attempt is not INVALID:
            return attempt
    return INVALID
