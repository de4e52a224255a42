"""Tool-call ids in the shape the target accepts, unique within a turn.

Each protocol accepts its own id shape (``Policy.tool_ids``): Mistral exactly 9
alphanumerics (``Tool call id was toolu_01... but must be a-z, A-Z, 0-9, with a length
of 9.``); Anthropic ``^[a-zA-Z0-9_-]+$`` up to 64 (``String should match pattern``);
OpenAI Chat up to 40 (``string too long. Expected a string with maximum length 40``);
OpenAI Responses ``call_id|fc_...`` pairs checked as the pair. The id checked is the id
as LiteLLM sends it (see :class:`~litellm_hygiene._openai._facts.WirePlan`); ids a
same-model turn really produced are valid, so they stay untouched.

Renaming is deterministic (a hash of the id and its occurrence) and collision-free
within the request: ``a|b`` and ``a:b`` never become one id. New ids carry no provider's
prefix, so they are never mistaken for provenance evidence. A signature LiteLLM would
send inside the id leaves it (for a Gemini model behind another protocol the whole
string is the id). The results answering a renamed call are renamed with it: the run of
results right after a turn maps to that turn's calls by key, in order; any other result
takes the id of the latest turn that issued its key.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections import deque
from collections.abc import Sequence
from typing import ClassVar, Final

from .._policy import IdRule
from .._view import WirePlan, renamed_facts
from ._codes import Code
from ._conversation import Conversation, Slot
from ._findings import Finding, Problem, quoted_id, shown_id
from ._memo import LIMIT, Remembered
from ._rule import Rule

__all__ = ["ToolCallId", "id_is_valid"]

_BASE62: Final = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_ITEM: Final = re.compile(r"[a-zA-Z0-9_-]*")
_FUNCTION: Final = "\0function:"
_POWERS: Final = tuple(62**n for n in range(65))
_PAIRS: Final = tuple(_BASE62[n % 62] + _BASE62[n // 62] for n in range(62 * 62))


@functools.lru_cache(maxsize=32)
def _charset(chars: str) -> re.Pattern[str]:
    return re.compile(f"[{chars}]+")


@functools.lru_cache(maxsize=32)
def _outside(chars: str) -> re.Pattern[str]:
    return re.compile(f"[^{chars}]")


def _plain_problem(value: str, rule: IdRule) -> tuple[str, str] | None:
    """(wording kind, reason) when ``value`` breaks ``rule``; ``None`` when it fits."""
    if not value:
        return "id_empty", "empty id"
    if rule.allowed is not None and _charset(rule.allowed).fullmatch(value) is None:
        return "id_chars", f"id {quoted_id(value)} has characters outside [{rule.allowed}]"
    if rule.max_length is not None and len(value) > rule.max_length:
        return "id_too_long", f"id is {len(value)} characters; at most {rule.max_length} allowed"
    if rule.exact_length is not None and len(value) != rule.exact_length:
        return "id_length", f"id is {len(value)} characters; exactly {rule.exact_length} required"
    return None


@functools.lru_cache(maxsize=32)
def _loosened(rule: IdRule, **update: int | None) -> IdRule:
    """``rule`` with some lengths lifted (built once per rule, not once per id)."""
    return rule.model_copy(update=update)


def _problem(value: str, rule: IdRule) -> tuple[str, str] | None:
    if rule.keep_responses_pairs and "|" in value:
        call_id, _, item = value.partition("|")
        if not item.startswith("fc"):
            return "item_id_prefix", "the item id of a call_id|item_id pair must start with 'fc'"
        if _ITEM.fullmatch(item) is None or item.endswith("_"):
            return "item_id_chars", "the item id may hold only letters, digits, '_' and '-'"
        if len(value) > 64:
            return "id_too_long", f"the pair is {len(value)} characters; at most 64 allowed"
        return _plain_problem(call_id, _loosened(rule, max_length=None))
    return _plain_problem(value, rule)


def id_is_valid(value: str, rule: IdRule) -> bool:
    """``value`` (an id as LiteLLM sends it) is an id the target accepts under ``rule``."""
    return _problem(value, rule) is None


@functools.lru_cache(maxsize=32)
def _fitting(rule: IdRule) -> re.Pattern[str]:
    """The plain ids :func:`_plain_problem` finds nothing in, as one pattern.

    Built from ``rule`` (never stated apart from it), so checking a valid id costs one
    match; an id it does not match is judged by :func:`_problem`, which says why.
    """
    chars = "(?s:.)" if rule.allowed is None else f"[{rule.allowed}]"
    longest, exact = rule.max_length, rule.exact_length
    if (longest is not None and (longest < 1 or (exact or 0) > longest)) or exact == 0:
        return re.compile("(?!)")  # no id fits (an empty id never does)
    if rule.exact_length is not None:
        low = high = str(rule.exact_length)
    else:
        low, high = "1", "" if rule.max_length is None else str(rule.max_length)
    return re.compile(f"{chars}{{{low},{high}}}")


_FITTING: Final[dict[re.Pattern[str], Remembered]] = {}
"""The ids each rule's pattern matched (see :mod:`._memo`), per pattern."""

_BROKEN: Final[dict[IdRule, dict[str, tuple[str, str] | None]]] = {}
"""What :func:`_problem` found in each id its rule's pattern did not match, per rule (an
agent's ids come back on every request). Bounded: emptied when full."""

_HASHED: Final[dict[tuple[str, int, int, int | None, int | None, str | None], str]] = {}
"""Each hashed id (:meth:`_Namer._hashed`), by what it is made of. Bounded: emptied
when full."""


class _Checker:
    """:func:`_problem` for one request's rule, each distinct id checked once."""

    __slots__ = ("fits", "fitting", "pairs", "rule", "seen")

    def __init__(self, rule: IdRule) -> None:
        self.rule = rule
        pattern = _fitting(rule)
        self.fits = pattern.fullmatch
        fitting = _FITTING.get(pattern)
        if fitting is None:
            fitting = _FITTING[pattern] = Remembered()
        self.fitting = fitting
        self.pairs = rule.keep_responses_pairs
        seen = _BROKEN.get(rule)
        if seen is None:
            seen = _BROKEN[rule] = {}
        self.seen = seen

    def problem(self, value: str) -> tuple[str, str] | None:
        """(wording kind, reason) when ``value`` (an id as sent) breaks the rule."""
        if not self.pairs or "|" not in value:
            if value in self.fitting:
                return None
            if self.fits(value) is not None:
                self.fitting.add(value)
                return None
        seen = self.seen
        if value in seen:
            return seen[value]
        if len(seen) >= LIMIT:
            seen.clear()
        found = seen[value] = _problem(value, self.rule)
        return found


def _checker(conv: Conversation) -> _Checker:
    """The request's checker: the find and the fix of one request share what it saw."""
    return conv.ctx.kept(ToolCallId.code, lambda: _Checker(conv.ctx.policy.tool_ids))


def _base62(digest: bytes, length: int) -> str:
    """The last ``length`` base-62 digits of the digest, least significant first."""
    # Only the digest's residue modulo 62**length decides them; two digits at a time
    # (// and %, not divmod: compiled, they stay machine integers below 2**62).
    number = int.from_bytes(digest, "big") % _POWERS[length]
    chars = []
    for _ in range(length // 2):
        chars.append(_PAIRS[number % 3844])
        number //= 3844
    if length % 2:
        chars.append(_BASE62[number])
    return "".join(chars)


def _hashed_id(original: str, occurrence: int, attempt: int, rule: IdRule) -> str:
    """An id made of a hash of the original id, its occurrence and the attempt."""
    seed = f"{original}\0{occurrence}\0{attempt}".encode("utf-8", "surrogatepass")
    digest = hashlib.sha256(seed).digest()
    if rule.exact_length is not None:
        return _base62(digest, rule.exact_length)
    # "call_", "toolu_"... are provenance evidence: an id hygiene assigns must not
    # make a later run judge the turn differently.
    allowed = rule.allowed
    prefix = "tc_" if allowed is None or _charset(allowed).fullmatch("_") else "tc"
    body = prefix + _base62(digest, 24)
    return body[: rule.max_length] if rule.max_length else body


class _Namer:
    """Hands out valid, unique ids for one request."""

    def __init__(self, rule: IdRule, reserved: set[str], check: _Checker) -> None:
        self.rule = rule
        self.check = check
        self.taken = set(reserved)
        self.handed: set[str] = set()  # the ids handed out
        self.occurrences: dict[str, int] = {}
        self.fill = ""
        if rule.exact_length is None and rule.allowed is not None:
            self.fill = "_" if id_is_valid("_", _loosened(rule, exact_length=None)) else ""

    def _sanitized(self, original: str) -> str:
        rule = self.rule
        if rule.allowed is None:
            candidate = original
        else:
            candidate = _outside(rule.allowed).sub(self.fill, original)
        return candidate[: rule.max_length] if rule.max_length else candidate

    def _hashed(self, original: str, attempt: int) -> str:
        rule = self.rule
        occurrence = self.occurrences[original]
        key = (original, occurrence, attempt, rule.exact_length, rule.max_length, rule.allowed)
        found = _HASHED.get(key)
        if found is None:
            if len(_HASHED) >= LIMIT:
                _HASHED.clear()
            found = _HASHED[key] = _hashed_id(original, occurrence, attempt, rule)
        return found

    def fresh(self, original: str) -> str:
        """A new id for ``original``: its sanitized form if free, else a hash."""
        self.occurrences[original] = self.occurrences.get(original, 0) + 1
        if self.rule.exact_length is not None:
            # An exact-length id is kept as it is or hashed, never sanitized: being
            # renamed, it is taken or invalid, so its hash comes first.
            candidate = self._hashed(original, 0)
            attempt = 1
        else:
            candidate = self._sanitized(original)
            attempt = 0
        while candidate in self.taken or self.check.problem(candidate) is not None:
            candidate = self._hashed(original, attempt)
            attempt += 1
        self.taken.add(candidate)
        self.handed.add(candidate)
        return candidate


_FIND: Final = "tool_call_id.find"
"""The name :meth:`ToolCallId.find`'s walk is remembered by (``Conversation.walked``)."""
_FIX: Final = "tool_call_id.fix"
"""The name the renaming walk (:class:`_Renamer`) is remembered by."""


class ToolCallId(Rule):
    """Rename ids the target would reject, and the results answering them."""

    code: ClassVar[Code] = "tool_call_id"

    def find(self, conv: Conversation) -> list[Finding]:
        """Call ids (as sent) the target rejects or a turn repeats; results likewise."""
        rule = conv.ctx.policy.tool_ids
        unique = rule.unique_in_request  # else an id may repeat across turns
        check = _checker(conv)
        found: list[Finding] = []
        issued: set[str] = set()
        # Where each id was last sent: the turn being read (twice in it), or an earlier one.
        sent_at: dict[str, int] = {}
        slots = conv.slots
        start = 0
        resumed = conv.resumed(_FIND)  # an agent's next request: read only what is new
        if resumed is not None:
            start, (known, known_issued, known_sent_at) = resumed
            found, issued, sent_at = list(known), set(known_issued), dict(known_sent_at)
        for index in range(start, len(slots)):
            facts = slots[index].facts
            if facts.calls:
                problems: list[Problem] | None = None
                for number, (key, sent, raw) in enumerate(facts.calls):
                    issued.add(key)
                    if key.startswith(_FUNCTION) and not raw:
                        continue
                    bad = check.problem(sent)
                    last = sent_at.get(sent)
                    twice = last == index
                    if bad is not None or twice or (unique and last is not None):
                        where = f"tool_calls[{number}].id"
                        if problems is None:
                            problems = []
                        problems.append(_id_problem(bad, sent, rule, where, number, twice))
                    sent_at[sent] = index
                if problems is not None:
                    found.append(Finding(index, tuple(problems)))
            elif facts.result_id is not None and facts.result not in issued:
                # A result that answers a call is renamed with it: only a result no
                # call issued has an id of its own to fix.
                bad = check.problem(facts.result_id)
                if bad is not None:
                    problem = _worded(bad, facts.result_id, rule, "tool_call_id", None)
                    found.append(Finding(index, (problem,)))
        size = 120 * (len(issued) + len(sent_at)) + 400 * len(found)
        conv.walked(_FIND, (found, issued, sent_at), size, start)
        return found[:]

    def fix(self, conv: Conversation, found: Sequence[Finding]) -> Conversation:
        """Rename the found ids; results follow their calls."""
        return _Renamer(conv, {f.index: f for f in found}).run()


def _id_problem(
    bad: tuple[str, str] | None, sent: str, rule: IdRule, where: str, number: int, twice: bool
) -> Problem:
    """The problem of a call id the rule rejects (``bad``), the turn or the request repeats."""
    if bad is not None:
        return _worded(bad, sent, rule, where, number)
    used = "two calls of this message" if twice else "a call of an earlier turn"
    reason = f"id {quoted_id(sent)} is used by {used}"
    return Problem(where, reason, "id_collision", call=number, values={"id": shown_id(sent)})


def _worded(
    bad: tuple[str, str], value: str, rule: IdRule, where: str, call: int | None
) -> Problem:
    kind, reason = bad
    path = "result_id" if call is None else ("item_id" if kind.startswith("item") else "call_id")
    item = value.partition("|")[2] if kind.startswith("item") else value
    limit = 64 if rule.keep_responses_pairs and "|" in value else (rule.max_length or 0)
    values = {"id": shown_id(item), "n": len(value), "limit": limit, "call": call or 0}
    return Problem(where, reason, kind, path, call=call, values=values)  # type: ignore[arg-type]


class _Renamer:
    """One walk over the conversation renaming found ids and the results that follow.

    A walk, in the sense of ``Conversation.resumed``, but for one thing: the ids every
    call of the request keeps (``reserved``) are never handed out, the later calls'
    included. It resumes only where none of the ids the later calls keep is one it
    handed out before: then each earlier message is renamed as it was.
    """

    def __init__(self, conv: Conversation, found: dict[int | None, Finding]) -> None:
        self.conv = conv
        self.found = found
        rule = conv.ctx.policy.tool_ids
        check = _checker(conv)
        slots = conv.slots
        self.start = 0
        self.since = 0  # where the state found was left (forgotten when the walk ends)
        self.edits: list[tuple[int, dict[int, str], str | None]] = []
        resumed = conv.resumed(_FIX)
        reserved = _kept(slots, check, 0 if resumed is None else resumed[0])
        self.namer = _Namer(rule, reserved, check)
        self.latest: dict[str, str] = {}
        self.batch: deque[tuple[str, str]] = deque()
        if resumed is not None:
            start, (edits, taken, occurrences, latest, batch, handed) = resumed
            self.since = start
            if handed.isdisjoint(reserved):  # no later call keeps an id handed out
                self.start = start
                self.edits = list(edits)
                self.namer.taken |= taken
                self.namer.handed = set(handed)
                self.namer.occurrences = dict(occurrences)
                self.latest = dict(latest)
                self.batch = deque(batch)
            else:
                self.namer = _Namer(rule, _kept(slots, check, 0), check)  # every call's

    def run(self) -> Conversation:
        conv = self.conv
        slots = conv.slots
        start = self.start
        out = list(slots[:start])
        for index, calls, result in self.edits:  # the messages read before, as renamed
            out[index] = self._edited(slots[index], calls, result)
        for index in range(start, len(slots)):
            slot = slots[index]
            facts = slot.facts
            if facts.role == "assistant":
                slot = self._turn(index, slot)
            elif facts.result_id is not None:
                slot = self._result(index, slot)
            elif facts.result is not None:
                # A legacy ``function`` result that answers a call by ``tool_call_id``:
                # it follows its call's new id, and the next result answers the next call.
                wire_id = _pop(self.batch, facts.result)
                if wire_id is not None:
                    wire_id = conv.ctx.plan.answer_id(wire_id, tool=False)
                if wire_id is not None and wire_id != facts.result:
                    slot = self._with_ids(index, slot, {}, wire_id)
            elif facts.role != "tool":
                self.batch.clear()
            out.append(slot)
        namer = self.namer
        handed = namer.handed
        state = (self.edits, namer.taken, namer.occurrences, self.latest, tuple(self.batch), handed)
        size = 120 * (len(namer.taken) + len(self.latest) + len(handed)) + 160 * len(self.edits)
        conv.walked(_FIX, state, size, self.since)
        return conv.with_slots(out)

    def _turn(self, index: int, slot: Slot) -> Slot:
        calls = slot.facts.calls
        bad = {p.call for p in self.found[index].problems} if index in self.found else set()
        renamed: dict[int, str] = {}
        mapping: list[tuple[str, str]] = []
        for number, (key, sent, raw) in enumerate(calls):
            if key.startswith(_FUNCTION) and not raw:
                continue  # a legacy function_call: paired by name, it has no id
            if number in bad:
                raw = renamed[number] = self._renamed(raw, sent)
            mapping.append((key, raw))
        self.batch = deque(mapping)
        self.latest.update(mapping)
        if not renamed:
            return slot
        return self._with_ids(index, slot, renamed, None)

    def _with_ids(self, index: int, slot: Slot, calls: dict[int, str], result: str | None) -> Slot:
        self.edits.append((index, calls, result))
        return self._edited(slot, calls, result)

    def _edited(self, slot: Slot, calls: dict[int, str], result: str | None) -> Slot:
        return self.conv.with_ids(
            slot, calls, result, lambda: renamed_facts(slot.facts, calls, result)
        )

    def _renamed(self, raw: str, sent: str) -> str:
        """The new id as given: a fresh id, and the signature where LiteLLM keeps it."""
        fresh = self.namer.fresh(sent)
        _, signature = WirePlan.split_id(raw)
        if signature is None or self.conv.ctx.plan.whole_id_sent:
            return fresh
        return WirePlan.join_id(fresh, signature, in_id=True)

    def _result(self, index: int, slot: Slot) -> Slot:
        key = slot.facts.result
        assert key is not None
        wire_id = _pop(self.batch, key) or self.latest.get(key)
        if wire_id is None and index in self.found:
            wire_id = self.namer.fresh(slot.facts.result_id or "")
        if wire_id is None or wire_id == slot.facts.result_raw:
            return slot
        return self._with_ids(index, slot, {}, wire_id)


def _kept(slots: Sequence[Slot], check: _Checker, start: int) -> set[str]:
    """The call ids (as sent) from slot ``start`` on that the target accepts as they are."""
    return {
        sent
        for index in range(start, len(slots))
        for _, sent, _ in slots[index].facts.calls
        if check.problem(sent) is None
    }


def _pop(batch: deque[tuple[str, str]], key: str) -> str | None:
    for position, (original, wire_id) in enumerate(batch):
        if original == key:
            del batch[position]
            return wire_id
    return None
