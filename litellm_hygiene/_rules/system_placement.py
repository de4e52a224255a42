"""A system message inside the conversation goes where the target's API takes it.

Claude Code sends ``role: "system"`` messages inside ``messages`` on ``/v1/messages``
(Claude's mid-conversation system messages: instructions that apply from that point on,
without touching the prompt cache of the turns before). Where the request's shape sends
them at their place (``Wire.system_in_place``), the target's API decides
(``Policy.inline_system``):

- Claude from Opus 4.8 on takes one right after a user turn (a tool result is one), never
  at the start (``system`` is for that) and never between a call's results. A system
  message right before results moves after them, still a system message: the results
  must follow their call, and the instruction then applies from there. One after an
  assistant turn, or after another system message, becomes a user note;
- older Claude models and Anthropic-compatible endpoints take none: each becomes a user
  note at its place (after the results right behind it).

A system message inside ``messages`` before the first turn is not Claude's either
(``messages.0: use the top-level 'system' parameter for the initial system prompt``): the
chat form the rules read cannot tell it from ``system``, so the shape's writer puts it
there, and reports it as this rule's change (:func:`lifted`).

A user note is a user message that says what it is (:data:`NOTE_PREFIX`) and keeps the
instruction's blocks as they were: the model reads it where the client put it, as a
note rather than with a system message's authority, and the turns before it are sent as
they were (moving it into ``system`` would change the prompt's head on every request,
and with it the prompt cache). The system messages before the first turn are
``system`` itself and always stay. On chat calls LiteLLM's converters lift every system
message into the system prompt for Claude, and ``turn_order`` moves them to the start
for Mistral: this rule is for the shapes that send them in place.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Final

from .._build import construct_unchecked
from .._content import TextContent
from .._messages import SystemMessage, UserMessage
from ._codes import Code
from ._conversation import Conversation, RuleContext, Slot
from ._findings import Change, Finding, Problem
from ._rule import Rule
from ._wording import ErrorKind

__all__ = ["NOTE_PREFIX", "SystemPlacement", "lifted"]

NOTE_PREFIX: Final = "System note: "
"""How a user note begins: the text of a note written as a string, else its own first
block (without the trailing space)."""

_AFTER: Final = frozenset({"user", "tool"})
"""The roles a mid-conversation system message may follow (Claude: a user turn)."""


def _first_turn(conv: Conversation) -> int:
    """The position of the first message that is not a system message."""
    for index, slot in enumerate(conv.slots):
        if slot.facts.role != "system":
            return index
    return len(conv.slots)


def _results_after(conv: Conversation, index: int) -> int:
    """The position after the run of tool results right behind ``index``."""
    end = index + 1
    while end < len(conv.slots) and conv.slots[end].facts.role == "tool":
        end += 1
    return end


def _verdict(conv: Conversation, index: int) -> ErrorKind | None:
    """What is wrong with the system message at ``index`` after the first turn."""
    if conv.ctx.policy.inline_system == "none":
        return "system_unsupported"
    before = conv.slots[index - 1].facts.role
    behind = conv.slots[index + 1].facts.role if index + 1 < len(conv.slots) else None
    if before in _AFTER and behind != "tool":
        return None
    return "system_misplaced"


class SystemPlacement(Rule):
    """Keep, move or rewrite system messages inside the conversation: see the module."""

    code: ClassVar[Code] = "system_placement"

    def applies(self, ctx: RuleContext) -> bool:
        """Only targets whose API limits where a system message may stand."""
        return ctx.policy.inline_system != "anywhere"

    def find(self, conv: Conversation) -> list[Finding]:
        """Each system message after the first turn that the target does not take there."""
        if not conv.wire.system_in_place:
            return []
        found: list[Finding] = []
        for index in range(_first_turn(conv), len(conv.slots)):
            if conv.slots[index].facts.role != "system":
                continue
            kind = _verdict(conv, index)
            if kind is None:
                continue
            if kind == "system_unsupported":
                reason = "a system message the target takes only in system sent as a user note"
            elif _moves(conv, index):
                reason = "a system message between a call's results moved after them"
            else:
                reason = "a system message not right after a user turn sent as a user note"
            found.append(Finding(index, (Problem("role", reason, kind),)))
        return found

    def fix(self, conv: Conversation, found: Sequence[Finding]) -> Conversation:
        """Each found system message after the results behind it, kept or as a note."""
        placed = {finding.index for finding in found}
        slots: list[Slot] = []
        waiting: list[Slot] = []  # to go after the results right behind them
        last = len(conv.slots) - 1
        for index, slot in enumerate(conv.slots):
            if index not in placed:
                slots.append(slot)
            elif _moves(conv, index):
                waiting.append(slot)
            else:
                waiting.append(conv.slot_for(_note(conv, index), like=slot))
            if waiting and (index == last or conv.facts(index + 1).role != "tool"):
                slots += waiting
                waiting = []
        return conv.with_slots(slots)


def _moves(conv: Conversation, index: int) -> bool:
    """A system message the target takes once moved after the results behind it."""
    if conv.ctx.policy.inline_system != "after_user":
        return False
    end = _results_after(conv, index)
    return end > index + 1 and (end == len(conv.slots) or conv.facts(end).role != "tool")


def _note(conv: Conversation, index: int) -> UserMessage:
    """The system message at ``index`` as a user note, its blocks as they were."""
    message = conv.message(index)
    assert isinstance(message, SystemMessage)
    if message.content_form == "string" and len(message.content) == 1:
        (block,) = message.content
        assert isinstance(block, TextContent)
        text = construct_unchecked(TextContent, text=NOTE_PREFIX + block.text)
        return construct_unchecked(UserMessage, content=(text,), content_form="string")
    head = construct_unchecked(TextContent, text=NOTE_PREFIX.rstrip())
    return construct_unchecked(UserMessage, content=(head, *message.content), content_form="list")


def lifted(indexes: Sequence[int]) -> list[Change]:
    """The changes of the system messages before the first turn written into ``system``.

    ``indexes``: their places in the request's ``messages``.
    """
    reason = "a system message before the first turn moved into system"
    return [Change("system_placement", index, reason) for index in indexes]
