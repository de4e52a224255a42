"""A conversation starts with a user turn where the target requires one.

Gemini and Bedrock reject a history that starts with a model turn (Gemini: ``Please
ensure that function call turn comes immediately after a user turn or after a function
response turn``; Bedrock: ``A conversation must start with a user message``); so does
Anthropic. The fix puts a minimal user turn first. System and developer messages are
not turns and stay where they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Final

from .._build import construct_unchecked
from .._content import TextContent
from .._messages import UserMessage
from ._codes import Code
from ._conversation import Conversation, RuleContext
from ._findings import Finding, Problem
from ._rule import Rule
from ._wording import ErrorKind

__all__ = ["LEADING_USER_TEXT", "AssistantFirst"]

LEADING_USER_TEXT: Final = "(conversation continues)"
"""The text of the user turn put first."""


class AssistantFirst(Rule):
    """Prepend a minimal user turn to a history that starts with the assistant."""

    code: ClassVar[Code] = "assistant_first"

    def applies(self, ctx: RuleContext) -> bool:
        """Only targets that require a user turn first."""
        return ctx.policy.require_user_first

    def find(self, conv: Conversation) -> list[Finding]:
        """The first turn, when it is the assistant's."""
        for index, slot in enumerate(conv.slots):
            facts = slot.facts
            if facts.role == "system":
                continue
            if facts.role != "assistant":
                return []
            kind: ErrorKind = "assistant_first_with_calls" if facts.calls else "assistant_first"
            return [Finding(index, (Problem("role", "the first turn is the assistant's", kind),))]
        return []

    def fix(self, conv: Conversation, found: Sequence[Finding]) -> Conversation:
        """A user turn right before the first assistant turn."""
        (finding,) = found
        assert finding.index is not None
        user = construct_unchecked(
            UserMessage, content=(construct_unchecked(TextContent, text=LEADING_USER_TEXT),)
        )
        slots = list(conv.slots)
        slots.insert(finding.index, conv.slot_for(user))
        return conv.with_slots(slots)
