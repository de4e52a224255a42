"""What every rule is made of, and the conversation the rules read and rewrite.

A rule (one module of :mod:`litellm_hygiene._rules`) states one provider constraint:
its :data:`~litellm_hygiene._rules._codes.Code`, when it applies, how to find the places
that break it (:meth:`Rule.find`), how to fix exactly those places (:meth:`Rule.fix`),
and what each provider says when it is broken (its wording table). The validator
reports what :meth:`Rule.find` finds; the pipeline runs find then fix, rule by rule;
a request goes out untouched exactly when no rule finds anything, because a fix given
nothing to fix is never called.

Rules read a :class:`Conversation`: one :class:`Slot` per message holding the wire
message, its :class:`~litellm_hygiene._openai._facts.Facts` (read once), and the decoded
neutral message, built only when a rule asks for it. A fix returns a new conversation
that shares every slot it did not touch.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, Protocol, TypeVar

from .._errors import InvalidMessageError
from .._messages import Api, AssistantMessage, Message
from .._openai._decode import Stamp
from .._openai._edits import PlainTurn
from .._openai._facts import STAMPED, Facts, WirePlan
from .._policy import Policy
from .._target import TargetModel
from ._codes import Code
from ._wording import ErrorKind, PathKind, WordingTable

__all__ = [
    "Change",
    "Conversation",
    "Finding",
    "MessageRule",
    "Problem",
    "Rule",
    "RuleContext",
    "Slot",
    "Wire",
    "Wording",
    "fix_messages",
    "read_slots",
]

_NO_VALUES: Mapping[str, Any] = MappingProxyType({})


_T = TypeVar("_T")

Wording = WordingTable
"""What each provider family says when a rule is broken, by kind of breakage; the
templates name wire positions (see :mod:`litellm_hygiene._rules._wording`)."""


class Wire(Protocol):
    """One wire shape of messages, as the rules need it read and written.

    The rules never read a wire message themselves; any shape that implements this
    (OpenAI's, or a test's own) runs through the same rules.
    """

    def facts(self, raw: Any, index: int, plan: WirePlan) -> Facts:
        """What the rules read of one message; raises ``InvalidMessageError``."""

    def decode(self, raw: Any, index: int) -> Message:
        """The neutral message."""

    def encode(self, message: Message) -> Any:
        """The wire message of a neutral one."""

    def stamp(self, raw: Any) -> Stamp | None:
        """The well-formed provenance stamp, if any."""

    def unstamped(self, raw: Any) -> Any:
        """A copy without the provenance stamp (sharing every other value)."""

    def with_ids(self, raw: Any, calls: Mapping[int, str], result: str | None) -> Any:
        """A copy with new ids, every other value shared.

        ``calls`` maps a call's position (in its facts) to its new id as given;
        ``result``, when given, is a result's new id.
        """

    def arguments(self, raw: Any) -> list[Any]:
        """Each call's arguments as given, in the order of its facts' calls."""

    def signatures(self, raw: Any) -> list[Any]:
        """Every value an assistant message holds where a signature travels.

        An empty place gives nothing; each entry of a list of signatures is a value.
        """

    def evidence(self, raw: Any) -> frozenset[Api]:
        """Protocols an assistant message's content says it came from."""

    def plain_turn(self, raw: Any) -> PlainTurn | None:
        """A plain assistant message's thinking, string content and call signatures.

        ``None`` when it holds more than those and what passes through: decode it.
        """

    def with_reasoning(self, raw: Any, text: str | None, form: str, unsign: Sequence[bool]) -> Any:
        """A plain turn without its thinking, with ``text`` as its content.

        ``None`` is no content, written as ``form`` says. The marked calls lose their
        signatures; every other value is shared.
        """

    def leading_block(self, raw: Any, api: Api) -> str | None:
        """What an assistant message starts with once converted for ``api``.

        ``"thinking"`` (a block the model signed), ``"text"`` or ``"tool_use"``;
        ``None`` when it sends nothing there (or the shape does not know ``api``).
        Consecutive assistant messages are sent as one turn, their blocks in order.
        """

    def plain_fields(self, raw: Any) -> frozenset[str] | None:
        """The response-only keys of a message where each is only a key to remove.

        ``None`` when removing one means more than removing its key: decode it.
        """

    def with_keys_removed(self, raw: Any, keys: frozenset[str]) -> Any:
        """A copy without ``keys``, every other value shared."""


class Problem:
    """One place in one message that breaks a rule, without message content.

    A plain record, like :class:`Finding`, compared and hashed by value. Written out
    rather than a dataclass: a dataclass field needs a default factory for a mapping,
    and with one the compiled build runs the dataclass's own ``__init__``, in Python
    (0.6 µs a problem, and a cross-model request has one per renamed id).

    Attributes:
        field: Path inside the message (``tool_calls[0].id``); empty for all of it.
        reason: What is wrong (or what the fix did), in words; never message text,
            keys or signatures.
        kind: Which of the rule's provider wordings applies; ``None`` when no provider
            is known to reject it (the rule is hygiene's own, or LiteLLM copes).
        path: Which field the wording's ``{where}`` names.
        local: The block's position inside the message (for wire positions).
        call: The tool call's position, counted after the blocks written before calls.
        values: Fill-ins for the wording (``id``, ``limit``...).
    """

    __slots__ = ("call", "field", "kind", "local", "path", "reason", "values")

    def __init__(
        self,
        field: str,
        reason: str,
        kind: ErrorKind | None = None,
        path: PathKind | None = None,
        local: int = 0,
        call: int | None = None,
        values: Mapping[str, Any] = _NO_VALUES,
    ) -> None:
        """Hold one problem's place, reason and wording fill-ins."""
        self.field = field
        self.reason = reason
        self.kind = kind
        self.path = path
        self.local = local
        self.call = call
        self.values = values

    def _fields(self) -> tuple[Any, ...]:
        return (self.field, self.reason, self.kind, self.path, self.local, self.call, self.values)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Problem):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        names = ("field", "reason", "kind", "path", "local", "call", "values")
        shown = ", ".join(f"{n}={v!r}" for n, v in zip(names, self._fields(), strict=True))
        return f"Problem({shown})"


_KEEP: Any = object()


# Finding and Change are records no code changes once built, yet not frozen: a frozen
# dataclass sets each field through object.__setattr__, which the compiled build cannot
# make native (0.33 µs a record against 0.1 µs), and a Mistral request builds about
# 2,000 of them. unsafe_hash keeps them hashable, by value, as frozen ones were.
@dataclass(slots=True, unsafe_hash=True)
class Finding:
    """What a rule found at one message: its problems, and what its fix will put there.

    Attributes:
        index: The message's position in the conversation the rule read (``None``
            for the request as a whole).
        problems: Every place in it that breaks the rule.
        replacement: For rules that fix one message at a time: the fixed message
            (``None`` drops it), worked out while finding so the fix is not computed
            twice.
    """

    index: int | None
    problems: tuple[Problem, ...]
    replacement: Any = _KEEP


@dataclass(slots=True, unsafe_hash=True)
class Change:
    """One thing the pipeline changed, without message content.

    Attributes:
        kind: The rule that made it (its code).
        index: Position of the message in that rule's input, when there is one.
        detail: What was done, in words; never message text, keys or signatures.
    """

    kind: Code
    index: int | None = None
    detail: str = ""


@dataclass(frozen=True)
class RuleContext:
    """The target a request goes to, what it requires, and how the wire treats it.

    Attributes:
        target: The resolved model.
        policy: Its family's policy (or the caller's override).
        plan: What LiteLLM does with ids and signatures for it.
        source: The declared producer of assistant turns with no provenance.
    """

    target: TargetModel
    policy: Policy
    plan: WirePlan
    source: TargetModel | None = None
    _kept: dict[Hashable, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def kept(self, key: Hashable, build: Callable[[], _T]) -> _T:
        """A value built once per request (a check cache a rule's find and fix share)."""
        found = self._kept.get(key)
        if found is None:
            found = self._kept[key] = build()
        return found

    def same_model(self, provider: str | None, api: Api, model: str) -> bool:
        """``target.is_same_model``, worked out once per producer in a request."""
        # Asked once per thinking turn: looked up without building a closure each time.
        key = (provider, api, model)
        found = self._kept.get(key)
        if found is None:
            found = self._kept[key] = self.target.is_same_model(provider, api, model)
        return bool(found)


class Slot:
    """One message of a conversation: wire form, facts, neutral form, provenance.

    The wire form and the facts are always there; the neutral message is decoded the
    first time a rule asks. ``origin`` is the caller's index while the message is the
    caller's own; ``verdict`` caches whether its opaque data may be replayed;
    ``restored`` is a provenance stamp the caller's message lost and the integration's
    store gave back, read as a stamp on the message would be (the message is not
    copied to carry it); ``contradicted`` caches whether its own content says it came
    from another protocol than the target's.
    """

    __slots__ = (
        "contradicted",
        "facts",
        "failed",
        "message",
        "origin",
        "raw",
        "restored",
        "verdict",
    )

    def __init__(
        self,
        raw: Any,
        facts: Facts,
        message: Message | None = None,
        origin: int | None = None,
        *,
        verdict: bool | None = None,
        failed: bool = False,
        restored: Stamp | None = None,
    ) -> None:
        """Hold one message; ``message`` when it is already decoded."""
        self.raw = raw
        self.facts = facts
        self.message = message
        self.origin = origin
        self.verdict = verdict
        self.failed = failed
        self.restored = restored
        self.contradicted: bool | None = None


class Conversation:
    """The messages of one request for one target, as the rules see them.

    Never mutated once a rule has it: a fix builds a new one (:meth:`with_slots`,
    :meth:`with_params`) sharing what it did not touch.

    Attributes:
        slots: One per message, in order.
        ctx: The target's context.
        wire: The messages' wire shape.
        params: The request's other parameters that rules read (``thinking``...: each
            rule names its own in :attr:`Rule.params`), as the caller gave them; a rule
            whose constraint spans messages and parameters fixes it here. Empty when the
            caller passed none.
    """

    __slots__ = ("ctx", "params", "slots", "wire")

    def __init__(
        self,
        slots: Sequence[Slot],
        ctx: RuleContext,
        wire: Wire,
        params: Mapping[str, Any] = _NO_VALUES,
    ) -> None:
        """Hold the slots, the target's context, the wire shape and the parameters."""
        self.slots = tuple(slots)
        self.ctx = ctx
        self.wire = wire
        self.params = params

    def __len__(self) -> int:
        return len(self.slots)

    def facts(self, index: int) -> Facts:
        """The facts of message ``index``."""
        return self.slots[index].facts

    def message(self, index: int) -> Message:
        """The neutral message at ``index``, decoded on first use."""
        slot = self.slots[index]
        if slot.message is None:
            slot.message = self.wire.decode(slot.raw, index if slot.origin is None else slot.origin)
        return slot.message

    def replayable(self, index: int) -> bool:
        """May the opaque provider data of assistant turn ``index`` go to the target?

        The declared provenance decides first: what the neutral message carries (a
        stamp, or a caller's attribution), else the stamp on the wire message, else the
        declared source model; with none, the policy's ``unknown_provenance``. A turn
        declared (or, by ``match_evidence``, presumed) same-model must also not
        contradict itself: evidence in its own content (id shapes, signatures) that
        points at another protocol makes it foreign. Worked out once per turn, on the
        turn as the caller sent it, and carried along when a rule rewrites the turn.
        """
        return self.judged(self.slots[index])

    def judged(self, slot: Slot) -> bool:
        """:meth:`replayable` of a slot of this conversation (or a wire edit of one)."""
        if slot.verdict is None:
            slot.verdict = self._judge(slot)
        return slot.verdict

    def _judge(self, slot: Slot) -> bool:
        return self._verdict(slot, self._declared(slot))

    def _verdict(self, slot: Slot, declared: bool | None) -> bool:
        """The turn's verdict when its provenance declares ``declared`` (``None``: none)."""
        policy = self.ctx.policy
        if declared is None:
            if policy.unknown_provenance != "match_evidence":
                return policy.unknown_provenance == "same"
        elif not declared:
            return False
        # The turn's own content has the last word: opaque data whose shape says another
        # protocol is not replayed, whatever the turn claims. Without this, the output
        # (which carries no stamp) would be judged differently on its next request.
        return not self._contradicted(slot)

    def _contradicted(self, slot: Slot) -> bool:
        """Whether the turn's own content says it came from another protocol."""
        found = slot.contradicted
        if found is None:
            found = slot.contradicted = self._evidence_against(slot)
        return found

    def _evidence_against(self, slot: Slot) -> bool:
        target = self.ctx.target
        found = self.wire.evidence(slot.raw)
        if not found or target.api in found:
            return False
        # Mistral models keep Mistral's id shape behind any router; the ids hygiene gives
        # a Mistral target have it too, so its output is judged alike on the next run.
        return not (target.family == "mistral" and "mistral" in found)

    def provenance_matters(self, slot: Slot) -> bool:
        """Whether some provenance given to this turn would change its verdict.

        Asked before looking the turn up in a provenance store: the turn is judged
        (:meth:`_verdict`) as declared nothing, another model's and this model's. Where
        all three agree (its own content says another protocol, say) the verdict is
        settled here, and the lookup can be skipped.
        """
        nothing = self._verdict(slot, None)
        if self._verdict(slot, False) != nothing or self._verdict(slot, True) != nothing:
            return True
        slot.verdict = nothing
        return False

    def _declared(self, slot: Slot) -> bool | None:
        """The verdict of the provenance the turn or the caller declares; ``None``: none."""
        ctx = self.ctx
        message = slot.message
        # The same test of a declaration for a decoded turn as for a stamp on the wire.
        if (
            isinstance(message, AssistantMessage)
            and message.api is not None
            and message.model is not None
        ):
            return ctx.same_model(message.provider, message.api, message.model)
        stamp = slot.restored
        if stamp is None and message is None and slot.facts.flags & STAMPED:
            stamp = self.wire.stamp(slot.raw)
        if stamp is not None:
            provider, api, model = stamp
            if api is not None and model is not None:
                return ctx.same_model(provider, api, model)
        source = ctx.source
        if source is not None:
            return ctx.same_model(source.provider, source.api, source.model_id)
        return None

    def slot_for(
        self, message: Message, *, like: Slot | None = None, verdict: bool | None = None
    ) -> Slot:
        """A new slot for ``message``, taking provenance from ``like`` when given.

        The verdict of the slot it replaces is settled first: provenance is judged on
        what the caller sent, never on what a rule has rewritten.
        """
        if like is not None and verdict is None:
            if like.facts.role == "assistant":
                verdict = like.verdict
                if verdict is None:
                    verdict = like.verdict = self._judge(like)
        raw = self.wire.encode(message)
        facts = self.wire.facts(raw, 0, self.ctx.plan)
        failed = like.failed if like is not None else False
        return Slot(raw, facts, message, verdict=verdict, failed=failed)

    def edited(self, slot: Slot, raw: Any, facts: Facts | None = None) -> Slot:
        """A new slot for ``raw``, a wire edit of ``slot``'s message (same provenance).

        ``facts``: the edited message's facts, when the edit says what they are;
        otherwise they are read.
        """
        if slot.facts.role == "assistant" and slot.verdict is None:
            slot.verdict = self._judge(slot)
        if facts is None:
            facts = self.wire.facts(raw, 0, self.ctx.plan)
        return Slot(raw, facts, verdict=slot.verdict, failed=slot.failed)

    def with_slots(self, slots: Sequence[Slot]) -> Conversation:
        """A conversation of ``slots`` for the same target (and the same parameters)."""
        return Conversation(slots, self.ctx, self.wire, self.params)

    def with_params(self, params: Mapping[str, Any]) -> Conversation:
        """The same messages sent with other request parameters."""
        return Conversation(self.slots, self.ctx, self.wire, params)

    def dropped_params(self, given: Mapping[str, Any]) -> tuple[str, ...]:
        """The names of ``given`` (the parameters read) that a rule removed here."""
        return tuple(name for name in given if name not in self.params)


class Rule:
    """One provider constraint: its code, when it applies, find, fix and wording.

    Attributes:
        code: The stable name of the constraint (also the change kind and violation
            code).
        wording: What each provider says when the constraint is broken.
        params: The request parameters the rule reads besides the messages (see
            :attr:`Conversation.params`); the integration hands the rules exactly these.
    """

    code: ClassVar[Code]
    wording: ClassVar[Wording] = {}
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

WireRepair = tuple[Any, list[Problem]]
"""A message rule's repair made on the wire: the new wire message, and the problems."""


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
                    raw, problems = edited
                    if problems:
                        self._record(number, position, problems)
                        now = conv.edited(now, raw)
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
        on_error: Called for an unreadable message, which is then left out; without
            it, the error is raised.
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
            continue
        slots.append(Slot(raw, facts, None, index))
    return slots
