"""Tool-call turns carry ``reasoning_content`` for targets in thinking mode.

DeepSeek and Kimi in thinking mode reject an assistant turn with tool calls that does
not pass its reasoning back: ``The reasoning_content in the thinking mode must be
passed back to the API``, also for turns another model produced (LiteLLM fills it only
when the request sets ``thinking`` explicitly, LiteLLM #37636). Another model's readable
thinking has become ``reasoning_content`` already (``foreign_reasoning``); a turn with
none gets the reasoning LiteLLM stored in its provider fields, or a single space, the
least the API accepts (LiteLLM's own fill).
"""

from __future__ import annotations

from typing import ClassVar, Final

from .._build import construct_unchecked, copy_unchecked
from .._content import ThinkingContent, ToolCall
from .._messages import AssistantMessage, Message
from .._view import CALLS
from ._codes import Code
from ._conversation import Conversation, RuleContext, Slot
from ._findings import Problem
from ._rule import MessageRule, Repair

__all__ = ["EMPTY_REASONING", "MissingReasoning"]

EMPTY_REASONING: Final = " "
"""The reasoning a tool-call turn without any is given (the least DeepSeek accepts)."""


def _has_reasoning(message: AssistantMessage) -> bool:
    if message.reasoning_content is not None:
        return True
    return any(
        isinstance(b, ThinkingContent) and b.origin == "reasoning_content" for b in message.content
    )


class MissingReasoning(MessageRule):
    """Give each tool-call turn the ``reasoning_content`` a thinking-mode target needs."""

    code: ClassVar[Code] = "missing_reasoning"
    flags: ClassVar[int] = CALLS

    def applies(self, ctx: RuleContext) -> bool:
        """Only targets in thinking mode."""
        return ctx.policy.reasoning_on_calls

    def candidate(self, conv: Conversation, slot: Slot) -> bool:
        """Assistant turns with tool calls."""
        facts = slot.facts
        return facts.role == "assistant" and bool(facts.flags & CALLS)

    def repair(self, conv: Conversation, index: int, message: Message) -> Repair:
        """The turn with reasoning: the stored one, or a single space."""
        if not isinstance(message, AssistantMessage) or _has_reasoning(message):
            return message, []
        if not any(isinstance(b, ToolCall) for b in message.content):
            return message, []
        psf = message.provider_specific_fields or {}
        stored = psf.get("reasoning_content")
        text = stored if isinstance(stored, str) and stored else EMPTY_REASONING
        block = construct_unchecked(ThinkingContent, thinking=text, origin="reasoning_content")
        problem = Problem("reasoning_content", "reasoning_content added", "missing_reasoning")
        return copy_unchecked(message, content=(block, *message.content)), [problem]
