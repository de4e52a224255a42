"""The provenance store: which provider, API and model produced an assistant message.

The integration stamps every response it sees, but clients that drop unknown fields
lose the stamp. So it also records the stamp here under the response's fingerprints
(:func:`~._fingerprint.fingerprints`), and recovers it when a later request carries the
message back unstamped.

Two stores, one protocol: :class:`MemoryStore` is a bounded LRU inside one process;
a Redis store (``_redis_store``) is shared between proxy instances, so a conversation
whose turns land on different instances still finds its provenance. :class:`TieredStore`
puts the two together and keeps a failing Redis from ever failing or slowing a request.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from .._errors import ConfigurationError
from .._openai._decode import read_stamp
from ._fingerprint import fingerprints, marked_fingerprints, token_key, token_mark

__all__ = [
    "MemoryStore",
    "Provenance",
    "ProvenanceStore",
    "StoreStats",
    "TieredStore",
    "aget_many",
    "aput_fingerprints",
    "get_many",
    "put_fingerprints",
]

logger = logging.getLogger("litellm_hygiene")


@dataclass(frozen=True, slots=True)
class Provenance:
    """Who produced an assistant message: the contents of litellm_hygiene's stamp.

    Attributes:
        provider: LiteLLM's provider name (``"anthropic"``, ``"gemini"``).
        api: The wire protocol (an ``Api`` value); signatures are valid only within one.
        model: The model name the response came from.
    """

    provider: str | None
    api: str | None
    model: str | None

    def as_stamp(self) -> dict[str, str | None]:
        """The stamp written under ``STAMP_KEY`` on an assistant message."""
        return {"provider": self.provider, "api": self.api, "model": self.model}

    @classmethod
    def from_stamp(cls, stamp: Any) -> Provenance | None:
        """Read a stamp (or a stored value); ``None`` unless it is well-formed.

        Well-formed as the wire reader demands of a stamp on a message
        (:func:`~litellm_hygiene._openai._decode.read_stamp`: only the keys
        ``provider``, ``api`` and ``model``, each a string or ``None``, ``api`` one of
        the known protocols), and with at least one of them set: anything else is not
        ours to trust.
        """
        if isinstance(stamp, Mapping) and not isinstance(stamp, dict):
            stamp = dict(stamp)
        read = read_stamp(stamp)
        if read is None or read == _UNKNOWN:
            return None
        return cls(*read)


_UNKNOWN = (None, None, None)
"""A stamp that names no part of its producer."""


@runtime_checkable
class ProvenanceStore(Protocol):
    """Where provenance is recorded under fingerprints and looked up again.

    Async methods serve LiteLLM's async hooks; the sync twins serve the sync SDK
    wrappers, which run outside any event loop.
    """

    async def aget(self, keys: Sequence[str]) -> Provenance | None:
        """The provenance of the first key (in ``keys`` order) that is stored."""
        ...

    async def aput(self, keys: Sequence[str], provenance: Provenance) -> None:
        """Record ``provenance`` under every key."""
        ...

    def get(self, keys: Sequence[str]) -> Provenance | None:
        """Sync twin of :meth:`aget`."""
        ...

    def put(self, keys: Sequence[str], provenance: Provenance) -> None:
        """Sync twin of :meth:`aput`."""
        ...


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
    ) -> None:
        """Create an empty store.

        Args:
            max_entries: Keys kept at most; the least recently used are evicted first.
            ttl_seconds: Lifetime of an entry, or ``None`` for no expiry.
            clock: Monotonic seconds; injectable so tests need not sleep.

        Raises:
            ConfigurationError: ``max_entries`` is below 1.
        """
        if max_entries < 1:
            raise ConfigurationError("max_entries must be at least 1")
        self._max = max_entries
        self._ttl = ttl_seconds
        self._clock = clock
        self._lock = threading.Lock()
        # key -> (expiry, provenance, mark): the mark is the hash() of the token the
        # key was made from, when the writer gave it (see put).
        self._entries: OrderedDict[str, tuple[float, Provenance, int | None]] = OrderedDict()
        self._marks: dict[int, int] = {}  # mark -> entries holding it
        self._unmarked = 0  # entries put without a mark

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
        :func:`~._fingerprint.marked_fingerprints`). While every entry has one,
        :meth:`get_many_tokens` passes over a token no entry was made from without
        hashing it into its key.
        """
        expires = float("inf") if self._ttl is None else self._clock() + self._ttl
        entries = self._entries
        with self._lock:
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
        (:func:`~._fingerprint.token_mark`) no entry holds is not stored, and a turn
        the store never saw costs no sha256.
        """
        now = self._clock()
        found: list[Provenance | None] = []
        with self._lock:
            marks = None if self._unmarked else self._marks
            for tokens in token_sets:
                hit = None
                for token in tokens:
                    if marks is not None and token_mark(token) not in marks:
                        continue  # no entry was made from it
                    hit = self._hit(token_key(token), now)
                    if hit is not None:
                        break
                found.append(hit)
        return found

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


@dataclass
class StoreStats:
    """Counters of a :class:`TieredStore`, for metrics and for tests.

    Attributes:
        local_hits: Lookups answered by the in-process store.
        shared_hits: Lookups answered by the shared store (and copied into the local one).
        misses: Lookups neither store could answer.
        shared_errors: Shared-store calls that failed (each opens the circuit breaker).
        shared_skips: Shared-store calls skipped because the breaker was open.
    """

    local_hits: int = 0
    shared_hits: int = 0
    misses: int = 0
    shared_errors: int = 0
    shared_skips: int = 0


class TieredStore:
    """An in-process store in front of an optional shared one (Redis).

    Writes go to both; reads try the local store first and copy a shared hit into it,
    so a conversation pinned to one instance never waits for Redis twice. A shared
    failure never raises: it is logged (the exception type only; messages can carry
    hosts or passwords), counted in :attr:`stats`, and opens a circuit breaker that
    skips the shared store for ``retry_after`` seconds, so a dead Redis costs one
    timeout per period instead of one per request. After that it is tried again.
    """

    def __init__(
        self,
        local: MemoryStore,
        shared: ProvenanceStore | None = None,
        *,
        retry_after: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Combine a local store with an optional shared one.

        Args:
            local: The in-process store, always consulted first.
            shared: The store shared between instances (a ``RedisStore``), if any.
            retry_after: Seconds the shared store is skipped after a failure.
            clock: Monotonic seconds; injectable so tests need not sleep.
        """
        self.local = local
        self.shared = shared
        self.retry_after = retry_after
        self.stats = StoreStats()
        self._clock = clock
        self._lock = threading.Lock()
        self._open_until = float("-inf")

    @contextmanager
    def _asking_shared(self) -> Iterator[ProvenanceStore | None]:
        """The shared store, when the breaker lets it be asked: the breaker, once.

        Gives ``None`` when there is none or the breaker is open (counted as a skip). A
        failure while it is asked never escapes: it is logged (the exception type only;
        messages can carry hosts or passwords), counted, and opens the breaker for
        ``retry_after`` seconds; the caller then keeps the answer it had without it.
        """
        if self.shared is None:
            yield None
            return
        with self._lock:
            if self._clock() < self._open_until:
                self.stats.shared_skips += 1
                skip = True
            else:
                skip = False
        if skip:
            yield None
            return
        try:
            yield self.shared
        except Exception as err:  # the breaker's whole point: no shared failure escapes
            with self._lock:
                self.stats.shared_errors += 1
                self._open_until = self._clock() + self.retry_after
            logger.warning(
                "litellm_hygiene: provenance shared store failed (%s); skipping it for %g s",
                type(err).__name__,
                self.retry_after,
            )

    def _local(self, keys: Sequence[str]) -> Provenance | None:
        found = self.local.get(keys)
        if found is not None:
            self._count("local_hits")
        return found

    def _count(self, field: str) -> None:
        with self._lock:
            setattr(self.stats, field, getattr(self.stats, field) + 1)

    def _found(self, keys: Sequence[str], provenance: Provenance | None) -> Provenance | None:
        if provenance is None:
            self._count("misses")
            return None
        self._count("shared_hits")
        self.local.put(keys, provenance)
        return provenance

    def get(self, keys: Sequence[str]) -> Provenance | None:
        """Local first, then shared; ``None`` on a miss or a shared failure."""
        if not keys:
            return None
        found = self._local(keys)
        if found is not None:
            return found
        with self._asking_shared() as shared:
            if shared is not None:
                found = shared.get(keys)
        return self._found(keys, found)

    def put(self, keys: Sequence[str], provenance: Provenance) -> None:
        """Record locally, and in the shared store when it is reachable."""
        if not keys:
            return
        self.local.put(keys, provenance)
        with self._asking_shared() as shared:
            if shared is not None:
                shared.put(keys, provenance)

    async def aget(self, keys: Sequence[str]) -> Provenance | None:
        """:meth:`get`, asking the shared store without blocking."""
        if not keys:
            return None
        found = self._local(keys)
        if found is not None:
            return found
        with self._asking_shared() as shared:
            if shared is not None:
                found = await shared.aget(keys)
        return self._found(keys, found)

    async def aput(self, keys: Sequence[str], provenance: Provenance) -> None:
        """:meth:`put`, writing to the shared store without blocking."""
        if not keys:
            return
        self.local.put(keys, provenance)
        with self._asking_shared() as shared:
            if shared is not None:
                await shared.aput(keys, provenance)

    def _local_many(
        self, key_sets: Sequence[Sequence[str]]
    ) -> tuple[list[Provenance | None], list[int]]:
        """Local answers, and the positions the shared store is still asked for."""
        found = self.local.get_many(key_sets)
        hits = sum(1 for f in found if f is not None)
        with self._lock:
            self.stats.local_hits += hits
        missing = [i for i, f in enumerate(found) if f is None and key_sets[i]]
        return found, missing

    def _merge_shared(
        self,
        key_sets: Sequence[Sequence[str]],
        found: list[Provenance | None],
        missing: list[int],
        shared: Sequence[Provenance | None],
    ) -> list[Provenance | None]:
        for position, provenance in zip(missing, shared, strict=True):
            found[position] = self._found(key_sets[position], provenance)
        return found

    def get_many(self, key_sets: Sequence[Sequence[str]]) -> list[Provenance | None]:
        """:meth:`get` for each set of keys: one local pass, one shared round trip."""
        found, missing = self._local_many(key_sets)
        if not missing:
            return found
        shared_found: Sequence[Provenance | None] = [None] * len(missing)
        with self._asking_shared() as shared:
            if shared is not None:
                shared_found = get_many(shared, [key_sets[i] for i in missing])
        return self._merge_shared(key_sets, found, missing, shared_found)

    async def aget_many(self, key_sets: Sequence[Sequence[str]]) -> list[Provenance | None]:
        """:meth:`get_many`, asking the shared store without blocking."""
        found, missing = self._local_many(key_sets)
        if not missing:
            return found
        shared_found: Sequence[Provenance | None] = [None] * len(missing)
        with self._asking_shared() as shared:
            if shared is not None:
                shared_found = await aget_many(shared, [key_sets[i] for i in missing])
        return self._merge_shared(key_sets, found, missing, shared_found)


def get_many(store: ProvenanceStore, key_sets: Sequence[Sequence[str]]) -> list[Provenance | None]:
    """``store.get`` for each set of keys, in one call when the store has ``get_many``.

    The stores of this package answer a whole request's lookups at once; a store of
    the caller's own that implements only the protocol is asked once per set.
    """
    many = getattr(store, "get_many", None)
    if callable(many):
        return list(many(key_sets))
    return [store.get(keys) for keys in key_sets]


async def aget_many(
    store: ProvenanceStore, key_sets: Sequence[Sequence[str]]
) -> list[Provenance | None]:
    """Async twin of :func:`get_many` (a plain store is asked one set after another)."""
    many = getattr(store, "aget_many", None)
    if callable(many):
        return list(await many(key_sets))
    return [await store.aget(keys) for keys in key_sets]


def put_fingerprints(store: ProvenanceStore, message: Any, provenance: Provenance) -> None:
    """Record ``provenance`` under the message's fingerprints.

    An in-process store gets each key's mark too (see :meth:`MemoryStore.put`).
    """
    if type(store) is not MemoryStore:
        keys = fingerprints(message)
        if keys:
            store.put(keys, provenance)
        return
    marked = marked_fingerprints(message)
    if marked:
        store.put(tuple(marked), provenance, tuple(marked.values()))


async def aput_fingerprints(store: ProvenanceStore, message: Any, provenance: Provenance) -> None:
    """Async twin of :func:`put_fingerprints` (an in-process store is written here)."""
    if type(store) is MemoryStore:
        put_fingerprints(store, message, provenance)
        return
    keys = fingerprints(message)
    if keys:
        await store.aput(keys, provenance)
