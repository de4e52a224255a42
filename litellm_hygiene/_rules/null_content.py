"""Only an assistant message may have ``null`` content.

OpenAI and the providers that copy its schema reject ``"content": null`` on a user,
system or tool message (``Invalid value for 'content': expected a string, got null.``).
The fix writes an empty string, which every target reads as "nothing said".
"""

from __future__ import annotations

from typing import ClassVar

from .._build import construct_unchecked, copy_unchecked
from .._content import TextContent
from .._messages import AssistantMessage, Message, OpaqueMessage
from .._view import NULL_CONTENT
from ._codes import Code
from ._conversation import Conversation
from ._findings import Problem
from ._rule import MessageRule, Repair

__all__ = ["NullContent"]


class NullContent(MessageRule):
    """Fill ``null`` content of user, system and tool messages with ``""``."""

    code: ClassVar[Code] = "null_content"
    flags: ClassVar[int] = NULL_CONTENT

    def repair(self, conv: Conversation, index: int, message: Message) -> Repair:
        """An empty string where a non-assistant message has ``null`` content."""
        if isinstance(message, AssistantMessage) or isinstance(message, OpaqueMessage):
            return message, []
        if message.content_form != "null":
            return message, []
        update = {"content": (construct_unchecked(TextContent, text=""),), "content_form": "string"}
        reason = f"null content of a {message.kind} message filled with an empty string"
        return copy_unchecked(message, **update), [Problem("content", reason, "null_content")]
