"""A Responses reasoning item is replayed only with the item it belongs to.

OpenAI Responses rejects a reasoning item with nothing after it: ``Item 'rs_...' of
type 'reasoning' was provided without its required following item.`` A same-model turn
that holds only reasoning (a stream cut after thinking, an answer lost on the client) is
such a turn: LiteLLM turns its reasoning items into input items and has no message or
call item to put after them. The fix drops the reasoning items of a turn with no text
and no tool call, and the turn itself when nothing else is left in it. Text counts when
it is not blank: LiteLLM writes no output item for empty text.
"""

from __future__ import annotations

from typing import Any, ClassVar

from .._build import copy_unchecked
from .._content import OpaqueContent, TextContent, ThinkingContent, ToolCall
from .._messages import AssistantMessage, Message
from .._view import OPAQUE
from ._codes import Code
from ._conversation import Conversation, RuleContext, Slot
from ._findings import Problem
from ._rule import MessageRule, Repair

__all__ = ["LoneReasoning"]


def _answers(block: object) -> bool:
    """A block LiteLLM writes as an item that can follow reasoning."""
    if isinstance(block, ToolCall) or isinstance(block, OpaqueContent):
        return True
    return isinstance(block, TextContent) and bool(block.text.strip())


def _item(block: ThinkingContent) -> bool:
    return block.origin == "reasoning_items"


class LoneReasoning(MessageRule):
    """Drop reasoning items no item follows."""

    code: ClassVar[Code] = "lone_reasoning"
    flags: ClassVar[int] = OPAQUE

    def applies(self, ctx: RuleContext) -> bool:
        """Only targets that replay reasoning items as input items."""
        return ctx.policy.reasoning_needs_answer

    def candidate(self, conv: Conversation, slot: Slot) -> bool:
        """Assistant turns without calls that may carry reasoning items."""
        facts = slot.facts
        return bool(facts.flags & OPAQUE) and facts.role == "assistant" and not facts.calls

    def repair(self, conv: Conversation, index: int, message: Message) -> Repair:
        """The turn without its reasoning items when nothing follows them."""
        if not isinstance(message, AssistantMessage):
            return message, []
        content = message.content
        if any(map(_answers, content)):
            return message, []
        problems: list[Problem] = []
        kept: list[Any] = []
        for position, block in enumerate(content):
            if isinstance(block, ThinkingContent) and _item(block):
                item = block.extra.get("id")
                shown = item if isinstance(item, str) and item else "rs_..."
                problems.append(
                    Problem(
                        f"reasoning_items[{len(problems)}]",
                        "reasoning item without an answer dropped",
                        "lone_reasoning_item",
                        local=position,
                        values={"item": shown},
                    )
                )
                continue
            kept.append(block)
        if not problems:
            return message, []
        if not kept and message.reasoning_content is None:
            problems.append(Problem("content", "a turn of reasoning only dropped"))
            return None, problems
        return copy_unchecked(message, content=tuple(kept)), problems
