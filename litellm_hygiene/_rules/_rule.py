"""What every rule is made of.

A rule (one module of :mod:`litellm_hygiene._rules`) states one provider constraint:
its :data:`~litellm_hygiene._rules._codes.Code`, when it applies, how to find the places
that break it (:meth:`Rule.find`), how to fix exactly those places (:meth:`Rule.fix`),
and the kinds of breakage it tells apart (each provider family's words for them are in
that family's profile, :mod:`litellm_hygiene._families`). The validator
reports what :meth:`Rule.find` finds; the pipeline runs find then fix, rule by rule;
a request goes out untouched exactly when no rule finds anything, because a fix given
nothing to fix is never called.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from .._messages import Message
from .._view import Facts
from ._codes import Code
from ._conversation import Conversation, RuleContext, Slot
from ._findings import Finding, Problem

__all__ = ["MessageRule", "Repair", "Rule", "WireRepair", "as_foreign", "settled"]


class Rule:
    """One provider constraint: its code, when it applies, find and fix.

    Attributes:
        code: The stable name of the constraint (also the change kind and violation
            code).
        params: The request parameters the rule reads besides the messages (see
            :attr:`Conversation.params`); the integration hands the rules exactly these.
    """

    code: ClassVar[Code]
    params: ClassVar[tuple[str, ...]] = ()

    def applies(self, ctx: RuleContext) -> bool:
        """Whether the target has this constraint at all."""
        return True

    def find(self, conv: Conversation) -> list[Finding]:
        """Every place in ``conv`` that breaks the rule (nothing: an empty list)."""
        raise NotImplementedError

    def fix(self, conv: Conversation, found: Sequence[Finding]) -> Conversation:
        """``conv`` with exactly the places in ``found`` fixed."""
        raise NotImplementedError


Repair = tuple["Message | None", list[Problem]]
"""A message rule's verdict on one message: the fixed message (``None``: drop it) and
the problems; no problems means the message stays as it is."""

WireRepair = tuple[Any, list[Problem], Facts | None]
"""A message rule's repair made on the wire: the new wire message, the problems, and
the new message's facts where the edit says them (``None``: read them again)."""


class MessageRule(Rule):
    """A rule that judges and fixes each message on its own.

    Attributes:
        flags: The fact bits a message needs for the rule to look at it at all; a
            message with none of them is never decoded for this rule.
    """

    flags: ClassVar[int] = 0

    def candidate(self, conv: Conversation, slot: Slot) -> bool:
        """Whether ``slot``'s message may break the rule (cheap: facts and provenance)."""
        return bool(slot.facts.flags & self.flags)

    def repair(self, conv: Conversation, index: int, message: Message) -> Repair:
        """The fixed message and what was wrong; no problems when nothing is."""
        raise NotImplementedError

    def edit(self, conv: Conversation, index: int, slot: Slot) -> WireRepair | None:
        """The repair of ``slot``'s message made on the wire, where the wire can make it.

        Gives what :meth:`repair` of the decoded message gives, written: the new wire
        message and the same problems (no problems: nothing to fix). ``None`` when the
        message must be decoded. A rule whose fix is cheap only on the neutral model
        leaves this as it is.
        """
        return None

    def find(self, conv: Conversation) -> list[Finding]:
        """Every candidate message the repair would change, with its fixed form."""
        found: list[Finding] = []
        for index in range(len(conv)):
            if not self.candidate(conv, conv.slots[index]):
                continue
            message = conv.message(index)
            fixed, problems = self.repair(conv, index, message)
            if problems:
                found.append(Finding(index, tuple(problems), fixed))
        return found

    def fix(self, conv: Conversation, found: Sequence[Finding]) -> Conversation:
        """Put each finding's fixed message in its place (or drop it)."""
        slots = list(conv.slots)
        for finding in reversed(found):
            assert finding.index is not None
            if finding.replacement is None:
                del slots[finding.index]
            else:
                old = slots[finding.index]
                slots[finding.index] = conv.slot_for(finding.replacement, like=old)
        return conv.with_slots(slots)


def settled(
    conv: Conversation, message: Message, before: Code, *, replayable: bool
) -> Message | None:
    """``message`` as the message rules ahead of ``before`` leave it; ``None`` if dropped.

    For a rule that builds one turn out of others (a merge): every message rule that runs
    before it repairs the built turn, judged ``replayable`` at the target or not, as each
    would have repaired such a turn in its place. The turns it was built from have passed
    those rules already, so only what the building changed (another model's turn merged
    in, texts whose signatures no longer line up) changes anything. A rule never names
    the others.
    """
    current: Message | None = message
    for rule in conv.ctx.rules:
        if rule.code == before or current is None:
            break
        if not isinstance(rule, MessageRule) or not rule.applies(conv.ctx):
            continue
        probe = conv.with_slots((conv.slot_for(current, verdict=replayable),))
        fixed, problems = rule.repair(probe, 0, current)
        if problems:
            current = fixed
    return current


def as_foreign(conv: Conversation, message: Message, before: Code) -> Message:
    """``message`` as the message rules ahead of ``before`` leave another model's turn.

    See :func:`settled`; a turn they would drop is kept as it is.
    """
    found = settled(conv, message, before, replayable=False)
    return message if found is None else found
