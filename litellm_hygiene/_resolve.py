"""Resolving a LiteLLM call to its :class:`~litellm_hygiene._target.TargetModel`.

What the call knows (its model string, LiteLLM's explicit provider, the deployment's
base URL and ``model_info``) gives the provider and wire protocol (``_providers``), the
capabilities (LiteLLM's model map, overridden by ``model_info`` and the caller), and the
family, whose profile says what the target requires (``_families``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._families import family_of
from ._litellm_lookup import lookup_model_info, split_provider
from ._messages import Api
from ._providers import api_for
from ._target import ROUTE_PREFIXES, Capabilities, TargetModel

__all__ = ["resolve_request", "resolve_target", "target_of"]


def _flag(info: Mapping[str, Any], key: str) -> bool | None:
    value = info.get(key)
    return value if isinstance(value, bool) else None


def _count(info: Mapping[str, Any], *keys: str) -> int | None:
    for key in keys:
        value = info.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def _capabilities(info: Mapping[str, Any]) -> Capabilities:
    return Capabilities(
        images=_flag(info, "supports_vision"),
        reasoning=_flag(info, "supports_reasoning"),
        context_window=_count(info, "max_input_tokens", "max_tokens"),
        max_output=_count(info, "max_output_tokens", "max_tokens"),
    )


def resolve_target(
    model: str,
    *,
    custom_llm_provider: str | None = None,
    api_base: str | None = None,
    model_info: Mapping[str, Any] | None = None,
    api: Api | None = None,
    capabilities: Mapping[str, Any] | None = None,
) -> TargetModel:
    """Resolve what a LiteLLM call knows into a :class:`TargetModel`.

    Args:
        model: The model string as given to LiteLLM (``anthropic/claude-sonnet-4-5``,
            ``openrouter/mistralai/mistral-large``, ``gpt-4o``).
        custom_llm_provider: LiteLLM's explicit provider, when given.
        api_base: The deployment's base URL, when given.
        model_info: A Router/proxy deployment's ``model_info``; its keys
            (``supports_vision``, ``max_input_tokens``...) override LiteLLM's map.
        api: Override the wire protocol.
        capabilities: Override any :class:`Capabilities` field by name.

    Unknown models resolve to an OpenAI-compatible target with unknown capabilities.
    """
    model_id, provider = split_provider(model, custom_llm_provider, api_base)
    resolved_api = api or api_for(provider, model_id)
    bare_id = model_id
    for prefix in ROUTE_PREFIXES:
        bare_id = bare_id.removeprefix(prefix)
    # LiteLLM's map knows "gpt-5-mini", not the route "responses/gpt-5-mini".
    known = (bare_id != model_id and lookup_model_info(bare_id, provider)) or lookup_model_info(
        model_id, provider
    )
    info = known | dict(model_info or {})
    caps = _capabilities(info)
    if capabilities:
        caps = caps.model_copy(update=dict(capabilities))
    return TargetModel(
        provider=provider,
        api=resolved_api,
        model_id=bare_id,
        family=family_of(resolved_api, bare_id),
        capabilities=caps,
    )


def resolve_request(
    model: str,
    *,
    custom_llm_provider: str | None = None,
    api_base: str | None = None,
    model_info: Mapping[str, Any] | None = None,
    source_model: str | None = None,
) -> tuple[TargetModel, TargetModel | None]:
    """The target of a LiteLLM call and, when declared, the source model of its history."""
    target = resolve_target(
        model, custom_llm_provider=custom_llm_provider, api_base=api_base, model_info=model_info
    )
    return target, resolve_target(source_model) if source_model else None


def target_of(kwargs: Mapping[str, Any]) -> TargetModel:
    """The deployment a LiteLLM call goes to, from the call's own kwargs."""
    model_info = kwargs.get("model_info")
    provider = kwargs.get("custom_llm_provider")
    api_base = kwargs.get("api_base")
    return resolve_target(
        str(kwargs.get("model") or ""),
        custom_llm_provider=provider if isinstance(provider, str) else None,
        api_base=api_base if isinstance(api_base, str) else None,
        model_info=model_info if isinstance(model_info, Mapping) else None,
    )
