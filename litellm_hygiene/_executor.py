"""The executor: reads a request's messages into slots and runs the rules over them.

:func:`read_slots` reads each wire message once into a slot; :func:`run_rules` runs the
rules whose target has their constraint, in pipeline order, find then fix; consecutive
message rules run as one walk over the messages (:func:`fix_messages`), each changed
message decoded and written once. Compiled with the rules (``hatch_build.py``): it is
the loop every request goes through.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ._errors import InvalidMessageError
from ._messages import Message, OpaqueMessage
from ._rules import RULES
from ._rules._conversation import Conversation, RuleContext, Slot
from ._rules._findings import Change, Problem
from ._rules._rule import MessageRule, Rule
from ._view import Facts, Wire

__all__ = ["UNREAD", "fix_messages", "opaque_slot", "read_slots", "run_rules"]

UNREAD = Facts("opaque")
"""The facts of a message no reader could read: no flag, no call, no result."""


def run_rules(
    conv: Conversation, among: Sequence[Rule] = RULES
) -> tuple[Conversation, list[Change]]:
    """Find and fix, rule by rule, in pipeline order (``among``: a subset of the rules).

    Consecutive message rules run as one walk (:func:`fix_messages`), which gives what
    running them one by one gives, with each changed message decoded and written once.
    """
    changes: list[Change] = []
    rules = [rule for rule in among if rule.applies(conv.ctx)]
    start = 0
    while start < len(rules):
        rule = rules[start]
        if isinstance(rule, MessageRule):
            end = start
            while end < len(rules) and isinstance(rules[end], MessageRule):
                end += 1
            group: list[MessageRule] = rules[start:end]  # type: ignore[assignment]
            conv, found_changes = fix_messages(conv, group)
            changes += found_changes
            start = end
            continue
        found = rule.find(conv)
        if found:
            changes += [
                Change(rule.code, finding.index, problem.reason)
                for finding in found
                for problem in finding.problems
            ]
            conv = rule.fix(conv, found)
        start += 1
    return conv, changes


def fix_messages(
    conv: Conversation, rules: Sequence[MessageRule]
) -> tuple[Conversation, list[Change]]:
    """Find and fix consecutive message rules in one walk over the conversation.

    The result is that of running each rule's find then fix in turn, because a message
    rule judges each message on its own: every message goes through the rules in
    order, each rule sees it as the rules before it left it, and the changes are
    reported per rule, at the positions that rule's input had them. A message no rule
    changes is looked at through its facts only; a changed one is edited on the wire
    where the rules can (:meth:`MessageRule.edit`), else decoded once and written once,
    however many rules change it.
    """
    present = 0
    for slot in conv.slots:
        present |= slot.facts.flags
    wanted = 0
    for rule in rules:
        wanted |= rule.flags
    if not present & wanted:
        return conv, []  # no message is a candidate for any of them
    walk = _Walk(conv, rules)
    slots = [
        kept
        for index, slot in enumerate(conv.slots)
        # A message with none of the rules' flags is no rule's candidate: it stays.
        if (kept := walk.step(index, slot) if slot.facts.flags & wanted else slot)
    ]
    if not walk.touched:
        return conv, []
    return conv.with_slots(slots), [change for found in walk.changes for change in found]


class _Walk:
    """One message at a time through consecutive message rules (see :func:`fix_messages`)."""

    def __init__(self, conv: Conversation, rules: Sequence[MessageRule]) -> None:
        self.conv = conv
        self.rules = rules
        self.changes: list[list[Change]] = [[] for _ in rules]
        self.dropped = [0] * len(rules)
        self.touched = False

    def step(self, index: int, slot: Slot) -> Slot | None:
        """The message as the rules leave it; ``None`` when one drops it."""
        conv = self.conv
        now = slot  # the wire message as the rules so far left it
        current: Message | None = None  # ... or decoded, once a rule needed that
        before = 0
        for number, rule in enumerate(self.rules):
            position = index - before
            before += self.dropped[number]
            if current is None:
                if not now.facts.flags & rule.flags or not rule.candidate(conv, now):
                    continue
                # A message already decoded (the neutral pipeline's) is repaired decoded.
                edited = rule.edit(conv, index, now) if now.message is None else None
                if edited is not None:
                    raw, problems, facts = edited
                    if problems:
                        self._record(number, position, problems)
                        now = conv.edited(now, raw, facts)
                    continue
                message = conv.message(index) if now is slot else conv.wire.decode(now.raw, index)
            else:
                message = current
            fixed, problems = rule.repair(conv, index, message)
            if not problems:
                continue
            self._record(number, position, problems)
            if fixed is None:
                self.dropped[number] += 1
                self.touched = True
                return None
            current = fixed
        if current is not None:
            self.touched = True
            return conv.slot_for(current, like=slot)
        self.touched |= now is not slot
        return now

    def _record(self, number: int, position: int, problems: Sequence[Problem]) -> None:
        code = self.rules[number].code
        self.changes[number] += [Change(code, position, p.reason) for p in problems]


def read_slots(
    messages: Sequence[Any],
    ctx: RuleContext,
    wire: Wire,
    on_error: Callable[[InvalidMessageError], None] | None = None,
) -> list[Slot]:
    """One slot per wire message, each read once.

    Args:
        messages: The caller's wire messages.
        ctx: The target's context.
        wire: Their shape.
        on_error: Called for an unreadable message, which is then kept at its place,
            as it came (:func:`opaque_slot`): no rule looks into it, and the rules work
            on the rest. Without it, the error is raised.
    """
    slots: list[Slot] = []
    plan = ctx.plan
    read = wire.facts
    for index, raw in enumerate(messages):
        try:
            facts = read(raw, index, plan)
        except InvalidMessageError as err:
            if on_error is None:
                raise
            on_error(err)
            slots.append(opaque_slot(raw, index, err))
            continue
        slots.append(Slot(raw, facts, None, index))
    return slots


def opaque_slot(raw: Any, index: int, err: InvalidMessageError) -> Slot:
    """The slot of a message that cannot be read: kept as it came, never decoded."""
    message = OpaqueMessage(raw=raw, field=err.field, reason=err.reason)
    return Slot(raw, UNREAD, message, index)
