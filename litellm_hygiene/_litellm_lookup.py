"""The one place target resolution asks LiteLLM about models.

LiteLLM resolves provider prefixes (``get_llm_provider``) and knows model limits and
capabilities (``get_model_info``). Both raise for models they do not know; here that
becomes "unknown", never a crash. Results are cached: the hook resolves the same few
deployments on every request.

``get_llm_provider`` (which ``get_model_info`` calls too) prints a red ``Provider List``
banner to stdout before it raises for a model string it does not know, unless
``litellm.suppress_debug_info`` is set. Asking is not an error here (an unknown model is
a legitimate answer), so the question is asked with the banner off, under a lock, and the
caller's setting is put back.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["lookup_model_info", "quiet_litellm", "split_provider"]

_QUIET = threading.Lock()
"""Serialises the save/set/restore of ``litellm.suppress_debug_info``."""


@contextmanager
def quiet_litellm() -> Iterator[Any]:
    """LiteLLM, with its debug banner off for the block; the caller's setting restored."""
    import litellm

    with _QUIET:
        previous = litellm.suppress_debug_info
        litellm.suppress_debug_info = True
        try:
            yield litellm
        finally:
            litellm.suppress_debug_info = previous


@functools.lru_cache(maxsize=1024)
def split_provider(
    model: str, custom_llm_provider: str | None, api_base: str | None
) -> tuple[str, str | None]:
    """Return ``(model_id, provider)`` as LiteLLM resolves them.

    Falls back to the text before the first ``/`` when LiteLLM cannot resolve it.
    """
    try:
        with quiet_litellm() as litellm:
            model_id, provider, _, _ = litellm.get_llm_provider(
                model=model, custom_llm_provider=custom_llm_provider, api_base=api_base
            )
    except Exception:  # LiteLLM raises its own BadRequestError for unknown prefixes
        if custom_llm_provider:
            return model, custom_llm_provider
        head, sep, tail = model.partition("/")
        return (tail, head) if sep else (model, None)
    return str(model_id), str(provider) if provider else None


@functools.lru_cache(maxsize=1024)
def _cached_info(model_id: str, provider: str | None) -> tuple[tuple[str, Any], ...]:
    try:
        with quiet_litellm() as litellm:
            info = litellm.get_model_info(model=model_id, custom_llm_provider=provider)
    except Exception:  # unmapped models raise; that means "unknown"
        return ()
    return tuple(dict(info).items())


def lookup_model_info(model_id: str, provider: str | None) -> dict[str, Any]:
    """LiteLLM's model info for ``model_id`` on ``provider``; ``{}`` when unknown."""
    return dict(_cached_info(model_id, provider))
