"""Build the provenance store the options describe."""

from __future__ import annotations

from .._options import HygieneOptions
from ._memory import MemoryStore
from ._protocol import ProvenanceStore
from ._redis import RedisStore
from ._tiered import TieredStore

__all__ = ["build_store"]


def build_store(options: HygieneOptions) -> ProvenanceStore | None:
    """The store for ``options``: none, in-process, or Redis behind an in-process one.

    With ``redis``, the in-process store is always there too: it answers first, and it
    keeps requests going (and provenance recorded) while Redis is down.

    Raises:
        ConfigurationError: ``redis`` is chosen but no host or URL is configured
            (neither in the options nor in LiteLLM's ``REDIS_*`` variables).
    """
    if options.provenance_store == "none":
        return None
    local = MemoryStore(
        max_entries=options.store_max_entries, ttl_seconds=options.store_ttl_seconds
    )
    if options.provenance_store == "memory":
        return local
    shared = RedisStore(
        host=options.redis_host,
        port=options.redis_port,
        password=options.redis_password,
        url=options.redis_url,
        ssl=options.redis_ssl,
        db=options.redis_db,
        username=options.redis_username,
        ttl_seconds=options.store_ttl_seconds,
        socket_timeout=options.redis_timeout,
        socket_connect_timeout=options.redis_timeout,
    )
    return TieredStore(local, shared, retry_after=options.redis_retry_after)
