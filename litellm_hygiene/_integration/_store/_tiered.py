"""The in-process store in front of a shared one (Redis), with a circuit breaker."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from ._memory import MemoryStore
from ._protocol import ProvenanceStore, aget_many, get_many
from ._record import Provenance

__all__ = ["StoreStats", "TieredStore"]

logger = logging.getLogger("litellm_hygiene")


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
