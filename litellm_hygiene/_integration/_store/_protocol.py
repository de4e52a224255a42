"""The protocol every provenance store implements, and the calls made of any store.

A store of the caller's own implements :class:`ProvenanceStore` only; the stores of this
package also answer a whole request's lookups at once (``get_many``), and the in-process
one takes each key's mark (see :meth:`~._memory.MemoryStore.put`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from ._fingerprints import fingerprints, marked_fingerprints
from ._memory import MemoryStore
from ._record import Provenance

__all__ = ["ProvenanceStore", "aget_many", "aput_fingerprints", "get_many", "put_fingerprints"]


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
