"""Tool-call arguments are valid JSON where LiteLLM's converter parses them.

A stream cut mid-call leaves arguments that are not JSON (``'{"a": 1'``). OpenAI-shaped
providers take the string as it is, but LiteLLM parses the arguments on its way to
Gemini (``Unable to convert openai tool calls``: nothing is sent), Bedrock (it silently
sends ``{}``: the arguments are lost) and Anthropic (it repairs what it can and raises
otherwise). For those targets the fix sends the best-effort decoded object instead
(a truncated object completed, a double-encoded one unwrapped, anything else ``{}``),
and says so.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from .._build import copy_unchecked
from .._content import ToolCall
from .._json import loads
from .._messages import AssistantMessage, Message
from .._view import CALLS
from ._codes import Code
from ._conversation import Conversation, RuleContext, Slot
from ._findings import Problem
from ._memo import Remembered
from ._rule import MessageRule, Repair

__all__ = ["ToolArguments", "valid_arguments"]


_OBJECTS: Final = Remembered()
"""Argument strings already parsed as JSON objects (see :mod:`._memo`)."""


def valid_arguments(value: Any) -> bool:
    """Arguments LiteLLM's converters read as they are: an object, or its JSON text."""
    if type(value) is not str:
        return isinstance(value, dict) or isinstance(loads(value), dict)
    if value in _OBJECTS:
        return True
    if not isinstance(loads(value), dict):
        return False
    _OBJECTS.add(value)
    return True


class ToolArguments(MessageRule):
    """Send best-effort decoded arguments where the converter parses them."""

    code: ClassVar[Code] = "tool_arguments"
    flags: ClassVar[int] = CALLS

    def applies(self, ctx: RuleContext) -> bool:
        """Only targets whose LiteLLM converter parses the arguments."""
        return ctx.policy.parse_tool_arguments

    def candidate(self, conv: Conversation, slot: Slot) -> bool:
        """Assistant turns with a call whose arguments are not a JSON object."""
        if not slot.facts.flags & CALLS:
            return False
        for value in conv.wire.arguments(slot.raw):
            if not valid_arguments(value):
                return True
        return False

    def repair(self, conv: Conversation, index: int, message: Message) -> Repair:
        """The turn with each such call's arguments written from the decoded object."""
        if not isinstance(message, AssistantMessage):
            return message, []
        out: list[Any] = []
        problems: list[Problem] = []
        calls = 0
        for block in message.content:
            if isinstance(block, ToolCall):
                if block.raw_arguments is not None and not valid_arguments(block.raw_arguments):
                    where = (
                        "function_call.arguments"
                        if block.origin == "function_call" and not block.id
                        else f"tool_calls[{calls}].function.arguments"
                    )
                    reason = "arguments that are not a JSON object sent as their decoded object"
                    problems.append(Problem(where, reason, "invalid_arguments", call=calls))
                    block = copy_unchecked(block, raw_arguments=None)
                calls += 1
            out.append(block)
        if not problems:
            return message, []
        return copy_unchecked(message, content=tuple(out)), problems
