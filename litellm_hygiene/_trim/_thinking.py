"""Signed thinking on a trimmed request: dropped from every turn after the cut.

On the newest Claude models a replayed signed thinking block is valid only while every
message before it is unchanged (``Invalid 'signature' in 'thinking' block. The block is
bound to a different conversation``). Trimming the front of a transcript changes that
prefix for every turn it keeps, so each kept signed block would be refused. Hygiene
drops them itself rather than asking Anthropic to (``thinking.block_binding.
prefix_mismatch_behavior: "drop_block"``): LiteLLM forwards that field only on its
direct Anthropic and Azure AI routes and only inside a ``thinking`` parameter the
request already has (never on Bedrock or Vertex AI), the field belongs to the
``thinking-binding-controls-2026-08-01`` beta, and what is sent must not depend on the
account. Dropping is deterministic, works
on every route, and costs little: Anthropic does not show a model its earlier turns'
thinking anyway, except in a tool loop still in progress (see :class:`ThinkingDrop`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from ._structure import role_of

__all__ = [
    "THINKING_KEY",
    "THINKING_OMITTED",
    "ThinkingDrop",
    "drop_thinking_after",
    "thinking_changes_content",
    "thinking_only",
    "without_thinking",
]

THINKING_KEY = "thinking_blocks"
"""Where LiteLLM keeps a Claude turn's thinking (signed, or redacted) on the wire."""


THINKING_OMITTED = "(thinking omitted)"
"""The text of a kept turn that held nothing but its thinking. Left out, the turns around
it would meet (two user turns in a row, which Anthropic refuses); left empty, Anthropic
refuses the empty turn."""


def _get(message: Any, key: str) -> Any:
    return message.get(key) if isinstance(message, Mapping) else getattr(message, key, None)


_THINKING_PARTS = frozenset({"thinking", "redacted_thinking"})
"""Content parts that are thinking: where a ``/v1/messages`` turn's thinking after its
first other block sits in its chat form (``_anthropic._decode``)."""


def _is_thinking_part(part: Any) -> bool:
    return isinstance(part, Mapping) and part.get("type") in _THINKING_PARTS


def _thinking_in_content(message: Any) -> bool:
    content = _get(message, "content")
    return isinstance(content, list) and any(map(_is_thinking_part, content))


def _has_thinking(message: Any) -> bool:
    if role_of(message) != "assistant":
        return False
    return bool(_get(message, THINKING_KEY)) or _thinking_in_content(message)


def _rest_of_content(content: Any) -> Any:
    """``content`` without its thinking parts (a string, or none, as it is)."""
    if not isinstance(content, list):
        return content
    return [part for part in content if not _is_thinking_part(part)]


def thinking_only(message: Any) -> bool:
    """An assistant turn with thinking and neither text nor calls (a turn cut short)."""
    return _has_thinking(message) and not (
        _rest_of_content(_get(message, "content"))
        or _get(message, "tool_calls")
        or _get(message, "function_call")
    )


def thinking_changes_content(message: Any) -> bool:
    """Whether dropping the turn's thinking changes its content, not only its thinking key.

    It does when thinking parts sit in the content, or when nothing but thinking is
    there (the content becomes :data:`THINKING_OMITTED`).
    """
    if role_of(message) != "assistant":
        return False
    return _thinking_in_content(message) or thinking_only(message)


def without_thinking(message: Any) -> dict[str, Any]:
    """The turn without its thinking; :data:`THINKING_OMITTED` if nothing else is left."""
    data = dict(message) if isinstance(message, Mapping) else message.model_dump()
    data.pop(THINKING_KEY, None)
    if isinstance(data.get("content"), list):
        data["content"] = _rest_of_content(data["content"])
    if thinking_only(message):
        data["content"] = THINKING_OMITTED
    return data


class ThinkingDrop(NamedTuple):
    """What dropping the thinking after a cut did.

    Attributes:
        messages: The kept messages; copies only of the turns that changed.
        dropped: How many turns lost their thinking.
        emptied: Positions, in the transcript, of turns that held nothing but
            thinking: they are left out (an empty assistant turn is refused, and the
            rules would drop it too).
        open_loop: The request ends in a tool loop still in progress (tool results
            after an assistant turn with calls) and that turn lost its thinking. With
            thinking enabled Anthropic wants such a turn to start with its thinking
            (``Expected `thinking` or `redacted_thinking`, but found `tool_use```), so
            the request must then go without thinking, as LiteLLM's own repair does
            under ``litellm.modify_params``.
    """

    messages: list[Any]
    dropped: int
    open_loop: bool


def drop_thinking_after(
    messages: Sequence[Any], kept: Sequence[int], first_cut: int
) -> ThinkingDrop:
    """The kept messages, with thinking removed from assistant turns after ``first_cut``.

    Args:
        messages: The transcript (never modified).
        kept: Positions of the kept messages, ascending.
        first_cut: Position of the first removed message.
    """
    out: list[Any] = []
    dropped: list[int] = []
    for index in kept:
        message = messages[index]
        if index > first_cut and _has_thinking(message):
            out.append(without_thinking(message))
            dropped.append(len(out) - 1)
        else:
            out.append(message)
    return ThinkingDrop(out, len(dropped), _open_loop_head(out) in dropped)


def _open_loop_head(messages: Sequence[Any]) -> int | None:
    """The assistant turn whose results end the request, if it ends with results."""
    index = len(messages) - 1
    while index >= 0 and role_of(messages[index]) in ("tool", "function"):
        index -= 1
    if index == len(messages) - 1 or index < 0 or role_of(messages[index]) != "assistant":
        return None
    return index
