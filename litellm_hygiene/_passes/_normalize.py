"""Pass 1: normalise input so later passes see well-formed content.

- A ``null`` content on a user, system or tool message becomes an empty string
  (OpenAI rejects ``null`` there: ``expected a string, got null``).
- Empty text parts inside list content are dropped for targets that reject them
  (Anthropic: ``text content blocks must be non-empty``), and so are assistant turns
  left with nothing in them.
"""

from __future__ import annotations

from typing import Any

from .._content import TextContent
from .._messages import AssistantMessage, Message, ToolResultMessage
from ._base import Change, Messages, PassContext, PassResult

__all__ = ["normalize_input"]

STEP = "normalize_input"


def _is_empty_text(block: object) -> bool:
    return isinstance(block, TextContent) and block.text == "" and block.cache_control is None


def _normalize(message: Message, ctx: PassContext) -> tuple[Message | None, str | None]:
    update: dict[str, Any] = {}
    kind: str | None = None
    if not isinstance(message, AssistantMessage) and message.content_form == "null":
        update = {"content": (TextContent(text=""),), "content_form": "string"}
        kind = "null_content_filled"
    elif ctx.policy.reject_empty_text and message.content_form == "list":
        kept = tuple(b for b in message.content if not _is_empty_text(b))
        if len(kept) != len(message.content):
            update = {"content": kept}
            kind = "empty_text_dropped"
    if not update:
        new: Message = message
    else:
        new = message.model_copy(update=update)
    if ctx.policy.reject_empty_text and isinstance(new, AssistantMessage):
        if not any(not _is_empty_text(b) for b in new.content):
            return None, "empty_assistant_turn_dropped"
    return new, kind


def normalize_input(messages: Messages, ctx: PassContext) -> PassResult:
    """Fill ``null`` content and drop empty text the target would reject."""
    out: list[Message] = []
    changes: list[Change] = []
    for index, message in enumerate(messages):
        if isinstance(message, ToolResultMessage) and message.content_form != "null":
            out.append(message)
            continue
        new, kind = _normalize(message, ctx)
        if kind is not None:
            changes.append(Change(step=STEP, kind=kind, index=index))
        if new is not None:
            out.append(new)
    return (tuple(out) if changes else messages), changes
