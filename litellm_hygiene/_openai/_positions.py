"""Where LiteLLM puts each caller message on the provider's wire (for error wording).

Provider errors name wire positions, not the caller's indices. Anthropic and Bedrock
drop system messages and merge consecutive user-side messages (user, tool, function)
and consecutive assistant messages; Gemini merges user-side messages and gives tool
results their own content; OpenAI Responses turns every call and result into its own
input item (each family's ``Profile.layout``). :func:`wire_positions` replays that
grouping in one pass (best effort: it
words violations, it never decides anything).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from .._families import PROFILES
from .._target import Family

__all__ = [
    "Msg",
    "WirePosition",
    "assistant_prefix_blocks",
    "wire_positions",
]

Msg = Mapping[str, Any]
"""One OpenAI-shaped message as the validator reads it."""

_PROFILES: Final = PROFILES
"""``_families``' profiles as this compiled module's own ``Final``: a name imported from a
module that is not compiled is looked up in the module's dict at every read."""


@dataclass(frozen=True)
class WirePosition:
    """Where one caller message lands on the wire.

    Attributes:
        message: Index of the wire message (Responses: of the message's first item).
        offset: Index, inside that wire message, of the message's first block
            (Responses: the message's first item again, as items are not nested).
    """

    message: int
    offset: int


def _text_blocks(content: Any) -> int:
    if isinstance(content, str):
        return 1 if content else 0
    if isinstance(content, list):
        return sum(
            1
            for p in content
            if isinstance(p, dict) and (p.get("type") != "text" or bool(p.get("text")))
        )
    return 0


def _list_len(value: Any) -> int:
    return len(value) if isinstance(value, list) else 0


def assistant_prefix_blocks(msg: Msg) -> int:
    """Blocks (Responses: items) LiteLLM writes before an assistant message's tool calls.

    Thinking first (Responses: the reasoning items, else items made from the thinking
    blocks), then the text.
    """
    thinking = _list_len(msg.get("reasoning_items")) or _list_len(msg.get("thinking_blocks"))
    return thinking + _text_blocks(msg.get("content"))


def _block_count(msg: Msg) -> int:
    role = msg.get("role")
    if role == "assistant":
        calls = _list_len(msg.get("tool_calls"))
        return assistant_prefix_blocks(msg) + calls + (msg.get("function_call") is not None)
    if role in ("tool", "function"):
        return 1
    content = msg.get("content")
    return 1 if isinstance(content, str) else _list_len(content)


def _merged(messages: Sequence[Msg | None], groups: Mapping[str, str]) -> list[WirePosition]:
    out: list[WirePosition] = []
    wire, offset, current = -1, 0, None
    for msg in messages:
        role = msg.get("role") if msg is not None else None
        group = groups.get(role) if type(role) is str else None
        if msg is None or group is None:
            out.append(WirePosition(max(wire, 0), offset))
            continue
        if group != current:
            wire, offset, current = wire + 1, 0, group
        out.append(WirePosition(wire, offset))
        offset += _block_count(msg)
    return out


def _responses_items(messages: Sequence[Msg | None]) -> list[WirePosition]:
    out: list[WirePosition] = []
    item = 0
    leading = True
    for msg in messages:
        role = msg.get("role") if msg is not None else None
        leading = leading and role == "system"
        if msg is None:
            out.append(WirePosition(item, item))
            continue
        if leading and isinstance(msg.get("content"), str):
            out.append(WirePosition(item, item))  # becomes `instructions`, not an item
            continue
        out.append(WirePosition(item, item))
        if role != "assistant":
            item += 1
            continue
        item += assistant_prefix_blocks(msg) + _list_len(msg.get("tool_calls"))
    return out


def wire_positions(messages: Sequence[Msg | None], family: Family) -> list[WirePosition]:
    """The wire position of every message (``None`` entries: unreadable messages)."""
    shape = _PROFILES[family].layout
    if shape.style == "merged_turns":
        return _merged(messages, shape.groups)
    if shape.style == "responses_items":
        return _responses_items(messages)
    return [WirePosition(i, 0) for i in range(len(messages))]
