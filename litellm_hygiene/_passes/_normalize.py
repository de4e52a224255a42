"""Normalisation: well-formed content for the passes and for the target.

:func:`normalize_input` runs first: a ``null`` content on a user, system or tool message
becomes an empty string (OpenAI rejects ``null`` there: ``expected a string, got null``).

:func:`drop_empty_content` runs after reconciliation, which can empty a turn or leave an
empty text block beside new text: for targets that reject empty text (Anthropic: ``text
content blocks must be non-empty``) it drops empty text blocks, and then user, system
and assistant turns left with nothing in them (reported, never silently). Tool results
keep their (empty) content: dropping them would break pairing.
"""

from __future__ import annotations

from typing import Any

from .._build import rebuilt, trusted
from .._content import OpaqueContent, TextContent
from .._messages import AssistantMessage, Message, ToolResultMessage
from ._base import Change, Messages, PassContext, PassResult, change

__all__ = ["drop_empty_content", "has_content_parts", "normalize_input"]


def _is_empty_text(block: object, keep_signed: bool = False) -> bool:
    """Empty or whitespace-only text (Anthropic and Bedrock reject both).

    With ``keep_signed``, a signed empty part (Gemini emits those) is not empty: its
    signature is replayed to the same model.
    """
    if not isinstance(block, TextContent) or block.text.strip():
        return False
    return not (keep_signed and block.text_signature is not None)


def has_content_parts(blocks: tuple[Any, ...]) -> bool:
    """Whether any block travels in ``content`` (an assistant without any has null)."""
    return any(isinstance(b, TextContent | OpaqueContent) for b in blocks)


def normalize_input(messages: Messages, ctx: PassContext) -> PassResult:
    """Fill ``null`` content of user, system and tool messages with an empty string."""
    out: list[Message] = []
    changes: list[Change] = []
    for index, message in enumerate(messages):
        if message.kind != "assistant" and message.content_form == "null":
            update = {"content": (trusted(TextContent, text=""),), "content_form": "string"}
            message = rebuilt(message, **update)
            changes.append(change(step="normalize_input", kind="null_content_filled", index=index))
        out.append(message)
    return (tuple(out) if changes else messages), changes


def _kept_blocks(content: tuple[Any, ...], keep_signed: bool) -> list[Any]:
    """Non-empty blocks; a dropped block's cache marker moves to the block before it."""
    kept: list[Any] = []
    for block in content:
        if not _is_empty_text(block, keep_signed):
            kept.append(block)
        elif block.cache_control is not None and kept and hasattr(kept[-1], "cache_control"):
            kept[-1] = rebuilt(kept[-1], cache_control=block.cache_control)
    return kept


def _without_empty_text(message: Message, keep_signed: bool) -> Message | None:
    """The message without empty text blocks; ``None`` when nothing is left.

    An assistant turn with only thinking and tool calls left gets ``null`` content,
    whether its empty list came in that way or its text was removed: an empty string or
    list would be sent as an empty content block, which these targets reject.
    """
    content = message.content
    if content and not any(_is_empty_text(block, keep_signed) for block in content):
        if not isinstance(message, AssistantMessage) or has_content_parts(content):
            return message  # nothing to drop, and the content form stays
    kept = tuple(_kept_blocks(content, keep_signed))
    if not kept:
        return None
    update: dict[str, Any] = {}
    if len(kept) != len(message.content):
        update["content"] = kept
    if isinstance(message, AssistantMessage) and not has_content_parts(kept):
        if message.content_form in ("string", "list"):
            update["content_form"] = "null"
    return rebuilt(message, **update) if update else message


def drop_empty_content(messages: Messages, ctx: PassContext) -> PassResult:
    """Drop empty text blocks, then empty turns, for targets that reject empty text."""
    if not ctx.policy.reject_empty_text:
        return messages, []
    out: list[Message] = []
    changes: list[Change] = []
    for index, message in enumerate(messages):
        if isinstance(message, ToolResultMessage):
            out.append(message)
            continue
        new = _without_empty_text(message, ctx.policy.keep_signed_empty_text)
        if new is None:
            kind = f"empty_{message.kind}_turn_dropped"
        elif new is not message:
            kind = "empty_text_dropped"
        else:
            out.append(message)
            continue
        changes.append(change(step="drop_empty_content", kind=kind, index=index))
        if new is not None:
            out.append(new)
    return (tuple(out) if changes else messages), changes
