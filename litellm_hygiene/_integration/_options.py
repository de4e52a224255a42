"""The callback's options: one validated record, readable from a proxy config.

Proxy users configure callbacks in YAML; LiteLLM keeps the top-level
``callback_settings:`` mapping on ``litellm.callback_settings``, so the proxy handler
reads its options from ``callback_settings: litellm_hygiene: {...}``. Values written as
``os.environ/NAME`` (LiteLLM's secret convention) are read from the environment.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .._errors import ConfigurationError

__all__ = ["ENV_PREFIX", "HygieneOptions", "resolve_secret"]

ENV_PREFIX = "os.environ/"
"""LiteLLM's marker for a config value to be read from an environment variable."""


class HygieneOptions(BaseModel):
    """How :class:`~litellm_hygiene.HygieneCallback` behaves.

    Attributes:
        enabled: Transform requests at all (responses are still stamped when off, so
            turning hygiene on later finds provenance in the history).
        fail_closed: Raise when hygiene itself fails, instead of sending the request
            unchanged. Off by default: a bug in hygiene must never block traffic.
        reject_predicted_overflow: Reject, before it is sent, a request LiteLLM's token
            counter says cannot fit the target's window, with LiteLLM's
            ``ContextWindowExceededError``. Off by default: counting is an estimate.
        overflow_margin: Fraction of the window kept free for the prediction, and for
            ``fit_to_context`` (``0.0`` rejects only a prompt above the window itself).
        upgrade_overflow_errors: Re-raise overflow errors LiteLLM did not map (Mistral's
            wording) as ``ContextWindowExceededError`` where the integration can.
        stamp_responses: Write the provenance stamp on response messages.
        provenance_store: Where stamps are also kept, keyed by response fingerprints,
            for clients that drop unknown fields: ``memory`` (in-process, bounded),
            ``redis`` (shared by proxy instances, with the in-process store as the
            fallback when Redis is down) or ``none``.
        store_max_entries: Bound of the in-process store (fingerprint keys).
        store_ttl_seconds: How long a stamp is kept.
        redis_host: Redis host; unset values fall back to LiteLLM's ``REDIS_*``
            environment variables, as LiteLLM's own Redis settings do.
        redis_port: Redis port.
        redis_password: Redis password.
        redis_username: Redis username.
        redis_url: A ``redis://`` URL instead of host and port.
        redis_ssl: Connect with TLS.
        redis_db: Redis database number.
        redis_timeout: Socket timeout for Redis calls, in seconds; a slow Redis must not
            slow every request.
        redis_retry_after: After a Redis failure, seconds to use only the in-process
            store before trying Redis again.
        header_prefix: Prefix of the proxy response headers hygiene adds.
        unknown_provenance: Override of the policy's rule for unstamped turns with no
            stored provenance (``match_evidence``, ``foreign``, ``same``).
        window_max_messages: Send at most this many messages to each deployment
            (:class:`~litellm_hygiene.SlidingWindow`; tool exchanges kept whole).
            Off by default: what is left out the model never sees.
        window_max_user_turns: Send only the last N user turns and what follows them.
        window_preserve_system_messages: The window keeps every system/developer
            message.
        fit_to_context: Trim each deployment's request to its own input window minus
            the output it asks for (:func:`~litellm_hygiene.fit_to_context`), so a
            fallback to a smaller model fits; a request whose system messages and
            latest user turn alone do not fit is refused with
            ``ContextWindowExceededError`` before it is sent. Off by default.
        fit_marker: Put one short system message where the fit left messages out.
        recall_max_mb: Memory (MiB, estimated) for what hygiene remembers of the
            conversations it has seen, so that a request continuing one works out only
            what is new (``_recall``): content held in this process only, the least
            recently used conversations forgotten first (measured, the recall holds
            1.0 to 1.05 times its estimate). ``0`` remembers nothing. What is remembered
            is scanned by CPython's cyclic collector at each full collection (5 to 6
            ms per 200-step agent session on the benchmark machine).
        pause_gc: Pause CPython's cyclic garbage collector while hygiene reads and
            rewrites a request (never across an ``await``), so the many short-lived
            objects of a rewrite die before a collection can promote them and trigger
            a full one. Off: hygiene never touches the collector.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: bool = True
    fail_closed: bool = False
    reject_predicted_overflow: bool = False
    overflow_margin: float = Field(default=0.0, ge=0.0, lt=1.0)
    upgrade_overflow_errors: bool = True
    stamp_responses: bool = True
    provenance_store: Literal["memory", "redis", "none"] = "memory"
    store_max_entries: int = Field(default=100_000, gt=0)
    store_ttl_seconds: float = Field(default=7 * 24 * 3600, gt=0)
    redis_host: str | None = None
    redis_port: int | None = None
    redis_password: str | None = None
    redis_username: str | None = None
    redis_url: str | None = None
    redis_ssl: bool | None = None
    redis_db: int | None = None
    redis_timeout: float = Field(default=0.25, gt=0)
    redis_retry_after: float = Field(default=30.0, ge=0)
    header_prefix: str = Field(default="x-litellm-hygiene", pattern=r"^[A-Za-z0-9-]+$")
    unknown_provenance: Literal["match_evidence", "foreign", "same"] | None = None
    window_max_messages: int | None = Field(default=None, ge=1)
    window_max_user_turns: int | None = Field(default=None, ge=1)
    window_preserve_system_messages: bool = True
    fit_to_context: bool = False
    fit_marker: bool = False
    recall_max_mb: float = Field(default=256, ge=0)
    pause_gc: bool = True

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any] | None) -> HygieneOptions:
        """Build options from a config mapping, resolving ``os.environ/`` values.

        Raises:
            ConfigurationError: An unknown key, a value of the wrong type, or an
                ``os.environ/`` variable that is not set. The message names the key,
                never the value (it may be a password).
        """
        if settings is None:
            return cls()
        if not isinstance(settings, Mapping):
            raise ConfigurationError(
                f"litellm_hygiene settings must be a mapping, not {type(settings).__name__}"
            )
        resolved = {key: resolve_secret(key, value) for key, value in settings.items()}
        try:
            return cls.model_validate(resolved)
        except ValidationError as err:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in err.errors()
            )
            raise ConfigurationError(f"invalid litellm_hygiene settings: {problems}") from err

    def with_updates(self, **updates: Any) -> HygieneOptions:
        """A copy with ``updates`` applied and validated."""
        return HygieneOptions.from_settings(self.model_dump() | updates)


def resolve_secret(key: str, value: Any, environ: Mapping[str, str] | None = None) -> Any:
    """Read ``os.environ/NAME`` values from the environment; others pass through.

    Args:
        key: The setting's name, for the error message.
        value: The configured value.
        environ: Where to read variables; ``os.environ`` if omitted.

    Raises:
        ConfigurationError: The named variable is not set (the message names the key
            and the variable, never a value).
    """
    if not (isinstance(value, str) and value.startswith(ENV_PREFIX)):
        return value
    name = value[len(ENV_PREFIX) :]
    env = os.environ if environ is None else environ
    if name not in env:
        raise ConfigurationError(
            f"litellm_hygiene setting {key!r}: environment variable {name} is not set"
        )
    return env[name]
