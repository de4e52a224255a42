"""A target known not to take images gets placeholder text instead of them.

Text-only models reject image parts outright (``Invalid content type. image_url is
only supported by certain models``), so a conversation that once held a screenshot
could not continue on them. Each maximal run of consecutive images in a user message or
tool result becomes one placeholder that says what was there (``[2 images omitted:
...]``), so the model does not answer as if nothing had been sent; a prompt-caching
marker on the run moves to its placeholder. Only this request's copy is changed:
switching back to a vision model brings the images back. Applies only when the target
is *known* not to accept images (``capabilities.images is False``); when that is
unknown, the images are left for the provider to judge.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import groupby
from typing import Any, ClassVar, Final

from .._build import copy_unchecked
from .._content import ImageContent, TextContent
from .._messages import Message, ToolResultMessage, UserMessage
from .._view import IMAGES
from ._codes import Code
from ._conversation import Conversation, RuleContext
from ._findings import Problem
from ._rule import MessageRule, Repair

__all__ = ["ImageUnsupported", "downgrade_placeholder"]

_NOT_ACCEPTED: Final = "the target model does not accept image input"


def downgrade_placeholder(count: int, *, tool_result: bool) -> str:
    """The text that stands for ``count`` consecutive images a target cannot accept."""
    subject = "tool result image" if tool_result else "image"
    if count == 1:
        return f"[{subject} omitted: {_NOT_ACCEPTED}]"
    return f"[{count} {subject}s omitted: {_NOT_ACCEPTED}]"


def _last_cache_control(blocks: Iterable[Any]) -> dict[str, object] | None:
    """The caching marker of the last marked image: where the cached prefix ended."""
    marks = [b.cache_control for b in blocks if isinstance(b, ImageContent) and b.cache_control]
    return marks[-1] if marks else None


class ImageUnsupported(MessageRule):
    """Replace images by placeholder text for targets that cannot see them."""

    code: ClassVar[Code] = "image_unsupported"
    flags: ClassVar[int] = IMAGES

    def applies(self, ctx: RuleContext) -> bool:
        """Only targets known not to take images, when the policy downgrades them."""
        return ctx.policy.downgrade_images and ctx.target.capabilities.images is False

    def repair(self, conv: Conversation, index: int, message: Message) -> Repair:
        """Each run of images becomes one placeholder."""
        if not isinstance(message, UserMessage) and not isinstance(message, ToolResultMessage):
            return message, []
        tool_result = isinstance(message, ToolResultMessage)
        out: list[Any] = []
        problems: list[Problem] = []
        position = 0
        for is_image, group in groupby(message.content, key=lambda b: isinstance(b, ImageContent)):
            blocks = list(group)
            if is_image:
                text = downgrade_placeholder(len(blocks), tool_result=tool_result)
                out.append(TextContent(text=text, cache_control=_last_cache_control(blocks)))
                reason = f"{len(blocks)} image(s) -> 1 placeholder"
                problems.append(
                    Problem(f"content[{position}]", reason, "image_unsupported", local=position)
                )
            else:
                out.extend(blocks)
            position += len(blocks)
        if not problems:
            return message, []
        return copy_unchecked(message, content=tuple(out)), problems
