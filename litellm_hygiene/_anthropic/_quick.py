"""The chat form of the Anthropic messages Claude Code sends, without the neutral model.

:func:`~litellm_hygiene._anthropic._chat.read_as_chat` hands the rules each neutral
message's chat form (``encode_message`` of ``from_anthropic``). Most messages are a few
plain blocks (text, signed thinking, ``tool_use``, ``tool_result`` with text), whose chat
form is their own blocks (shared: the rules never change a message in place) under other
keys: this module writes it straight from the wire, and a request the rules leave alone
is never decoded. Anything
else in a message (an image, a document, an unknown key, a Gemini id) and the whole
message goes the long way. ``tests/shapes/test_anthropic_shape.py`` holds the two equal.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Final

from .._json import encode_arguments
from .._wire._ids import THOUGHT_SEPARATOR

__all__ = ["quick_assistant", "quick_chat", "quick_system", "quick_user"]

_TEXT_KEYS: Final = frozenset({"type", "text", "cache_control"})
_THINKING_KEYS: Final = frozenset({"type", "thinking", "signature"})
_REDACTED_KEYS: Final = frozenset({"type", "data"})
_TOOL_USE_KEYS: Final = frozenset({"type", "id", "name", "input"})
_RESULT_KEYS: Final = frozenset({"type", "tool_use_id", "content", "is_error", "cache_control"})
_MESSAGE_KEYS: Final = frozenset({"role", "content"})
_NONE: Final[Any] = object()


def _text(block: Any) -> dict[str, Any] | None:
    """A plain text block, which is its own chat part; ``None`` for any other block.

    Shared, not copied: the rules never change a message in place, and one they change
    is written anew.
    """
    if type(block) is not dict or block.get("type") != "text":
        return None
    if not _TEXT_KEYS.issuperset(block) or type(block["text"]) is not str:
        return None
    cache = block.get("cache_control", _NONE)
    return block if cache is _NONE or type(cache) is dict else None


def _texts(blocks: Any) -> list[dict[str, Any]] | None:
    out: list[dict[str, Any]] = []
    for block in blocks:
        part = _text(block)
        if part is None:
            return None
        out.append(part)
    return out


def quick_system(system: Any) -> dict[str, Any] | None:
    """The chat form of ``system`` (a string, or text blocks); ``None``: the long way."""
    if type(system) is str:
        return {"role": "system", "content": system}
    if type(system) is not list:
        return None
    parts = _texts(system)
    return None if parts is None else {"role": "system", "content": parts}


def _thinking(block: dict[str, Any]) -> dict[str, Any] | None:
    """A signed, unsigned or redacted thinking block, its own ``thinking_blocks`` entry."""
    if block.get("type") == "redacted_thinking":
        plain = _REDACTED_KEYS.issuperset(block) and type(block.get("data")) is str
        return block if plain else None
    if not _THINKING_KEYS.issuperset(block) or type(block.get("thinking")) is not str:
        return None
    signature = block.get("signature", _NONE)
    return block if signature is _NONE or type(signature) is str else None


def _call(block: dict[str, Any]) -> dict[str, Any] | None:
    if block.keys() != _TOOL_USE_KEYS:
        return None
    call_id, name, arguments = block["id"], block["name"], block["input"]
    if type(call_id) is not str or type(name) is not str or type(arguments) is not dict:
        return None
    if THOUGHT_SEPARATOR in call_id:
        return None
    function = {"name": name, "arguments": encode_arguments(arguments)}
    return {"id": call_id, "type": "function", "function": function}


def quick_assistant(msg: Any) -> dict[str, Any] | None:
    """An assistant message's chat form; ``None``: the long way.

    Its blocks in Claude's order: thinking, then text, then calls.
    """
    if type(msg) is not dict or not _MESSAGE_KEYS.issuperset(msg):
        return None
    content = msg.get("content")
    if type(content) is str:
        return {"role": "assistant", "content": content}
    if type(content) is not list:
        return None
    sorted_blocks = _assistant_blocks(content)
    if sorted_blocks is None:
        return None
    thinking, parts, calls = sorted_blocks
    out: dict[str, Any] = {"role": "assistant"}
    if thinking:
        out["thinking_blocks"] = thinking
    if calls:
        out["tool_calls"] = calls
    out["content"] = parts if parts or not content else None
    return out


_Sorted = tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]


def _assistant_blocks(content: list[Any]) -> _Sorted | None:
    """A turn's thinking entries, text parts and calls; ``None`` out of that order."""
    thinking: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    for block in content:
        kind = block.get("type") if type(block) is dict else None
        entry: dict[str, Any] | None = None
        if kind in ("thinking", "redacted_thinking") and not (parts or calls):
            entry = _thinking(block)
            target = thinking  # thinking after another block stays in content: long way
        elif kind == "text" and not calls:
            entry = _text(block)
            target = parts
        elif kind == "tool_use":
            entry = _call(block)
            target = calls
        if entry is None:
            return None
        target.append(entry)
    return thinking, parts, calls


def _result(block: dict[str, Any]) -> dict[str, Any] | None:
    if not _RESULT_KEYS.issuperset(block):
        return None
    call_id = block.get("tool_use_id")
    if type(call_id) is not str or THOUGHT_SEPARATOR in call_id:
        return None
    out: dict[str, Any] = {"role": "tool", "tool_call_id": call_id}
    if "content" in block:
        content = block["content"]
        if type(content) is str:
            out["content"] = content
        elif type(content) is list:
            parts = _texts(content)
            if parts is None:
                return None
            out["content"] = parts
        else:
            return None
    if "is_error" in block:
        out["is_error"] = block["is_error"]
    if "cache_control" in block:
        cache = block["cache_control"]
        if type(cache) is not dict:
            return None
        out["cache_control"] = dict(cache)
    return out


def quick_user(msg: Any) -> list[dict[str, Any]] | None:
    """A user message's chat messages (its results, each its own); ``None``: the long way."""
    if type(msg) is not dict or not _MESSAGE_KEYS.issuperset(msg):
        return None
    content = msg.get("content")
    if type(content) is str:
        return [{"role": "user", "content": content}]
    if type(content) is not list:
        return None
    out: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] = []
    for block in content:
        if type(block) is dict and block.get("type") == "tool_result":
            if pending:
                out.append({"role": "user", "content": pending})
                pending = []
            result = _result(block)
            if result is None:
                return None
            out.append(result)
            continue
        part = _text(block)
        if part is None:
            return None
        pending.append(part)
    if pending or not out:
        out.append({"role": "user", "content": pending})
    return out


def quick_chat(messages: Sequence[Any], system: Any, has_system: bool) -> Iterator[Any]:
    """Each wire message's chat messages, or ``None`` for one that goes the long way."""
    if has_system:
        yield quick_system(system)
    for msg in messages:
        yield quick_message(msg)


def quick_message(msg: Any) -> Any:
    """One wire message's chat messages (one, or a list), or ``None``: the long way."""
    role = msg.get("role") if type(msg) is dict else None
    if role == "assistant":
        return quick_assistant(msg)
    if role == "user":
        return quick_user(msg)
    if role == "system" and _MESSAGE_KEYS.issuperset(msg):
        return quick_system(msg.get("content"))
    return None
