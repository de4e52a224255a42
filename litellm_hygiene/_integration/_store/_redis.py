"""The shared provenance store in Redis: the only module that imports ``redis``.

Several proxy instances behind one load balancer each see only some of a
conversation's turns; Redis lets every instance recover the provenance another one
recorded. Entries are ``<prefix><fingerprint> -> compact JSON stamp`` with a TTL, read
with one ``MGET`` and written with one pipeline of ``SET ... EX``.

Configuration follows LiteLLM's own Redis settings (``litellm/_redis.py``): the keys
``host``, ``port``, ``password``, ``url``, ``ssl``, ``db`` and ``username``; each one not
given falls back to ``REDIS_HOST``, ``REDIS_PORT``, ``REDIS_PASSWORD``, ``REDIS_URL``,
``REDIS_SSL``, ``REDIS_DB`` or ``REDIS_USERNAME``; a value ``"os.environ/NAME"`` is read
from the environment variable ``NAME``; an explicit ``host`` outranks ``REDIS_URL``; and
a url carries its own host, port, db, password and TLS (``rediss://``).

Errors raise from here unchanged; :class:`~._store.TieredStore` catches them, so a
failing Redis never fails a request. Short socket timeouts and no retries keep a dead
Redis from adding more than a fraction of a second before the breaker opens.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any

import redis
import redis.asyncio
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import NoBackoff
from redis.retry import Retry

from ..._errors import ConfigurationError
from .._options import resolve_secret
from ._record import Provenance

__all__ = ["DEFAULT_PREFIX", "DEFAULT_TTL_SECONDS", "RedisStore"]

DEFAULT_PREFIX = "litellm_hygiene:prov:"
"""Namespace of the store's keys, so they never clash with LiteLLM's own cache keys."""

DEFAULT_TTL_SECONDS = 7 * 24 * 3600
"""A week: long enough for a conversation to be resumed, short enough to stay small."""

_ENV_NAMES = {
    "host": "REDIS_HOST",
    "port": "REDIS_PORT",
    "password": "REDIS_PASSWORD",
    "url": "REDIS_URL",
    "ssl": "REDIS_SSL",
    "db": "REDIS_DB",
    "username": "REDIS_USERNAME",
}
_URL_CARRIES = ("host", "port", "db", "password", "ssl")
_TRUE = frozenset({"true", "1", "yes"})
_OPTIONS = frozenset(
    {*_ENV_NAMES, "prefix", "ttl_seconds", "socket_timeout", "socket_connect_timeout"}
)


def _merged(explicit: Mapping[str, Any], environ: Mapping[str, str]) -> dict[str, Any]:
    """Explicit settings over ``REDIS_*`` variables, the way LiteLLM merges them."""
    given = {
        name: resolve_secret(f"redis {name}", value, environ)
        for name, value in explicit.items()
        if value is not None
    }
    merged = {name: environ[env] for name, env in _ENV_NAMES.items() if environ.get(env)}
    if "host" in given and "url" not in given:
        # LiteLLM: an explicitly named host outranks a REDIS_URL from the environment.
        merged.pop("url", None)
    merged.update(given)
    if merged.get("url"):
        for name in _URL_CARRIES:
            merged.pop(name, None)
    elif not merged.get("host"):
        raise ConfigurationError(
            "redis needs a host or a url: pass one, or set REDIS_HOST or REDIS_URL"
        )
    return merged


def _as_int(name: str, value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError) as err:
        raise ConfigurationError(f"redis {name}: expected an integer") from err


def _as_bool(value: Any) -> bool:
    return value.strip().lower() in _TRUE if isinstance(value, str) else bool(value)


def _connection_kwargs(settings: dict[str, Any]) -> dict[str, Any]:
    """Typed redis-py keyword arguments (environment values arrive as strings)."""
    kwargs: dict[str, Any] = {}
    for name in ("url", "host", "password", "username"):
        if settings.get(name) is not None:
            kwargs[name] = str(settings[name])
    for name in ("port", "db"):
        if settings.get(name) is not None:
            kwargs[name] = _as_int(name, settings[name])
    if settings.get("ssl") is not None:
        kwargs["ssl"] = _as_bool(settings["ssl"])
    return kwargs


def _encode(provenance: Provenance) -> str:
    stamp = {k: v for k, v in provenance.as_stamp().items() if v is not None}
    return json.dumps(stamp, separators=(",", ":"))


def _decode(values: Sequence[Any]) -> Provenance | None:
    """The first well-formed value; a malformed one is a miss, never an error."""
    for raw in values:
        if not isinstance(raw, bytes | str):
            continue
        try:
            provenance = Provenance.from_stamp(json.loads(raw))
        except ValueError:
            continue
        if provenance is not None:
            return provenance
    return None


def _split(key_sets: Sequence[Sequence[str]], values: Sequence[Any]) -> list[Provenance | None]:
    """Each key set's answer from one ``MGET`` over all of them, in order."""
    found: list[Provenance | None] = []
    start = 0
    for keys in key_sets:
        found.append(_decode(values[start : start + len(keys)]))
        start += len(keys)
    return found


class RedisStore:
    """Provenance shared between proxy instances through Redis.

    Holds a sync ``redis.Redis`` (for the sync SDK wrappers) and a
    ``redis.asyncio.Redis`` (for the async hooks); neither connects until first used.
    The async client belongs to the event loop that first uses it, as redis-py's
    async connections do. Close with :meth:`aclose` (or :meth:`close` when only the
    sync side was used).
    """

    def __init__(
        self,
        *,
        host: str | None = None,
        port: int | str | None = None,
        password: str | None = None,
        url: str | None = None,
        ssl: bool | str | None = None,
        db: int | str | None = None,
        username: str | None = None,
        prefix: str = DEFAULT_PREFIX,
        ttl_seconds: float = DEFAULT_TTL_SECONDS,
        socket_timeout: float = 0.25,
        socket_connect_timeout: float = 0.25,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        """Configure the clients; nothing connects yet.

        Args:
            host: Redis host; else ``REDIS_HOST``.
            port: Redis port; else ``REDIS_PORT``, else 6379.
            password: Else ``REDIS_PASSWORD``.
            url: ``redis://`` or ``rediss://`` url; else ``REDIS_URL``. Wins over
                host, port, db, password and ssl, which it carries itself.
            ssl: Use TLS (``"true"``, ``"1"``, ``"yes"`` as strings); else ``REDIS_SSL``.
            db: Database number; else ``REDIS_DB``.
            username: ACL user; else ``REDIS_USERNAME``.
            prefix: Prepended to every key.
            ttl_seconds: Lifetime of every entry (``SET ... EX``, rounded up to whole
                seconds).
            socket_timeout: Seconds to wait for a reply; short so a stalled Redis
                costs little before the tiered store's breaker opens.
            socket_connect_timeout: Seconds to wait for a connection.
            environ: The environment to read ``REDIS_*`` from; ``os.environ`` if omitted.

        Raises:
            ConfigurationError: No host or url anywhere, an ``os.environ/`` variable is
                unset, a port or db is not an integer, or the TTL is not positive.
        """
        if not ttl_seconds > 0:
            raise ConfigurationError("redis ttl_seconds must be positive")
        explicit = {"host": host, "port": port, "password": password, "url": url}
        explicit |= {"ssl": ssl, "db": db, "username": username}
        kwargs = _connection_kwargs(_merged(explicit, os.environ if environ is None else environ))
        timeouts = {
            "socket_timeout": socket_timeout,
            "socket_connect_timeout": socket_connect_timeout,
        }
        self.prefix = prefix
        self.ttl_seconds = math.ceil(ttl_seconds)
        self._sync = _sync_client(kwargs | timeouts)
        self._async = _async_client(kwargs | timeouts)

    @classmethod
    def from_settings(
        cls, settings: Mapping[str, Any], *, environ: Mapping[str, str] | None = None
    ) -> RedisStore:
        """Build from a config mapping (e.g. a YAML section) with the constructor's keys.

        Args:
            settings: Any of ``host``, ``port``, ``password``, ``url``, ``ssl``, ``db``,
                ``username``, ``prefix``, ``ttl_seconds``, ``socket_timeout`` and
                ``socket_connect_timeout``; values may be ``"os.environ/NAME"``.
            environ: The environment to read from; ``os.environ`` if omitted.

        Returns:
            The configured store (not yet connected).

        Raises:
            ConfigurationError: An unknown key (a misspelt setting must not be ignored),
                or anything the constructor rejects.
        """
        unknown = sorted(set(settings) - _OPTIONS)
        if unknown:
            raise ConfigurationError(
                f"unknown redis settings {unknown}; expected some of {sorted(_OPTIONS)}"
            )
        return cls(**settings, environ=environ)

    @staticmethod
    def is_configured(
        settings: Mapping[str, Any] | None = None, *, environ: Mapping[str, str] | None = None
    ) -> bool:
        """Whether ``settings`` or the environment name a Redis (a host or a url).

        Lets the integration turn the shared tier on exactly when LiteLLM itself would
        find a Redis, without building (or failing to build) a client.

        Args:
            settings: The keys :meth:`from_settings` takes, if any.
            environ: The environment to read from; ``os.environ`` if omitted.
        """
        env = os.environ if environ is None else environ
        given = settings or {}
        return any(given.get(k) is not None or env.get(_ENV_NAMES[k]) for k in ("host", "url"))

    def _keys(self, keys: Sequence[str]) -> list[str]:
        return [self.prefix + key for key in keys]

    def get(self, keys: Sequence[str]) -> Provenance | None:
        """One ``MGET``; the first key in ``keys`` order with a well-formed value wins."""
        if not keys:
            return None
        return _decode(self._sync.mget(self._keys(keys)))

    def get_many(self, key_sets: Sequence[Sequence[str]]) -> list[Provenance | None]:
        """:meth:`get` for each set of keys, in one ``MGET``."""
        flat = [key for keys in key_sets for key in keys]
        return _split(key_sets, self._sync.mget(self._keys(flat)) if flat else [])

    def put(self, keys: Sequence[str], provenance: Provenance) -> None:
        """One pipelined round trip of ``SET key value EX ttl`` per key."""
        if not keys:
            return
        value = _encode(provenance)
        with self._sync.pipeline(transaction=False) as pipe:
            for key in self._keys(keys):
                pipe.set(key, value, ex=self.ttl_seconds)
            pipe.execute()

    async def aget(self, keys: Sequence[str]) -> Provenance | None:
        """Async twin of :meth:`get`."""
        if not keys:
            return None
        return _decode(await self._async.mget(self._keys(keys)))

    async def aget_many(self, key_sets: Sequence[Sequence[str]]) -> list[Provenance | None]:
        """Async twin of :meth:`get_many`."""
        flat = [key for keys in key_sets for key in keys]
        return _split(key_sets, await self._async.mget(self._keys(flat)) if flat else [])

    async def aput(self, keys: Sequence[str], provenance: Provenance) -> None:
        """Async twin of :meth:`put`."""
        if not keys:
            return
        value = _encode(provenance)
        async with self._async.pipeline(transaction=False) as pipe:
            for key in self._keys(keys):
                pipe.set(key, value, ex=self.ttl_seconds)
            await pipe.execute()

    def close(self) -> None:
        """Close the sync client's connections."""
        self._sync.close()

    async def aclose(self) -> None:
        """Close both clients' connections."""
        self._sync.close()
        await self._async.aclose()

    def __enter__(self) -> RedisStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    async def __aenter__(self) -> RedisStore:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


def _sync_client(kwargs: dict[str, Any]) -> redis.Redis:
    # No retries: the tiered store's breaker is the retry policy.
    options = kwargs | {"retry": Retry(NoBackoff(), 0)}
    if "url" in options:
        return redis.Redis.from_url(options.pop("url"), **options)
    return redis.Redis(**options)


def _async_client(kwargs: dict[str, Any]) -> redis.asyncio.Redis:
    options = kwargs | {"retry": AsyncRetry(NoBackoff(), 0)}
    if "url" in options:
        return redis.asyncio.Redis.from_url(options.pop("url"), **options)
    return redis.asyncio.Redis(**options)
