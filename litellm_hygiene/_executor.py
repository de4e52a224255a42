"""The executor: reads a request's messages into slots and runs the rules over them.

:func:`read_slots` reads each wire message once into a slot; :func:`run_rules` runs the
rules whose target has their constraint, in pipeline order, find then fix; consecutive
message rules run as one walk over the messages (:func:`fix_messages`), each changed
message decoded and written once. Compiled with the rules (``hatch_build.py``): it is
the loop every request goes through.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, Final

from ._errors import ConfigurationError, InvalidMessageError
from ._messages import Message, OpaqueMessage
from ._recall import Seen, build, patchable
from ._rules import RULES
from ._rules._codes import Code
from ._rules._conversation import DECODED_BYTES, Conversation, RuleContext, Slot
from ._rules._findings import Change, Problem
from ._rules._rule import MessageRule, Rule
from ._view import Facts, Wire

__all__ = [
    "UNREAD",
    "fix_messages",
    "opaque_slot",
    "read_conversation",
    "read_slots",
    "run_rules",
    "unread_of",
]

UNREAD: Final = Facts("opaque")
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
    """One message at a time through consecutive message rules (see :func:`fix_messages`).

    When the request comes with what a recall remembers (``RuleContext.recall_key``),
    each caller's message that is not a user turn has its walk remembered (``Seen``)
    and replayed on the next request holding an equal message: a message rule judges a
    message on its own, from its content, its provenance and the target. (A user turn
    is walked each time: whether a blank one is the last user turn depends on the
    turns after it.)
    """

    def __init__(self, conv: Conversation, rules: Sequence[MessageRule]) -> None:
        self.conv = conv
        self.rules = rules
        self.changes: list[list[Change]] = [[] for _ in rules]
        self.codes: list[Code] = [rule.code for rule in rules]
        self.dropped = [0] * len(rules)
        self.drops: tuple[int, ...] = ()  # ``dropped`` as a tuple; ``()``: none yet
        self.touched = False
        key = conv.ctx.recall_key
        self.key = -1 if key is None else _walk_key(key, rules)

    def step(self, index: int, slot: Slot) -> Slot | None:
        """The message as the rules leave it; ``None`` when one drops it."""
        seen = slot.seen
        if seen is None or self.key < 0 or slot.facts.role == "user":
            return self._apply(index, slot, *self._walk(index, slot))
        restored = slot.restored
        # Most messages: no provenance restored, not failed; the walk's number is the key.
        key: Hashable = self.key
        if restored is not None or slot.failed:
            key = (key, restored, slot.failed)
        outcome: _Outcome | None = seen.outcome(key)
        if outcome is None:
            result, events, dropped_at = self._walk(index, slot)
            made = _Outcome.of(slot, result, events, dropped_at)
            if made is None:
                return self._apply(index, slot, result, events, dropped_at)
            seen.remember(key, made, made.size)
            if result is not None and result is not slot:
                # What later rules work out from the written message alone is
                # remembered with the outcome (``Conversation.remembered``).
                made.seen = result.seen = seen.child()
            outcome = made
        else:
            if outcome.verdict is not None:
                slot.verdict = outcome.verdict
            result = outcome.rebuilt(slot)
        if not outcome.events:
            return self._apply(index, slot, result, (), outcome.dropped_at)
        # Each change's position in its rule's input follows from ``index`` and the
        # messages each rule dropped before it: where both are as they were when the
        # records were made last time, those records are this request's.
        records = outcome.changes  # read once: another request may set it meanwhile
        drops = self.drops
        if records is None or records[0] != index or records[1] != drops:
            records = (index, drops, self._changes(index, outcome.events))
            outcome.changes = records
        for number, changes in records[2]:
            self.changes[number].extend(changes)
        return self._apply(index, slot, result, (), outcome.dropped_at)

    def _walk(self, index: int, slot: Slot) -> tuple[Slot | None, list[_Event], int]:
        """The message through the rules: the result, each rule's problems, who dropped it.

        Nothing of the walk's own is changed: :meth:`_apply` records it. ``-1``: no
        rule dropped it.
        """
        conv = self.conv
        events: list[_Event] = []
        now = slot  # the wire message as the rules so far left it
        current: Message | None = None  # ... or decoded, once a rule needed that
        for number, rule in enumerate(self.rules):
            if current is None:
                if not now.facts.flags & rule.flags or not rule.candidate(conv, now):
                    continue
                # A message already decoded (the neutral pipeline's) is repaired decoded.
                edited = rule.edit(conv, index, now) if now.message is None else None
                if edited is not None:
                    raw, problems, facts = edited
                    if problems:
                        events.append((number, problems))
                        now = conv.edited(now, raw, facts)
                    continue
                message = conv.message(index) if now is slot else conv.wire.decode(now.raw, index)
            else:
                message = current
            fixed, problems = rule.repair(conv, index, message)
            if not problems:
                continue
            events.append((number, problems))
            if fixed is None:
                return None, events, number
            current = fixed
        if current is not None:
            return conv.slot_for(current, like=slot), events, -1
        return now, events, -1

    def _apply(
        self, index: int, slot: Slot, result: Slot | None, events: Sequence[_Event], dropped_at: int
    ) -> Slot | None:
        """Record a walk's problems at the positions each rule's input had the message."""
        dropped = self.dropped
        if events:
            for number, changes in self._changes(index, events):
                self.changes[number].extend(changes)
        if dropped_at >= 0:
            dropped[dropped_at] += 1
            self.drops = tuple(dropped)
            self.touched = True
            return None
        self.touched |= result is not slot
        return result

    def _changes(self, index: int, events: Sequence[_Event]) -> list[tuple[int, list[Change]]]:
        """Each rule's changes for a walk's problems, at the position its input had them."""
        dropped = self.dropped
        made: list[tuple[int, list[Change]]] = []
        for number, problems in events:
            position = index
            for before in range(number):
                position -= dropped[before]
            code = self.codes[number]
            made.append((number, [Change(code, position, problem.reason) for problem in problems]))
        return made


_WALK_KEYS: Final[dict[tuple[int, tuple[str, ...]], int]] = {}
"""A number for each recall key and run of message rules: what a walk's outcome is
remembered by (a number: hashed at once, where the pair is hashed element by element).
Bounded: emptied when full; a number is never given twice."""
_NUMBERS: Final = itertools.count()
_WALK_LIMIT: Final = 4096


def _walk_key(key: int, rules: Sequence[MessageRule]) -> int:
    """The number of the walk of ``rules`` under recall key ``key`` (see :data:`_WALK_KEYS`)."""
    full = (key, tuple(rule.code for rule in rules))
    found = _WALK_KEYS.get(full)
    if found is None:
        if len(_WALK_KEYS) >= _WALK_LIMIT:
            _WALK_KEYS.clear()
        found = _WALK_KEYS.setdefault(full, next(_NUMBERS))
    return found


_Event = tuple[int, Sequence[Problem]]
"""A rule's problems with one message: the rule's number in the walk, its problems."""


class _Outcome:
    """A remembered walk of one message: rebuilt for each request holding it again.

    Attributes:
        events: Each rule's problems, in order.
        dropped_at: The rule that dropped the message (``-1``: none).
        verdict: The message's provenance verdict, when the walk judged it.
        recipe: How to rebuild the written message from the request's (``_recall``);
            ``None`` when the walk left the message as it was, or dropped it.
        facts, message, result_verdict, failed: The written message's slot.
        seen: What is remembered of the written message (a part of the caller's
            message's ``Seen``), carried by each slot rebuilt from the outcome.
        size: Estimated bytes held.
        changes: The change records last made of :attr:`events`, with the position
            they were made at and the messages each rule had dropped before it
            (records, no content: a request where both are the same counts the same
            ones).
    """

    __slots__ = (
        "changes",
        "dropped_at",
        "events",
        "facts",
        "failed",
        "message",
        "recipe",
        "result_verdict",
        "seen",
        "size",
        "verdict",
    )

    def __init__(
        self,
        events: Sequence[_Event],
        dropped_at: int,
        verdict: bool | None,
        recipe: Any,
        result: Slot | None,
        size: int,
    ) -> None:
        self.events = events
        self.dropped_at = dropped_at
        self.verdict = verdict
        self.recipe = recipe
        self.facts = None if result is None else result.facts
        self.message = None if result is None else result.message
        self.result_verdict = None if result is None else result.verdict
        self.failed = False if result is None else result.failed
        self.seen: Seen | None = None
        self.size = size
        self.changes: tuple[int, tuple[int, ...], list[tuple[int, list[Change]]]] | None = None

    @staticmethod
    def of(
        slot: Slot, result: Slot | None, events: Sequence[_Event], dropped_at: int
    ) -> _Outcome | None:
        """The outcome of ``slot``'s walk; ``None`` when it cannot be rebuilt later."""
        size = 64 + 64 * len(events)
        if result is None or result is slot:
            return _Outcome(events, dropped_at, slot.verdict, None, None, size)
        made = patchable(result.raw, slot.raw)
        if made is None:
            return None
        recipe, written = made
        if result.message is not None:
            size += DECODED_BYTES  # the neutral message the walk decoded, kept with it
        return _Outcome(events, dropped_at, slot.verdict, recipe, result, size + written)

    def rebuilt(self, slot: Slot) -> Slot | None:
        """The walk's result for ``slot``, a message equal to the one remembered."""
        if self.dropped_at >= 0:
            return None
        if self.recipe is None:
            return slot
        raw = build(self.recipe, slot.raw)
        facts = self.facts
        assert facts is not None  # a result was written: its facts were kept with it
        rebuilt = Slot(raw, facts, self.message, verdict=self.result_verdict, failed=self.failed)
        rebuilt.seen = self.seen
        return rebuilt


def read_conversation(
    messages: Sequence[Any],
    ctx: RuleContext,
    wire: Wire,
    params: Mapping[str, Any] | None = None,
    on_error: Callable[[InvalidMessageError], None] | None = None,
    seen: Sequence[Seen] | None = None,
) -> Conversation:
    """The caller's messages (and parameters) as the rules read them: the core's read.

    Each message is read once (:func:`read_slots`, whose ``on_error`` and ``seen`` these
    are). ``wire``: the shape they are read in (chat messages of another request shape
    state that shape's wire facts, see ``_anthropic._wire``). The public functions
    (``_sanitize``) and the integration read through here.

    Raises:
        ConfigurationError: ``messages`` is not a list, or ``params`` not a mapping.
        InvalidMessageError: A message cannot be read (``on_error`` not given).
    """
    if not (isinstance(messages, list) or isinstance(messages, tuple)):
        raise ConfigurationError(f"messages must be a list, got {type(messages).__name__}")
    slots = read_slots(messages, ctx, wire, on_error, seen)
    if params is None:
        return Conversation(slots, ctx, wire)
    if not isinstance(params, Mapping):
        raise ConfigurationError(f"params must be a mapping, got {type(params).__name__}")
    return Conversation(slots, ctx, wire, params)


def read_slots(
    messages: Sequence[Any],
    ctx: RuleContext,
    wire: Wire,
    on_error: Callable[[InvalidMessageError], None] | None = None,
    seen: Sequence[Seen] | None = None,
) -> list[Slot]:
    """One slot per wire message, each read once.

    Args:
        messages: The caller's wire messages.
        ctx: The target's context.
        wire: Their shape.
        on_error: Called for an unreadable message, which is then kept at its place,
            as it came (:func:`opaque_slot`): no rule looks into it, and the rules work
            on the rest. Without it, the error is raised.
        seen: What a recall remembers of each message (``_recall.Aligned.seen``), with
            ``ctx.recall_key`` set: facts read under that key are not read again, and
            each slot carries its message's ``Seen`` for the rules' walks.
    """
    if seen is not None and ctx.recall_key is not None:
        return _recalled_slots(messages, ctx, wire, on_error, seen)
    slots: list[Slot] = []
    plan = ctx.plan
    read = wire.facts
    for index, raw in enumerate(messages):
        try:
            facts = read(raw, index, plan)
        except InvalidMessageError as err:
            slots.append(_unread(raw, index, err, on_error))
            continue
        slots.append(Slot(raw, facts, None, index))
    return slots


def _recalled_slots(
    messages: Sequence[Any],
    ctx: RuleContext,
    wire: Wire,
    on_error: Callable[[InvalidMessageError], None] | None,
    seen: Sequence[Seen],
) -> list[Slot]:
    """:func:`read_slots` with what a recall remembers of each message."""
    slots: list[Slot] = []
    plan = ctx.plan
    read = wire.facts
    key = ctx.recall_key
    assert key is not None  # read_slots asked for it
    known_of: list[Seen] = seen if isinstance(seen, list) else list(seen)  # read directly
    for index, raw in enumerate(messages):
        known = known_of[index]
        remembered = known.facts  # (key, facts): read as one, as another thread sets it
        if remembered is not None and remembered[0] == key:
            facts = remembered[1]
        else:
            try:
                facts = read(raw, index, plan)
            except InvalidMessageError as err:
                slots.append(_unread(raw, index, err, on_error))
                continue
            known.facts = (key, facts)
        slot = Slot(raw, facts, None, index)
        slot.seen = known
        slots.append(slot)
    return slots


def _unread(
    raw: Any,
    index: int,
    err: InvalidMessageError,
    on_error: Callable[[InvalidMessageError], None] | None,
) -> Slot:
    """An unreadable message's slot, ``on_error`` told; without it, ``err`` is raised."""
    if on_error is None:
        raise err
    on_error(err)
    return opaque_slot(raw, index, err)


def opaque_slot(raw: Any, index: int, err: InvalidMessageError) -> Slot:
    """The slot of a message that cannot be read: kept as it came, never decoded."""
    message = OpaqueMessage(raw=raw, field=err.field, reason=err.reason)
    return Slot(raw, UNREAD, message, index)


def unread_of(conv: Conversation) -> tuple[str, ...]:
    """Why each message of ``conv`` kept as it came could not be read.

    Every request asks: a slot's facts are compared by identity first (an unreadable
    message's are ``UNREAD``), a pydantic ``isinstance`` costing a metaclass call.
    """
    reasons: list[str] = []
    unread = UNREAD
    for slot in conv.slots:
        if slot.facts is unread:
            message = slot.message
            if isinstance(message, OpaqueMessage):
                reasons.append(f"messages[{slot.origin}].{message.field}: {message.reason}")
    return tuple(reasons)
