"""Every tool call gets exactly one result, right after its turn.

Every provider requires each assistant tool-call batch to be answered, one result per
call, before the next user or assistant turn; a result without its call is rejected
too (Anthropic: ``tool_use ids were found without tool_result blocks immediately
after``; OpenAI: ``Messages with role 'tool' must be a response to a preceding message
with 'tool_calls'``). So, per turn, in call order:

- a displaced result (after a user turn, or further on) is moved right after its call;
- duplicate results are dropped, a real result beating a synthesized one;
- a call with no result gets one: ``No result provided``, marked as an error and as
  synthesized, answering the call by its id exactly as the call carries it (LiteLLM's
  Gemini converter pairs them byte for byte);
- a result that answers a call under another form of its id (with or without the
  ``__thought__`` signature LiteLLM keeps in Gemini ids: a client, or a rule dropping a
  foreign signature, changed one side only) is readdressed to the call's id as given,
  never dropped: the result's content is the user's. Also where LiteLLM strips the
  signature from both before pairing them (every target but Gemini): the output is a
  transcript any client may send on, and a client that pairs byte for byte (LiteLLM's
  Gemini converter, the next request's) finds no call for a result that kept it;
- results that answer no call are dropped.

Calls and results pair by the key LiteLLM pairs them by (see
:class:`~litellm_hygiene._openai._facts.WirePlan`), and a result then carries the id
``WirePlan.answer_id`` gives it: a ``tool`` result its call's id byte for byte. Ids may
repeat across turns: a result belongs to the nearest earlier call with its key, so the
search for a call's results stops at the next turn that issues the key again. Legacy
``function_call``/``function`` pairs match by function name.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Sequence
from typing import ClassVar, Final, TypeAlias

from .._build import construct_unchecked
from .._content import TextContent
from .._messages import ToolResultMessage
from .._view import Call, Facts, WirePlan, readdressed_facts
from ._codes import Code
from ._conversation import Conversation, RuleContext, Slot
from ._findings import Finding, Problem, quoted_id, shown_id
from ._rule import Rule

__all__ = ["NO_RESULT_TEXT", "ToolPairing"]

NO_RESULT_TEXT: Final = "No result provided"
"""The text of a synthesized result."""

_FUNCTION: Final = "\0function:"
_UNNAMED: Final = "result_without_call_unnamed"


def _shown(key: str) -> str:
    """A key as a problem shows it (a legacy function's key by its name)."""
    return shown_id(key.removeprefix(_FUNCTION))


def _quoted(key: str) -> str:
    return quoted_id(key.removeprefix(_FUNCTION))


class _Index:
    """Where each key's results sit, and where each key is issued."""

    def __init__(self, slots: Sequence[Slot]) -> None:
        self.results: dict[str, list[int]] = defaultdict(list)
        self.bare: dict[str, list[int]] = defaultdict(list)
        self.issued: dict[str, list[int]] = defaultdict(list)
        for position, slot in enumerate(slots):
            facts = slot.facts
            if facts.result is not None:
                self.results[facts.result].append(position)
                self.bare[WirePlan.bare_id(facts.result)].append(position)
            for key, _, _ in facts.calls:
                self.issued[key].append(position)

    def _limit(self, key: str, start: int, end: int) -> int:
        issued = self.issued[key]
        after = bisect.bisect_right(issued, start)
        return min(issued[after], end) if after < len(issued) else end

    def window(self, key: str, start: int, end: int) -> list[int]:
        """Result positions for ``key`` after ``start`` and before the next re-issue."""
        return _between(self.results.get(key, []), start, self._limit(key, start, end))

    def loose(self, key: str, start: int, end: int) -> list[int]:
        """Results in ``key``'s window whose id differs from it only by a signature."""
        found = _between(
            self.bare.get(WirePlan.bare_id(key), []), start, self._limit(key, start, end)
        )
        return [p for p in found if p not in self.results.get(key, ())]


def _between(positions: list[int], start: int, limit: int) -> list[int]:
    return positions[bisect.bisect_right(positions, start) : bisect.bisect_left(positions, limit)]


def _addressed(facts: Facts, call: Call) -> bool:
    """The result carries the id that answers ``call`` (``WirePlan.answer_id``).

    It pairs with the call by the key, and a ``tool`` result carries the call's id as
    given, byte for byte; a legacy ``function`` result, whose id LiteLLM pairs as it
    is, carries the key.
    """
    if facts.result != call[0]:
        return False
    given = facts.result_raw
    return given is None or given == call[2]


def _in_order(conv: Conversation) -> tuple[dict[int, Call], list[Finding]] | None:
    """The results to readdress when every call is answered in order, right after its turn.

    Then every slot stays where it is, and only a result that carries another form of
    its call's id changes: the map gives each such result's position its call, with
    what is found there (what :func:`_plan` gives for such a transcript, found in one
    pass without its index). ``None`` when a result is missing, extra or out of place:
    that takes the full plan. A walk (``Conversation.resumed``): an agent's next
    request reads only its new slots.
    """
    slots = conv.slots
    readdressed: dict[int, Call] = {}
    found: list[Finding] = []
    expected: tuple[Call, ...] = ()
    answered = 0
    start = 0
    resumed = conv.resumed(_IN_ORDER)
    if resumed is not None:
        start, state = resumed
        if state is None:  # out of order before: so it stays, whatever follows
            conv.walked(_IN_ORDER, None, 0, start)  # ... and is found at the new end
            return None
        expected, answered, known, known_found = state
        readdressed, found = dict(known), list(known_found)
    for position in range(start, len(slots)):
        facts = slots[position].facts
        if facts.result is not None:
            call = expected[answered] if answered < len(expected) else None
            if call is None or facts.result != call[0]:
                conv.walked(_IN_ORDER, None, 0, start)
                return None
            if not _addressed(facts, call):
                readdressed[position] = call
                found.append(_readdressed(position, call))
            answered += 1
            continue
        if answered != len(expected):
            conv.walked(_IN_ORDER, None, 0, start)
            return None
        expected = facts.calls
        answered = 0
    size = 200 * len(readdressed) + 400 * len(found)
    conv.walked(_IN_ORDER, (expected, answered, readdressed, found), size, start)
    return (dict(readdressed), found[:]) if answered == len(expected) else None


_IN_ORDER: Final = "tool_pairing.in_order"
"""The name :func:`_in_order`'s walk is remembered by (``Conversation.walked``)."""


Plan = list["int | Call | tuple[int, Call]"]
"""The repaired order: a slot's position, a call that gets a synthesized result, or a
result's position with the call it is readdressed to."""

Repaired: TypeAlias = Plan | dict[int, Call]
"""A repair: the slots' new order (:data:`Plan`), or, when every slot stays where it
is, the results to readdress by position (see :func:`_in_order`)."""


def _plan(conv: Conversation) -> tuple[Plan, list[Finding]]:
    """The repaired order of the slots, and what is wrong with the present one."""
    slots = conv.slots
    index = _Index(slots)
    consumed: set[int] = set()
    plan: Plan = []
    found: list[Finding] = []
    for position, slot in enumerate(slots):
        facts = slot.facts
        if facts.result is not None:
            if position not in consumed:
                reason = f"result for {_quoted(facts.result)} answers no call before it"
                kind = "result_without_call" if _named(conv, position) else _UNNAMED
                found.append(_finding(position, "tool_call_id", reason, kind, facts.result))
            continue
        plan.append(position)
        cursor = position + 1
        waiting: dict[str, list[int]] = {}
        own = {call[0] for call in facts.calls}
        for number, call in enumerate(facts.calls):
            key = call[0]
            if key not in waiting:
                window = index.window(key, position, len(slots))
                waiting[key] = [p for p in window if p not in consumed]
            candidates = waiting[key]
            if not candidates and not key.startswith(_FUNCTION):
                loose = [
                    p
                    for p in index.loose(key, position, len(slots))
                    if p not in consumed and slots[p].facts.result not in own
                ]
                if loose:
                    chosen = loose[0]
                    consumed.add(chosen)
                    plan.append((chosen, call))
                    cursor = chosen + 1 if chosen == cursor else cursor
                    given = slots[chosen].facts.result or ""
                    reason = f"result for {_quoted(given)} readdressed to its call {_quoted(key)}"
                    kind = "result_without_call"
                    found.append(_finding(chosen, "tool_call_id", reason, kind, given))
                    continue
            if not candidates:
                reason = f"call {_quoted(key)} has no result before the next turn"
                where = f"tool_calls[{number}]"
                found.append(_finding(position, where, reason, "call_without_result", key))
                plan.append(call)
                continue
            real = [p for p in candidates if not _synthesized(conv, p)]
            chosen = (real or candidates)[0]
            candidates.remove(chosen)
            consumed.add(chosen)
            if chosen == cursor:
                cursor += 1
            else:
                # As sent, the result does not answer the turn right before it.
                reason = f"result for {_quoted(key)} moved right after its call"
                kind = "result_without_call"
                found.append(_finding(chosen, "tool_call_id", reason, kind, key))
            _answer(slots[chosen].facts, chosen, call, plan, found)
        for key, extra in waiting.items():
            for p in extra:
                consumed.add(p)
                reason = f"call {_quoted(key)} already has a result"
                found.append(_finding(p, "tool_call_id", reason, "duplicate_result", key))
    return plan, sorted(found, key=lambda f: f.index or 0)


def _answer(facts: Facts, chosen: int, call: Call, plan: Plan, found: list[Finding]) -> None:
    """Plan result ``chosen`` (its facts ``facts``, paired by key) as ``call``'s answer."""
    if _addressed(facts, call):
        plan.append(chosen)
        return
    plan.append((chosen, call))
    found.append(_readdressed(chosen, call))


def _readdressed(position: int, call: Call) -> Finding:
    """The result at ``position``, paired by key, carries another form of ``call``'s id.

    It is readdressed. LiteLLM strips the signature from both (so no provider sees the
    difference, and no wording names it), but the output would not pair for a client
    that compares them as they are.
    """
    given = call[2]
    bare = WirePlan.bare_id(given)
    # Said without the signature: a change's detail never holds one.
    form = "with" if len(bare) < len(given) else "without"
    reason = f"result for {_quoted(bare)} readdressed to its call's id ({form} its signature)"
    return Finding(position, (Problem("tool_call_id", reason, values={"id": _shown(bare)}),))


def _planned(
    conv: Conversation, in_order: tuple[dict[int, Call], list[Finding]] | None
) -> tuple[Repaired, list[Finding]]:
    """The repair of ``conv``, worked out once for the rule's find and its fix.

    ``in_order``: what :func:`_in_order` gives for it, already asked.
    """
    return conv.ctx.kept((ToolPairing.code, conv.slots), lambda: _repair(conv, in_order))


def _repair(
    conv: Conversation, in_order: tuple[dict[int, Call], list[Finding]] | None
) -> tuple[Repaired, list[Finding]]:
    if in_order is None:
        return _plan(conv)
    return in_order


def _finding(position: int, where: str, reason: str, kind: str | None, key: str) -> Finding:
    problem = Problem(where, reason, kind, values={"id": _shown(key)})  # type: ignore[arg-type]
    return Finding(position, (problem,))


def _named(conv: Conversation, position: int) -> bool:
    """The result names its function (LiteLLM's Gemini converter needs the name or the call)."""
    message = conv.message(position)
    return isinstance(message, ToolResultMessage) and bool(message.tool_name)


def _synthesized(conv: Conversation, position: int) -> bool:
    """A result hygiene wrote (only the neutral model records that)."""
    message = conv.slots[position].message
    return isinstance(message, ToolResultMessage) and message.synthesized


def _result_for(call: Call) -> ToolResultMessage:
    key, _, raw = call
    text = (construct_unchecked(TextContent, text=NO_RESULT_TEXT),)
    if key.startswith(_FUNCTION) and not raw:
        return construct_unchecked(
            ToolResultMessage,
            tool_call_id="",
            tool_name=key.removeprefix(_FUNCTION),
            content=text,
            is_error=True,
            synthesized=True,
            role="function",
        )
    return construct_unchecked(
        ToolResultMessage,
        **WirePlan.result_fields(raw),
        content=text,
        is_error=True,
        synthesized=True,
    )


class ToolPairing(Rule):
    """Give every tool call exactly one result, right after its turn."""

    code: ClassVar[Code] = "tool_pairing"

    def applies(self, ctx: RuleContext) -> bool:
        """Every target, unless the policy turns it off."""
        return ctx.policy.repair_tool_pairing

    def find(self, conv: Conversation) -> list[Finding]:
        """Calls without results, results without calls, duplicates, displaced results."""
        in_order = _in_order(conv)  # the check every request makes: one pass
        if in_order is not None and not in_order[0]:
            return []  # every call answered once, in order, right after its turn, by its id
        return _planned(conv, in_order)[1]

    def fix(self, conv: Conversation, found: Sequence[Finding]) -> Conversation:
        """The slots in repaired order, with synthesized results where calls had none."""
        repaired, _ = _planned(conv, None)  # as find planned it (else the full plan)
        slots = conv.slots
        if isinstance(repaired, dict):  # every slot stays: results are readdressed
            kept = list(slots)
            for position, call in repaired.items():
                kept[position] = _readdress(conv, slots[position], call)
            return conv.with_slots(kept)
        out: list[Slot] = []
        for step in repaired:
            if isinstance(step, int):
                out.append(slots[step])
            elif isinstance(step[0], int):
                position, call = step
                out.append(_readdress(conv, slots[position], call))
            else:
                out.append(conv.slot_for(_result_for(step)))
        return conv.with_slots(out)


def _readdress(conv: Conversation, slot: Slot, call: Call) -> Slot:
    """The result in ``slot`` carrying the id that answers ``call``."""
    tool = slot.facts.result_id is not None  # else a legacy function result
    new_id = conv.ctx.plan.answer_id(call[2], tool)
    if not tool:
        return conv.with_ids(slot, {}, new_id)
    return conv.with_ids(
        slot, {}, new_id, lambda: readdressed_facts(slot.facts, new_id, conv.ctx.plan)
    )
