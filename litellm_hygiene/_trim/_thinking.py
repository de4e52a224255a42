"""Signed thinking on a trimmed request: dropped from every turn after the cut.

On the newest Claude models a replayed signed thinking block is valid only while every
message before it is unchanged (``Invalid 'signature' in 'thinking' block. The block is
bound to a different conversation``). Trimming the front of a transcript changes that
prefix for every turn it keeps, so each kept signed block would be refused. Hygiene
drops them itself rather than asking Anthropic to (``thinking.block_binding.
prefix_mismatch_behavior: "drop_block"``): LiteLLM forwards that field only on its
direct Anthropic and Azure AI routes and only inside a ``thinking`` parameter the
request already has (never on Bedrock or Vertex AI), older accounts need a beta header
for it, and the result must not depend on the account. Dropping is deterministic, works
on every route, and costs little: Anthropic does not show a model its earlier turns'
thinking anyway, except in a tool loop still in progress (see :class:`ThinkingDrop`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from ._structure import role_of

__all__ = ["THINKING_KEY", "ThinkingDrop", "drop_thinking_after"]

THINKING_KEY = "thinking_blocks"
"""Where LiteLLM keeps a Claude turn's thinking (signed, or redacted) on the wire."""


def _has_thinking(message: Any) -> bool:
    if isinstance(message, Mapping):
        return bool(message.get(THINKING_KEY))
    return bool(getattr(message, THINKING_KEY, None))


def _without_thinking(message: Any) -> dict[str, Any]:
    data = dict(message) if isinstance(message, Mapping) else message.model_dump()
    data.pop(THINKING_KEY, None)
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
    emptied: tuple[int, ...] = ()


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
    emptied: list[int] = []
    for index in kept:
        message = messages[index]
        if index > first_cut and role_of(message) == "assistant" and _has_thinking(message):
            rest = _without_thinking(message)
            if _empty(rest):
                emptied.append(index)
                continue
            out.append(rest)
            dropped.append(len(out) - 1)
        else:
            out.append(message)
    open_loop = _open_loop_head(out) in dropped
    return ThinkingDrop(out, len(dropped) + len(emptied), open_loop, tuple(emptied))


def _empty(message: Mapping[str, Any]) -> bool:
    return not (message.get("content") or message.get("tool_calls") or message.get("function_call"))


def _open_loop_head(messages: Sequence[Any]) -> int | None:
    """The assistant turn whose results end the request, if it ends with results."""
    index = len(messages) - 1
    while index >= 0 and role_of(messages[index]) in ("tool", "function"):
        index -= 1
    if index == len(messages) - 1 or index < 0 or role_of(messages[index]) != "assistant":
        return None
    return index
