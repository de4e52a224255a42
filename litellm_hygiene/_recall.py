"""What hygiene worked out for conversations it has seen: per process, bounded, by content.

A coding agent sends its whole history on every request: request ``n + 1`` is request
``n`` and one more exchange. :class:`Recall` remembers, for each message of a request,
what was worked out for it (its facts, each message rule's verdict and repair, its
provenance lookup tokens: :class:`Seen`), so that the next request of the conversation
works out only what is new.

Keyed by content, never by object identity (a proxy parses every request afresh): a
request is aligned with the remembered conversation it continues, found by its first
two messages, and a remembered message is reused only where the request's message at
the same place is equal to it (``==``, compared at C speed) and of the same type (a
read-only mapping is equal to the dict it holds; the readers read only the dict as a
message). Only the messages' own types are compared, not those of what they hold: a
message holding such a mapping where the remembered one held a dict is taken as the
remembered one. Everything remembered is
a pure function of the message's content and of the request's target and shape (the
keys :meth:`Recall.key` interns), so a request that edits, compacts or truncates its
history, or goes to another target or in another shape, gets exactly what the full
pipeline gives: what no longer matches is worked out again.

A conversation is remembered from its second request on: the first request of a
beginning leaves only a mark, so traffic whose conversations never continue pays for no
copy. The remembered messages are the recall's own copies (containers copied, strings
shared), made once when a message is first seen; what a rule wrote is rebuilt for each
request from the request's own message and the rule's changes (:func:`patch`), so
nothing the recall holds is ever handed to LiteLLM. Content stays in this process's
memory: never in the provenance store, the logs or a report. The recall is bounded by
``max_bytes`` (an estimate of the memory its conversations hold, what rules wrote
included); the conversations used least recently go first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from sys import getsizeof
from typing import Any, Final

from ._json import copy_json

__all__ = [
    "LOOKBACK",
    "Aligned",
    "Recall",
    "Seen",
    "build",
    "patch",
    "patchable",
    "resumed",
    "snapshot",
    "unwalked",
    "walked",
]

DEFAULT_BYTES: Final = 256 << 20
"""The recall's default bound: 256 MiB (about 70 sessions of 200 agent steps)."""

PER_HEAD: Final = 4
"""Conversations remembered per beginning: branches of one history (a retry, a
subagent) each keep their own."""

_CONTAINER: Final = 240
"""Estimated bytes of a copied dict or list beside its contents (a small dict's own)."""
_SCALAR: Final = 32
"""Estimated bytes of a number, ``True`` or ``None`` held in a container."""
_SEEN: Final = 400
"""Estimated bytes of what is worked out for a message beside its outcomes (its
``Seen``, facts, lookup tokens)."""
_DEEP: Final = 48
"""A message nested deeper than this is not remembered (copying it would recurse)."""
_GLIMPSED: Final = 65536
"""Beginnings seen once, kept as marks only (a few dozen bytes each)."""
_OUTCOMES: Final = 8
_PARTS: Final = "parts"
"""What a ``Seen`` remembers its :meth:`Seen.parts` under."""
"""Outcomes remembered per message (targets and rule groups it met); more clear them."""


class Seen:
    """What was worked out for one remembered message.

    Attributes:
        facts: Its facts and the key they were read under (the request's target and
            shape), as one pair; ``None``: not read yet.
        outcomes: Each message-rule walk's outcome, by walk key (``_executor``).
        tokens: Its provenance lookup tokens (``None``: not worked out yet).
        keys: The store keys of :attr:`tokens` (``None``: not hashed yet).
        matters: Whether its provenance matters, by target key (``_request``).
        size: Estimated bytes of what the outcomes hold (those of its :meth:`parts`
            and edits included).
        meter: The recall whose bound counts what this holds, while one of its records
            holds this (``None``: no record does, or this is a part or an edit of
            another ``Seen``, counted through it).
        owner: The ``Seen`` this is a part or an edit of (``None``: a message's own).
        cleared: How many times this cleared its outcomes (:data:`_OUTCOMES`).
        born: Its owner's :attr:`cleared` when this was made: once they differ, the
            owner let go of what this holds, and this is counted no more.
    """

    __slots__ = (
        "born",
        "cleared",
        "facts",
        "keys",
        "matters",
        "meter",
        "outcomes",
        "owner",
        "size",
        "tokens",
    )

    def __init__(self, meter: Recall | None = None, owner: Seen | None = None) -> None:
        self.facts: tuple[int, Any] | None = None
        self.outcomes: dict[Hashable, Any] | None = None
        self.tokens: tuple[tuple[str, str], ...] | None = None
        self.keys: tuple[str, ...] | None = None
        self.matters: dict[int, tuple[bool, bool]] | None = None
        self.size = 0
        self.meter = meter
        self.owner = owner
        self.cleared = 0
        self.born = 0 if owner is None else owner.cleared

    def outcome(self, key: Hashable) -> Any:
        """The outcome remembered under ``key``; ``None`` when there is none."""
        outcomes = self.outcomes
        return None if outcomes is None else outcomes.get(key)

    def remember_copy(self, key: Hashable, value: Any) -> None:
        """Remember the recall's own copy of ``value`` (plain JSON) under ``key``.

        A value holding anything else is not remembered.
        """
        copied = snapshot(value)
        if copied is not None:
            self.remember(key, copied[0], copied[1])

    def remember(self, key: Hashable, outcome: Any, size: int) -> None:
        """Remember ``outcome`` (of ``size`` estimated bytes) under ``key``."""
        outcomes = self.outcomes
        freed = 0
        if outcomes is None or len(outcomes) >= _OUTCOMES:
            # What its parts and edits hold goes with the outcomes that held them: they
            # are counted no more, even where a request still works on one (``born``).
            outcomes = self.outcomes = {}
            freed, self.size = self.size, 0
            self.cleared += 1
        outcomes[key] = outcome
        self.size += size
        self._count(size - freed)

    def forget(self, key: Hashable, size: int) -> None:
        """Forget what is remembered under ``key`` (``size``: the bytes it was counted as)."""
        outcomes = self.outcomes
        if outcomes is None or outcomes.pop(key, None) is None:
            return
        self.size -= size
        self._count(-size)

    def _count(self, change: int) -> None:
        """Count ``change`` more bytes where this is counted.

        In the size of each ``Seen`` this is a part or an edit of, and in the bound of
        the recall whose record holds the first of them; nowhere past an owner that let
        go of what it held since (:attr:`born`).
        """
        at = self
        owner = self.owner
        while owner is not None:  # evicted with its owner's record
            if at.born != owner.cleared:
                return
            owner.size += change
            at = owner
            owner = owner.owner
        meter = at.meter
        if meter is not None:
            meter._bytes += change  # counted at the next keep's eviction

    def child(self) -> Seen:
        """A new ``Seen`` for a message worked out from this one's alone (a rule's edit).

        Kept with this one: what it holds is counted in this one's size (and in the
        sizes of those it is a part of), and evicted with it.
        """
        return Seen(None, self)

    def parts(self, count: int) -> list[Seen]:
        """One ``Seen`` for each of the ``count`` messages read from this one's message.

        A message of another request shape may be read as several chat messages (an
        Anthropic user turn as its tool results and its text): each has its own, kept
        with this one (what they hold is counted in its size).
        """
        kept: list[Seen] | None = self.outcome(_PARTS)
        if kept is None or len(kept) != count:
            kept = [self.child() for _ in range(count)]
            self.remember(_PARTS, kept, _SEEN * count)
        return kept


class _Record:
    """One remembered conversation: the recall's copies of its items and what was seen.

    A branch of a conversation (a retry, an edit) is a record of its own that holds the
    very copies and ``Seen`` of the messages before the branch (:func:`_shared`): they
    are counted in the bound once, while a record holds them.
    """

    __slots__ = ("items", "seen", "sizes")

    def __init__(self, items: list[Any], seen: list[Seen], sizes: list[int]) -> None:
        self.items = items
        self.seen = seen
        self.sizes = sizes

    def size(self, start: int = 0) -> int:
        """Estimated bytes of its messages from ``start`` on: copies and ``Seen``."""
        return sum(self.sizes[start:]) + sum(seen.size for seen in self.seen[start:])


def _shared(record: _Record, others: Sequence[_Record]) -> int:
    """How many of ``record``'s first messages another of ``others`` holds too.

    Records of one beginning share the messages before the place they branched at, the
    same objects: where a message's ``Seen`` is another record's at the same place, so
    are all before it (found by halving).
    """
    mine = record.seen
    most = 0
    for other in others:
        if other is record:
            continue
        theirs = other.seen
        low, high = most, min(len(mine), len(theirs))  # mine[:low] is theirs[:low]
        if low >= high or (low and mine[low - 1] is not theirs[low - 1]):
            continue
        while low < high:
            middle = (low + high + 1) // 2
            if mine[middle - 1] is theirs[middle - 1]:
                low = middle
            else:
                high = middle - 1
        most = low
    return most


class Aligned:
    """A request aligned with what the recall remembers of its conversation.

    Attributes:
        seen: One :class:`Seen` per item of the request: the remembered one for each
            of the first ``matched`` items (equal to the remembered ones), a new one
            for each item after. ``None``: the request is not to be remembered (the
            first of its beginning, or nothing is).
        matched: How many of the request's first items were remembered.
    """

    __slots__ = ("_head", "_known", "_record", "matched", "seen")

    def __init__(
        self,
        head: Hashable,
        record: _Record | None,
        known: int,
        matched: int,
        seen: list[Seen] | None,
    ) -> None:
        self._head = head
        self._record = record
        self._known = known  # the record's length when the request was aligned
        self.matched = matched
        self.seen = seen


class Recall:
    """Per process, bounded: what hygiene worked out for the conversations it saw.

    Args:
        max_bytes: The estimated memory the remembered conversations may hold; the
            least recently used go first. ``0`` remembers nothing.
        counted: Called with a counter's name and an amount: ``recalled_messages``
            (messages of a request found remembered), ``recall_evictions``
            (conversations forgotten to keep the bound).

    Thread-safe: requests are aligned and kept under a lock; the comparisons, the
    copies and the work itself run outside it.
    """

    def __init__(
        self, max_bytes: int = DEFAULT_BYTES, counted: Callable[[str, int], None] | None = None
    ) -> None:
        self.max_bytes = max_bytes
        self._counted = counted
        self._lock = threading.Lock()
        self._heads: OrderedDict[Hashable, list[_Record]] = OrderedDict()
        self._bytes = 0
        self._keys: dict[Hashable, int] = {}
        self._glimpsed: OrderedDict[Hashable, None] = OrderedDict()

    def key(self, value: Hashable) -> int:
        """A small number standing for ``value`` (a target and shape), the same each time.

        What is remembered is keyed by these: two requests share a key exactly when
        their ``value`` is equal.
        """
        found = self._keys.get(value)
        if found is None:
            with self._lock:
                found = self._keys.setdefault(value, len(self._keys))
        return found

    @property
    def conversations(self) -> int:
        """How many conversations are remembered."""
        return sum(len(records) for records in self._heads.values())

    @property
    def estimated_bytes(self) -> int:
        """The estimated memory the remembered conversations hold."""
        return self._bytes

    def align(self, space: Hashable, items: Sequence[Any]) -> Aligned:
        """``items`` (a request's messages, in the shape ``space``) against what is known.

        The conversation they continue is the remembered one of the same beginning
        whose items, from the first, are equal to theirs for longest.
        """
        if not items or self.max_bytes <= 0:
            return _UNREMEMBERED
        head = (space, _mark(items[0]), _mark(items[1]) if len(items) > 1 else None)
        candidates: list[tuple[_Record, list[Any]]] = []
        with self._lock:
            records = self._heads.get(head)
            if records is not None:
                self._heads.move_to_end(head)
                candidates = [(record, record.items[: len(items)]) for record in records]
            elif head not in self._glimpsed:
                # First sight of this beginning: only its mark is kept. Traffic whose
                # conversations never continue pays no copy; one that continues is
                # remembered from its second request on.
                self._glimpsed[head] = None
                if len(self._glimpsed) > _GLIMPSED:
                    self._glimpsed.popitem(last=False)
                return _UNREMEMBERED
        best: _Record | None = None
        matched = 0
        for record, known in candidates:
            count = _common(items, known)
            if count > matched or best is None:
                best, matched = record, count
        if matched and self._counted is not None:
            self._counted("recalled_messages", matched)
        seen = best.seen[:matched] if best is not None else []
        seen += [Seen(self) for _ in range(len(items) - matched)]
        known_length = len(best.items) if best is not None else 0
        return Aligned(head, best, known_length, matched, seen)

    def keep(self, aligned: Aligned, items: Sequence[Any]) -> None:
        """Remember what was worked out for ``items``, the request ``aligned`` was of.

        The items after the ones already remembered are copied (the containers; the
        strings are shared) and remembered with their :class:`Seen`. An item that is
        not plain JSON ends what is remembered of the request.
        """
        head = aligned._head
        if head is None or aligned.seen is None or self.max_bytes <= 0:
            return
        matched = aligned.matched
        copies: list[Any] = []
        sizes: list[int] = []
        for item in items[matched:]:
            copied = snapshot(item)
            if copied is None:
                break
            copies.append(copied[0])
            sizes.append(copied[1] + _SEEN)
        unkept = aligned.seen[matched + len(copies) :]
        for left in unkept:
            left.meter = None  # in no record, never evicted: not counted in the bound
        record = aligned._record
        with self._lock:
            for left in unkept:
                self._bytes -= left.size  # what was worked out for it before this keep
            if record is not None and matched == len(items) and self._holds(head, record):
                return  # a request wholly remembered: nothing new
            if not copies:
                return
            seen = aligned.seen[matched : matched + len(copies)]
            records = self._heads.setdefault(head, [])
            self._heads.move_to_end(head)
            extends = (
                record is not None
                and matched == aligned._known == len(record.items)
                and any(known is record for known in records)
            )
            if record is not None and extends:
                record.items.extend(copies)
                record.sizes.extend(sizes)
                record.seen.extend(seen)
                self._bytes += sum(sizes)
            else:
                prefix = record.items[:matched] if record is not None else []
                prefix_seen = aligned.seen[:matched]
                prefix_sizes = record.sizes[:matched] if record is not None else []
                new = _Record(prefix + copies, prefix_seen + seen, prefix_sizes + sizes)
                # What the records held share is counted once: the copies not held yet,
                # and the Seen of the messages before the branch that no record holds
                # any more (those after it counted theirs as they were worked out).
                shared = _shared(new, records)
                self._bytes += sum(new.sizes[shared:])
                for again in new.seen[shared:matched]:
                    again.meter = self
                    self._bytes += again.size
                records.append(new)
                while len(records) > PER_HEAD:
                    self._release(records, 0)
            self._evict()

    def _holds(self, head: Hashable, record: _Record) -> bool:
        records = self._heads.get(head)
        return records is not None and any(known is record for known in records)

    def _evict(self) -> None:
        """Drop the conversations used least recently until the bound holds (lock held)."""
        while self._bytes > self.max_bytes and self._heads:
            _, records = self._heads.popitem(last=False)
            count = len(records)
            while records:
                self._release(records, len(records) - 1)
            if self._counted is not None:
                self._counted("recall_evictions", count)
        if self._bytes < 0:  # a guard: never below nothing
            self._bytes = 0

    def _release(self, records: list[_Record], at: int) -> None:
        """Forget ``records[at]``: what no other of ``records`` holds leaves the bound.

        Its ``Seen`` no longer count what they are given (a request may still be
        working on them): none is held, until a request's record takes them again.
        """
        record = records.pop(at)
        shared = _shared(record, records)
        self._bytes -= record.size(shared)
        for seen in record.seen[shared:]:
            seen.meter = None


LOOKBACK: Final = 64
"""How far before a request's end :func:`resumed` looks for where a walk ended: an
agent's next request adds a few messages."""


def resumed(seen: Callable[[int], Seen | None], end: int, key: Hashable) -> tuple[int, Any] | None:
    """Where a walk remembered under ``key`` ended: its length, and what it left there.

    A walk over a conversation (a rule's, a reader's) that reached its end leaves what it
    needs to go on with the last message it read (:func:`walked`); the next request of
    the conversation, holding that message again, looks for it among its last
    :data:`LOOKBACK` messages before ``end``. ``seen(index)``: the ``Seen`` of message
    ``index`` (``None``: none). A ``Seen`` is the recall's only where its message and
    every message before it are equal to the ones remembered: so are the messages the
    walk read. ``None``: the walk starts from the first message.
    """
    for index in range(end - 1, max(end - LOOKBACK, 0) - 1, -1):
        known = seen(index)
        found: tuple[Any, int] | None = None if known is None else known.outcome(key)
        if found is not None:
            return index + 1, found[0]
    return None


def walked(
    seen: Callable[[int], Seen | None], since: int, end: int, key: Hashable, state: Any, size: int
) -> None:
    """Remember ``state`` (``size`` estimated bytes) under ``key`` with message ``end - 1``.

    ``since``: where this walk resumed (:func:`resumed`); what was remembered there is
    forgotten, so a conversation keeps one state per walk. ``state`` is the remembered
    one: not to be changed after.
    """
    if 0 < since != end:
        unwalked(seen(since - 1), key)
    last = seen(end - 1) if end > 0 else None
    if last is None:
        return
    unwalked(last, key)
    last.remember(key, (state, size), size)


def unwalked(known: Seen | None, key: Hashable) -> None:
    """Forget the state a walk remembered under ``key`` with ``known``'s message, if any.

    For a state found (:func:`resumed`) but not to be gone on from: a conversation
    keeps one state per walk.
    """
    found: tuple[Any, int] | None = None if known is None else known.outcome(key)
    if known is not None and found is not None:
        known.forget(key, found[1])


_UNREMEMBERED: Final = Aligned(None, None, 0, 0, None)
"""The alignment of a request that is not remembered."""


def _common(items: Sequence[Any], known: list[Any]) -> int:
    """How many of ``items``' first items are equal to ``known``'s (at most its length).

    Equal and of the same type: a read-only mapping is equal to the dict it holds, and
    the readers do not read it as one.
    """
    count = len(known)
    head = items[:count]
    start: list[Any] = head if isinstance(head, list) else list(head)  # read directly
    if start != known:
        for index in range(count):
            if start[index] != known[index]:
                count = index
                break
    for index in range(count):
        if type(start[index]) is not type(known[index]):
            return index
    return count


def _mark(item: Any) -> Hashable:
    """A cheap summary of an item, the same for equal items (an index, not a proof)."""
    if isinstance(item, dict):
        return tuple((key, _short(value)) for key, value in item.items())
    return _short(item)


def _short(value: Any) -> Hashable:
    if isinstance(value, str):
        return hash(value)
    if isinstance(value, list):
        return (len(value), _mark(value[0]) if value and not isinstance(value[0], list) else None)
    if isinstance(value, dict):
        return len(value)
    if value is None or isinstance(value, bool) or isinstance(value, int):
        return value
    return type(value).__name__


def snapshot(item: Any) -> tuple[Any, int] | None:
    """The recall's own copy of a plain JSON item, and its estimated bytes.

    ``None`` when the item holds anything else, or nests too deep.
    """
    sizes = [0]
    copied = _copy(item, 0, sizes)
    if copied is _NOT_JSON:
        return None
    return copied, sizes[0]


_NOT_JSON: Final[Any] = object()


_SHORT_TEXT: Final = 256
"""Characters below which a string is counted as ASCII (its width is asked of longer
ones only: the call costs more than the miscount of a short one)."""


def _text_bytes(text: str) -> int:
    """Estimated bytes a string holds: its header and its characters.

    Each character is as wide as the widest (one to four bytes).
    """
    length = len(text)
    return length + 49 if length < _SHORT_TEXT else getsizeof(text)


def _copy(value: Any, depth: int, sizes: list[int]) -> Any:
    kind = type(value)
    if kind is str:
        sizes[0] += _text_bytes(value)
        return value
    if kind is dict:
        if depth >= _DEEP:
            return _NOT_JSON
        sizes[0] += _CONTAINER
        copied: dict[str, Any] = {}
        for key, item in value.items():
            if type(key) is not str:
                return _NOT_JSON
            inner = _copy(item, depth + 1, sizes)
            if inner is _NOT_JSON:
                return _NOT_JSON
            copied[key] = inner
        return copied
    if kind is list:
        if depth >= _DEEP:
            return _NOT_JSON
        sizes[0] += _CONTAINER
        items: list[Any] = []
        for item in value:
            inner = _copy(item, depth + 1, sizes)
            if inner is _NOT_JSON:
                return _NOT_JSON
            items.append(inner)
        return items
    if value is None or kind is bool or kind is int or kind is float:
        sizes[0] += _SCALAR
        return value
    return _NOT_JSON


# A rule's output rebuilt from a request's own message: what the output shares with the
# message it was made from is taken from the request's (equal) message, what the rule
# wrote is the recall's copy, copied again for each request.
_TAKE: Final = 0
_CONST: Final = 1
_COPY: Final = 2
_DICT: Final = 3
_LIST: Final = 4


def patch(out: Any, given: Any, equal: bool = False) -> tuple[Any, int]:
    """How to rebuild ``out`` from a message equal to ``given``; and its estimated bytes.

    ``out`` is what the rules made of ``given``: where it holds ``given``'s own values
    (by identity), the patch takes the request's; the rest it holds as a copy.
    ``equal``: a value of ``out`` equal to ``given``'s at the same place, of the same
    type, is taken too (``out`` was written anew from ``given``, not edited from it).
    """
    sizes = [0]
    return _patch(out, given, sizes, equal), sizes[0]


_LEAVES: Final = (str, int, float, bool, type(None))
"""The types of JSON values that hold no other (``patch`` compares them by ``==``)."""


def _patch(out: Any, given: Any, sizes: list[int], equal: bool) -> Any:
    if out is given:
        return (_TAKE,)
    kind = type(out)
    if kind is dict and type(given) is dict:
        keys = tuple(out)
        parts = tuple(
            _patch(out[key], given[key], sizes, equal) if key in given else _fixed(out[key], sizes)
            for key in keys
        )
        if len(keys) == len(given) and all(part[0] == _TAKE for part in parts):
            # Written anew (its keys perhaps in another order), equal to the given one:
            # the request's own is taken, as a wire edit shares what it does not change.
            return (_TAKE,)
        sizes[0] += _CONTAINER
        return (_DICT, keys, parts)
    if kind is list and type(given) is list and len(out) == len(given):
        parts = tuple(_patch(o, g, sizes, equal) for o, g in zip(out, given, strict=True))
        if all(part[0] == _TAKE for part in parts):
            return (_TAKE,)
        sizes[0] += _CONTAINER
        return (_LIST, parts)
    if equal and kind is type(given) and kind in _LEAVES and out == given:
        return (_TAKE,)
    return _fixed(out, sizes)


def _fixed(value: Any, sizes: list[int]) -> Any:
    kind = type(value)
    if kind is str:
        sizes[0] += _text_bytes(value)
        return (_CONST, value)
    if value is None or kind is bool or kind is int or kind is float:
        return (_CONST, value)
    copied = _copy(value, 0, sizes)
    if copied is _NOT_JSON:
        raise _Unpatchable
    return (_COPY, copied)


class _Unpatchable(Exception):
    """A rule's output holds a value that is not plain JSON: it cannot be rebuilt."""


def patchable(out: Any, given: Any, equal: bool = False) -> tuple[Any, int] | None:
    """:func:`patch`, or ``None`` when ``out`` holds a value that is not plain JSON."""
    try:
        return patch(out, given, equal)
    except _Unpatchable:
        return None


def build(recipe: Any, given: Any) -> Any:
    """The output a :func:`patch` describes, rebuilt from ``given`` (a request's message)."""
    # Typed locals: compiled, the recipe's tuples and ints and the message's dicts and
    # lists are read directly, not through the generic protocol (every request runs this).
    made: tuple[Any, ...] = recipe
    tag: int = made[0]
    if tag == _TAKE:
        return given
    if tag == _CONST:
        return made[1]
    if tag == _DICT:
        # Equal to a dict, of another type (a read-only mapping inside a message): what
        # was taken from the remembered dict is taken from the dict it holds.
        source: dict[str, Any] = given if type(given) is dict else dict(given)
        keys: tuple[str, ...] = made[1]
        parts: tuple[tuple[Any, ...], ...] = made[2]
        built: dict[str, Any] = {}
        for index in range(len(keys)):
            key = keys[index]
            part = parts[index]
            kind: int = part[0]  # the common cases here, without a call each
            if kind == _TAKE:
                built[key] = source[key]
            elif kind == _CONST:
                built[key] = part[1]
            else:
                built[key] = build(part, source.get(key))
        return built
    if tag == _LIST:
        values: list[Any] = given if type(given) is list else list(given)
        entries: tuple[tuple[Any, ...], ...] = made[1]
        items: list[Any] = []
        for index in range(len(entries)):
            part = entries[index]
            kind = part[0]
            if kind == _TAKE:
                items.append(values[index])
            else:
                items.append(part[1] if kind == _CONST else build(part, values[index]))
        return items
    return copy_json(made[1])
