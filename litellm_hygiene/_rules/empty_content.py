"""Empty or whitespace-only text where the target rejects it.

Anthropic: ``text content blocks must be non-empty`` (and ``must contain non-whitespace
text``); Bedrock: ``The text field in the ContentBlock object ... is blank``; Gemini:
``Unable to submit request because it has an empty text parameter``. LiteLLM's Anthropic
converter rewrites such text into the visible placeholder ``[System: Empty message
content sanitised to satisfy protocol]``, so what reaches the model is not what the
caller sent either way. For those targets the fix drops empty text blocks and unsigned
empty thinking, then user, system and assistant turns left with nothing in them
(reported, never silently), except the last user turn: dropping it would send nothing
at all, or end the request on an assistant turn (which Anthropic reads as a prefill to
continue), so its blank text becomes :data:`EMPTY_TURN_TEXT` instead. An assistant turn
left with only thinking and tool calls gets ``null`` content: an empty string would be
sent as an empty block. Tool results keep their content: dropping them would break
pairing. A signed empty text part (Gemini emits those) is kept where the policy replays
text signatures.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from .._build import construct_unchecked, copy_unchecked
from .._content import OpaqueContent, TextContent, ThinkingContent
from .._messages import (
    AssistantMessage,
    Message,
    OpaqueMessage,
    ToolResultMessage,
    UserMessage,
)
from .._view import BLANK
from ._codes import Code
from ._conversation import Conversation, RuleContext
from ._findings import Problem
from ._rule import MessageRule, Repair
from ._wording import ErrorKind

__all__ = ["EMPTY_TURN_TEXT", "EmptyContent"]

EMPTY_TURN_TEXT: Final = "(empty message)"
"""The text a blank last user turn is kept with."""


def _empty(block: object, keep_signed: bool) -> bool:
    if isinstance(block, ThinkingContent):
        return not block.redacted and block.signature is None and not block.thinking.strip()
    if not isinstance(block, TextContent) or block.text.strip():
        return False
    return not (keep_signed and block.text_signature is not None)


def _kept(content: tuple[Any, ...], keep_signed: bool) -> tuple[list[Any], list[Problem]]:
    """Non-empty blocks; a dropped block's cache marker moves to the block before it."""
    kept: list[Any] = []
    problems: list[Problem] = []
    for position, block in enumerate(content):
        if not _empty(block, keep_signed):
            kept.append(block)
            continue
        kind: ErrorKind = (
            "blank_text" if isinstance(block, TextContent) and block.text else "empty_text"
        )
        problems.append(Problem(f"content[{position}]", "empty text dropped", kind, local=position))
        marker = getattr(block, "cache_control", None)
        if marker is not None and kept and hasattr(kept[-1], "cache_control"):
            kept[-1] = copy_unchecked(kept[-1], cache_control=marker)
    return kept, problems


def _lone_blank_copy(message: Message, kept: list[Any]) -> bool:
    """A blank ``reasoning_content`` copy of thinking blocks that are all dropped.

    Without the blocks it copied, it would be read back as thinking of its own, empty.
    """
    if not isinstance(message, AssistantMessage) or message.reasoning_content is None:
        return False
    if message.reasoning_content.strip():
        return False
    return not any(
        isinstance(b, ThinkingContent) and b.origin in ("thinking_blocks", "reasoning_items")
        for b in kept
    )


def _last_user(conv: Conversation, index: int) -> bool:
    """No user turn comes after message ``index``."""
    return all(slot.facts.role != "user" for slot in conv.slots[index + 1 :])


def _has_parts(blocks: Any) -> bool:
    """Whether any block travels in ``content`` (thinking parts included)."""
    return any(
        isinstance(b, TextContent)
        or isinstance(b, OpaqueContent)
        or (isinstance(b, ThinkingContent) and b.origin == "content")
        for b in blocks
    )


class EmptyContent(MessageRule):
    """Drop empty text, then empty turns, for targets that reject empty text."""

    code: ClassVar[Code] = "empty_content"
    flags: ClassVar[int] = BLANK

    def applies(self, ctx: RuleContext) -> bool:
        """Only targets that reject empty text."""
        return ctx.policy.reject_empty_text

    def repair(self, conv: Conversation, index: int, message: Message) -> Repair:
        """The message without empty blocks; ``None`` when nothing is left of it."""
        if isinstance(message, ToolResultMessage) or isinstance(message, OpaqueMessage):
            return message, []
        kept, problems = _kept(message.content, conv.ctx.policy.keep_signed_empty_text)
        update: dict[str, Any] = {}
        if problems:
            update["content"] = tuple(kept)
            if _lone_blank_copy(message, kept):
                update["reasoning_content"] = None
        if not kept and isinstance(message, UserMessage) and _last_user(conv, index):
            kept = [construct_unchecked(TextContent, text=EMPTY_TURN_TEXT)]
            update["content"] = tuple(kept)
            problems.append(
                Problem("content", "the last user turn, blank, kept with a placeholder")
            )
        if not kept:
            problems.append(Problem("content", f"empty {message.kind} turn dropped", "empty_text"))
            return None, problems
        if isinstance(message, AssistantMessage) and not _has_parts(kept):
            if message.content_form in ("string", "list"):
                update["content_form"] = "null"
                if not problems:
                    problems.append(Problem("content", "empty content beside calls made null"))
        return (copy_unchecked(message, **update) if update else message), problems
