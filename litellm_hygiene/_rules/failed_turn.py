"""Assistant turns that ended in ``error`` or ``aborted`` are not replayed.

Such turns carry partial output and half-streamed tool calls. Replaying them causes
``Item 'rs_...' of type 'reasoning' was provided without its required following item``
(OpenAI Responses) and orphan errors everywhere else. The tool results that answer
their calls go too: left behind they are results without a call, which every provider
rejects. Only the neutral model records a turn's stop reason; an OpenAI-shaped history
has no failed turns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from ._codes import Code
from ._conversation import Conversation
from ._findings import Finding, Problem
from ._rule import Rule

__all__ = ["FailedTurn"]


class FailedTurn(Rule):
    """Drop failed assistant turns and the results answering their calls."""

    code: ClassVar[Code] = "failed_turn"

    def find(self, conv: Conversation) -> list[Finding]:
        """Each failed turn, and each result after it that answers one of its calls.

        A result answers a dropped call when it carries the call's key and comes
        before another assistant turn that issues the same key.
        """
        if not any(slot.failed for slot in conv.slots):
            return []
        found: list[Finding] = []
        pending: set[str] = set()
        for index, slot in enumerate(conv.slots):
            facts = slot.facts
            if facts.role == "assistant":
                keys = {key for key, _, _ in facts.calls}
                pending -= keys
                if slot.failed:
                    pending |= keys
                    found.append(Finding(index, (Problem("", "failed turn dropped"),)))
            elif facts.role == "tool" and facts.result in pending:
                found.append(Finding(index, (Problem("", "result of a failed turn dropped"),)))
        return found

    def fix(self, conv: Conversation, found: Sequence[Finding]) -> Conversation:
        """Leave out the found messages."""
        dropped = {finding.index for finding in found}
        return conv.with_slots([s for i, s in enumerate(conv.slots) if i not in dropped])
