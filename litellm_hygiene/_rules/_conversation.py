"""The conversation the rules read and rewrite, and the target they read it for.

Rules read a :class:`Conversation`: one :class:`Slot` per message holding the wire
message, its :class:`~litellm_hygiene._view.Facts` (read once), and the decoded
neutral message, built only when a rule asks for it; and a :class:`RuleContext`: the
target, its policy, LiteLLM's id plan for it, and whose turns are replayable there. A
fix returns a new conversation that shares every slot it did not touch.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final, TypeVar

from .._messages import Api, AssistantMessage, Message
from .._policy import Policy
from .._recall import resumed, unwalked, walked
from .._target import TargetModel
from .._view import STAMPED, Facts, Stamp, Wire, WirePlan

__all__ = ["DECODED_BYTES", "Conversation", "RuleContext", "Slot", "raws_of", "seen_of"]

_T = TypeVar("_T")

DECODED_BYTES: Final = 4000
"""Estimated bytes of a decoded agent turn (its neutral message and blocks), as a
recall counts one it keeps (``Conversation.remembered``, the executor's walks)."""
_EDITED_BYTES: Final = 600
"""Estimated bytes of what a recall keeps of a message's edit by id (its facts and
``Seen``, :meth:`Conversation.with_ids`), beside what its ``Seen`` then holds."""
_NO_PARAMS: Final[Mapping[str, Any]] = MappingProxyType({})
_WALKED: Final = "walked"
"""What a recall keeps a rule's walk state under (:meth:`Conversation.walked`)."""
_IDS: Final = "ids"
"""What a recall keeps a message's edit by id under (:meth:`Conversation.with_ids`): the
latest one's ids, the edited message's facts and its ``Seen``."""
_STATE_BYTES: Final = 64
"""Estimated bytes of a remembered walk state beside what it holds (one per slot read)."""


@dataclass(frozen=True)
class RuleContext:
    """The target a request goes to, what it requires, and how the wire treats it.

    Attributes:
        target: The resolved model.
        policy: Its family's policy (or the caller's override).
        plan: What LiteLLM does with ids and signatures for it.
        source: The declared producer of assistant turns with no provenance.
        rules: The pipeline's rules, in order: a rule that builds a turn out of others
            has the message rules ahead of it settle the turn (``_rule.as_foreign``),
            without naming them.
        recall_key: Stands for everything above when the request's messages come with
            what a :class:`~litellm_hygiene._recall.Recall` remembers of them (each
            slot's ``seen``): what is remembered under it holds for this context.
    """

    target: TargetModel
    policy: Policy
    plan: WirePlan
    source: TargetModel | None = None
    rules: tuple[Any, ...] = ()
    recall_key: int | None = None
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
    from another protocol than the target's; ``seen`` is what a recall remembers of the
    caller's message (``_recall.Seen``), on the caller's own slots, and on a slot the
    message rules' remembered walk made of one (a part of its ``Seen``), only: any other
    new slot has none.
    """

    __slots__ = (
        "contradicted",
        "facts",
        "failed",
        "message",
        "origin",
        "raw",
        "restored",
        "seen",
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
        self.seen: Any = None


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

    __slots__ = ("_facts", "ctx", "params", "slots", "wire")

    def __init__(
        self,
        slots: Sequence[Slot],
        ctx: RuleContext,
        wire: Wire,
        params: Mapping[str, Any] = _NO_PARAMS,
    ) -> None:
        """Hold the slots, the target's context, the wire shape and the parameters."""
        self.slots = tuple(slots)
        self.ctx = ctx
        self.wire = wire
        self.params = params
        self._facts: list[Facts] | None = None

    def __len__(self) -> int:
        return len(self.slots)

    def facts(self, index: int) -> Facts:
        """The facts of message ``index``."""
        return self.slots[index].facts

    def resumed(self, name: str) -> tuple[int, Any] | None:
        """Where the walk ``name`` can resume: the slots it need not read, and its state.

        For a rule that reads the conversation as a walk from the first slot on, each
        step from one slot's facts and the state the steps before it left (what it
        finds at a slot never depends on the slots after it). The walk of an earlier
        request of this conversation left its end state (:meth:`walked`) with its last
        slot's message, in what a recall keeps of it (``_recall.resumed``); where this
        request holds that message again, and the facts of every slot up to it are
        equal to the ones that walk read, the walk resumes from there. ``None``: it reads
        every slot. The state is the remembered one: a walk copies what it changes.
        """
        key = self.ctx.recall_key
        if key is None:
            return None
        full = (key, _WALKED, name)
        found = resumed(self._seen, len(self.slots), full)
        if found is None:
            return None
        length, (read, state) = found
        if len(read) == length and read == self.all_facts()[:length]:
            return length, state
        unwalked(self.slots[length - 1].seen, full)  # of no use: the walk starts over
        return None

    def walked(self, name: str, state: Any, size: int, since: int = 0) -> None:
        """Remember ``state``, the end state of the walk ``name`` over all of the slots.

        Kept (where a recall keeps the last slot's message) for the next request of the
        conversation to resume from (:meth:`resumed`); ``size``: its estimated bytes.
        ``since``: where this walk resumed; that state is forgotten, so a conversation
        keeps one per walk. ``state`` is not changed after: it is the remembered one.
        """
        key = self.ctx.recall_key
        if key is None:
            return
        size += _STATE_BYTES + 8 * len(self.slots)
        full = (key, _WALKED, name)
        walked(self._seen, since, len(self.slots), full, (self.all_facts(), state), size)

    def _seen(self, index: int) -> Any:
        return self.slots[index].seen

    def all_facts(self) -> list[Facts]:
        """Every slot's facts, in order (one list per conversation: not to be changed)."""
        found = self._facts
        if found is None:
            found = self._facts = [slot.facts for slot in self.slots]
        return found

    def remembered(self, slot: Slot, key: Hashable, build: Callable[[], _T], size: int) -> _T:
        """``build()``, worked out from ``slot``'s message alone for this context.

        Where a recall keeps the message (``slot.seen``, with ``ctx.recall_key``), it is
        built once for every request holding the message (``size``: its estimated
        bytes); elsewhere each time. ``key`` names what is built, and what of the slot
        beside its message it reads.
        """
        seen = slot.seen
        recall_key = self.ctx.recall_key
        if seen is None or recall_key is None:
            return build()
        full = (recall_key, key)
        found: _T | None = seen.outcome(full)
        if found is None:
            found = build()
            seen.remember(full, found, size)
        return found

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
        ctx = self.ctx
        found = self.wire.evidence(slot.raw)
        if not found or ctx.target.api in found:
            return False
        return not ctx.policy.own_evidence & found  # see Policy.own_evidence

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
        # (None first: isinstance against a pydantic model runs its metaclass's check.)
        if (
            message is not None
            and isinstance(message, AssistantMessage)
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

    def with_ids(
        self,
        slot: Slot,
        calls: Mapping[int, str],
        result: str | None,
        facts: Callable[[], Facts | None] | None = None,
    ) -> Slot:
        """``slot``'s message with new ids (:meth:`Wire.with_ids`), the same provenance.

        ``facts`` works out the edited message's facts from ``slot``'s (where it gives
        ``None``, or is not given, they are read). The edit is of the message alone:
        where a recall keeps the message, the edited one's facts, and what later rules
        and the writer work out from it (its ``Seen``), are remembered with the
        message, by the new ids.
        """
        raw = self.wire.with_ids(slot.raw, calls, result)
        seen = slot.seen
        recall_key = self.ctx.recall_key
        if seen is None or recall_key is None:
            return self.edited(slot, raw, None if facts is None else facts())
        key = (recall_key, _IDS)  # one edit per message and target: the latest
        found: tuple[Mapping[int, str], str | None, Facts, Any] | None = seen.outcome(key)
        if found is None or found[1] != result or found[0] != calls:
            made = None if facts is None else facts()
            if made is None:
                made = self.wire.facts(raw, 0, self.ctx.plan)
            if found is not None:
                seen.forget(key, _EDITED_BYTES)
            found = (dict(calls), result, made, seen.child())
            seen.remember(key, found, _EDITED_BYTES)
        edited = self.edited(slot, raw, found[2])
        edited.seen = found[3]
        return edited

    def with_slots(self, slots: Sequence[Slot]) -> Conversation:
        """A conversation of ``slots`` for the same target (and the same parameters)."""
        return Conversation(slots, self.ctx, self.wire, self.params)

    def with_params(self, params: Mapping[str, Any]) -> Conversation:
        """The same messages sent with other request parameters."""
        return Conversation(self.slots, self.ctx, self.wire, params)

    def dropped_params(self, given: Mapping[str, Any]) -> tuple[str, ...]:
        """The names of ``given`` (the parameters read) that a rule removed here."""
        return tuple(name for name in given if name not in self.params)


def raws_of(slots: Sequence[Slot]) -> list[Any]:
    """The wire message of each slot: what a request sends."""
    return [slot.raw for slot in slots]


def seen_of(slots: Sequence[Slot]) -> list[Any]:
    """What a recall remembers of each slot's message (``None`` where it holds nothing)."""
    return [slot.seen for slot in slots]
