"""The provenance store: which provider, API and model produced an assistant message.

The integration stamps every response it sees, but clients that drop unknown fields
lose the stamp. So it also records the stamp here under the response's fingerprints
(:func:`~._fingerprints.fingerprints`), and recovers it when a later request carries the
message back unstamped.

One package: the record (``_record``), the protocol and the calls made of any store
(``_protocol``), the in-process LRU (``_memory``), Redis (``_redis``), the two tiered
(``_tiered``), the store the options describe (``_config``) and the fingerprints
(``_fingerprints``). Two stores, one protocol: :class:`MemoryStore` is a bounded LRU
inside one process; a Redis store (``_redis``) is shared between proxy instances, so a conversation
whose turns land on different instances still finds its provenance. :class:`TieredStore`
puts the two together and keeps a failing Redis from ever failing or slowing a request.
"""

from __future__ import annotations

from ._memory import MemoryStore
from ._protocol import ProvenanceStore, aget_many, aput_fingerprints, get_many, put_fingerprints
from ._record import Provenance
from ._tiered import StoreStats, TieredStore

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
