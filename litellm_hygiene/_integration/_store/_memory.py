"""The in-process store: a bounded, expiring LRU from fingerprint to provenance."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Sequence, Set
from typing import Final, NamedTuple

from ..._errors import ConfigurationError
from ._fingerprints import token_key, token_mark
from ._record import Provenance

__all__ = ["Ask", "Found", "Hit", "MemoryStore"]

Ask = tuple[Sequence[tuple[str, str]], int, str | None]
"""A turn to look up (:meth:`MemoryStore.lookup`): its tokens (``iter_lookup_tokens``),
the first of them to try, and that token's key where it is known (not hashed again)."""
Hit = tuple[Provenance | None, int, str | None]
"""What a lookup found for a turn: the provenance, the position of the token that found
it and that token's key (``None, len(tokens), None``: nothing)."""


class Found(NamedTuple):
    """What :meth:`MemoryStore.lookup` found.

    Attributes:
        hits: Each turn's :data:`Hit`, in the order asked.
        version: The store's version when they were looked up (its puts so far).
        moved: The turns asked by a key that did not find them by it.
    """

    hits: list[Hit]
    version: int
    moved: int


_PROVENANCES: Final = 1024
"""Distinct provenances the store shares one object of (more start the sharing over)."""
LOG: Final = 4096
"""Puts the store remembers the marks of (:meth:`MemoryStore.lookup`'s ``since``)."""


class MemoryStore:
    """A bounded, expiring LRU map from fingerprint to provenance, in this process.

    Bounded so a long-running proxy cannot grow without limit; entries expire so a
    restarted deployment with different models does not trust very old records. A lock
    makes it safe from the event loop and from worker threads alike; every operation is
    O(1) per key and never awaits, so holding the lock never blocks the loop for long.
    """

    def __init__(
        self,
        max_entries: int = 10_000,
        ttl_seconds: float | None = 7 * 24 * 3600,
        *,
        clock: Callable[[], float] = time.monotonic,
        logged_puts: int = LOG,
    ) -> None:
        """Create an empty store.

        Args:
            max_entries: Keys kept at most; the least recently used are evicted first.
            ttl_seconds: Lifetime of an entry, or ``None`` for no expiry.
            clock: Monotonic seconds; injectable so tests need not sleep.
            logged_puts: The last puts whose marks are kept, so that the next request
                of a conversation reads what changed since the last from the puts
                since, where there are fewer of them than what it needs to know
                (:meth:`lookup`); ``0``: from what each mark was last put at.

        Raises:
            ConfigurationError: ``max_entries`` is below 1.
        """
        if max_entries < 1:
            raise ConfigurationError("max_entries must be at least 1")
        if logged_puts < 0:
            raise ConfigurationError("logged_puts must not be negative")
        self._max = max_entries
        self._ttl = ttl_seconds
        self._clock = clock
        self._lock = threading.Lock()
        # key -> (expiry, provenance, mark): the mark is the hash() of the token the
        # key was made from, when the writer gave it (see put).
        self._entries: OrderedDict[str, tuple[float, Provenance, int | None]] = OrderedDict()
        self._marks: dict[int, int] = {}  # mark -> entries holding it
        self._unmarked = 0  # entries put without a mark
        self._provenances: dict[Provenance, Provenance] = {}
        self._version = 0  # puts so far
        # (version, marks) of the last puts with marks (one without them: _unmarked_at)
        self._log: deque[tuple[int, tuple[int, ...]]] = deque(maxlen=logged_puts)
        self._put_at: dict[int, int] = {}  # mark -> version of its last put, while stored
        self._unmarked_at = 0  # version of the last put without marks

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, keys: Iterable[str]) -> Provenance | None:
        """The provenance of the first stored, unexpired key; refreshes its recency."""
        now = self._clock()
        with self._lock:
            return self._first(keys, now)

    def put(
        self, keys: Sequence[str], provenance: Provenance, marks: Sequence[int] | None = None
    ) -> None:
        """Record ``provenance`` under every key, evicting the least recently used.

        ``marks``: each key's mark, the ``hash()`` of the token it was made from (see
        :func:`~._fingerprints.marked_fingerprints`). While every entry has one,
        :meth:`get_many_tokens` passes over a token no entry was made from without
        hashing it into its key.
        """
        expires = float("inf") if self._ttl is None else self._clock() + self._ttl
        entries = self._entries
        with self._lock:
            # Equal provenances are one object: a request's lookups find a few of them,
            # and each is read once per request (``_request._restore``), not per turn.
            provenances = self._provenances
            if len(provenances) >= _PROVENANCES:
                provenances.clear()
            try:
                provenance = provenances.setdefault(provenance, provenance)
            except TypeError:  # not a Provenance (unhashable): stored as given
                pass
            self._version += 1
            if marks is None:
                self._unmarked_at = self._version
            else:
                self._log.append((self._version, tuple(marks)))
            for position, key in enumerate(keys):
                mark = None if marks is None else marks[position]
                old = entries.get(key)
                if old is not None:
                    self._unmark(old[2])
                entries[key] = (expires, provenance, mark)
                entries.move_to_end(key)
                if mark is None:
                    self._unmarked += 1
                else:
                    self._marks[mark] = self._marks.get(mark, 0) + 1
                    self._put_at[mark] = self._version
            while len(entries) > self._max:
                self._unmark(entries.popitem(last=False)[1][2])

    def _unmark(self, mark: int | None) -> None:
        """Account for an entry of ``mark`` leaving the store."""
        if mark is None:
            self._unmarked -= 1
            return
        left = self._marks[mark] - 1
        if left:
            self._marks[mark] = left
        else:
            del self._marks[mark]
            del self._put_at[mark]  # gone: a token of it finds nothing, as before its put

    def get_many(self, key_sets: Sequence[Iterable[str]]) -> list[Provenance | None]:
        """:meth:`get` for each set of keys, under one lock.

        Each set is read only up to its first hit: an iterator that makes its keys as
        they are asked for (see ``iter_lookup_keys``) makes no more than that.
        """
        now = self._clock()
        found: list[Provenance | None] = []
        with self._lock:
            for keys in key_sets:
                found.append(self._first(keys, now))
        return found

    def get_many_tokens(
        self, token_sets: Sequence[Iterable[tuple[str, str]]]
    ) -> list[Provenance | None]:
        """:meth:`get_many` for turns given by their tokens (``iter_lookup_tokens``).

        Each token is hashed into its key (sha256) only when an entry may have been
        made from it: while every entry has its mark, a token whose mark
        (:func:`~._fingerprints.token_mark`) no entry holds is not stored, and a turn
        the store never saw costs no sha256.
        """
        found = self.lookup([(tuple(tokens), 0, None) for tokens in token_sets])
        assert found is not None  # asked since nothing
        return [hit[0] for hit in found.hits]

    def lookup(
        self, asks: Sequence[Ask], since: int | None = None, known: Set[int] = frozenset()
    ) -> Found | None:
        """:meth:`get_many_tokens` for turns that may be known, and the store's version.

        A turn's lookup goes on from the token ``asks`` names (the tokens before it are
        known to find nothing), by its key where one is given. ``since``: the version
        of an earlier lookup whose misses the caller takes as still missing; ``None``
        (nothing taken) when a put since then holds a mark in ``known`` (the marks of
        the tokens that found nothing), or was made without marks. What the lookups
        refresh and drop is what looking up every turn from its first token does: a
        token that found nothing then meets no entry now.
        """
        now = self._clock()
        hits: list[Hit] = []
        moved = 0
        with self._lock:
            if since is not None and not self._unchanged(since, known):
                return None
            marks = None if self._unmarked else self._marks
            entries = self._entries
            for ask in asks:
                tokens, start, key = ask
                if key is not None:  # the key that found the turn before
                    entry = entries.get(key)
                    if entry is not None and entry[0] > now:  # _hit, inline: most turns
                        entries.move_to_end(key)
                        hits.append((entry[1], start, key))
                        continue
                    self._hit(key, now)  # drops it where expired
                    moved += 1
                    start += 1
                hits.append(self._first_token(tokens, start, marks, now))
            return Found(hits, self._version, moved)

    def _first_token(
        self,
        tokens: Sequence[tuple[str, str]],
        start: int,
        marks: dict[int, int] | None,
        now: float,
    ) -> Hit:
        """What the first stored of ``tokens`` from ``start`` on finds."""
        for position in range(start, len(tokens)):
            token = tokens[position]
            if marks is not None and token_mark(token) not in marks:
                continue  # no entry was made from it
            key = token_key(token)
            provenance = self._hit(key, now)
            if provenance is not None:
                return provenance, position, key
        return None, len(tokens), None

    def _unchanged(self, since: int, known: Set[int]) -> bool:
        """Whether no put since version ``since`` holds a mark in ``known``.

        Read from the log of puts where it reaches back to ``since`` and is the shorter
        way, else from each mark's last put (a mark no entry holds any more finds
        nothing, whatever was put under it since); a put without marks since may hold
        any.
        """
        if since == self._version:
            return True
        if self._unmarked_at > since:
            return False
        log = self._log
        if log and log[0][0] <= since + 1 and self._version - since <= len(known):
            for version, marks in reversed(log):
                if version <= since:
                    break
                if not known.isdisjoint(marks):
                    return False
            return True
        put_at = self._put_at
        return all(put_at.get(mark, 0) <= since for mark in known)

    def _first(self, keys: Iterable[str], now: float) -> Provenance | None:
        for key in keys:
            hit = self._hit(key, now)
            if hit is not None:
                return hit
        return None

    def _hit(self, key: str, now: float) -> Provenance | None:
        """The provenance stored under ``key`` (refreshed); ``None``, expired ones dropped."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        if entry[0] <= now:
            del self._entries[key]
            self._unmark(entry[2])
            return None
        self._entries.move_to_end(key)
        return entry[1]

    async def aget(self, keys: Sequence[str]) -> Provenance | None:
        """Async twin of :meth:`get` (no I/O, so it simply calls it)."""
        return self.get(keys)

    async def aget_many(self, key_sets: Sequence[Sequence[str]]) -> list[Provenance | None]:
        """Async twin of :meth:`get_many`."""
        return self.get_many(key_sets)

    async def aput(self, keys: Sequence[str], provenance: Provenance) -> None:
        """Async twin of :meth:`put`."""
        self.put(keys, provenance)
