"""The resolved target model: which provider, protocol and model a request goes to.

Every transformation is decided for the model the request is actually sent to (the
resolved deployment, or the fallback hop), so everything starts from a
:class:`TargetModel`. Capabilities come from LiteLLM's model map, where ``None`` means
unknown (not false), and the caller may override any of them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from ._litellm_lookup import lookup_model_info, split_provider
from ._messages import Api
from ._providers import api_for

__all__ = [
    "Capabilities",
    "Family",
    "TargetModel",
    "resolve_request",
    "resolve_target",
    "same_model_id",
]

Family = Literal[
    "anthropic",
    "bedrock",
    "gemini",
    "openai",
    "openai-responses",
    "mistral",
    "deepseek",
    "openai-compatible",
]
"""Provider families: one policy record each (see :mod:`litellm_hygiene._policy`)."""

_ROUTE_PREFIXES = ("converse/", "invoke/", "responses/")


class Capabilities(BaseModel):
    """What the target accepts. ``None`` everywhere means unknown, not "no".

    Attributes:
        images: Accepts image input.
        reasoning: Produces and accepts reasoning (thinking).
        context_window: Maximum input tokens.
        max_output: Maximum output tokens.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    images: bool | None = None
    reasoning: bool | None = None
    context_window: int | None = None
    max_output: int | None = None


class TargetModel(BaseModel):
    """The model a request is sent to.

    Attributes:
        provider: LiteLLM provider key (``anthropic``, ``openrouter``...); ``None`` when
            it could not be resolved.
        api: The wire protocol the provider speaks for this model.
        model_id: The model id without LiteLLM's provider prefix.
        family: The provider family whose policy applies.
        capabilities: What the model accepts.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    provider: str | None
    api: Api
    model_id: str
    family: Family
    capabilities: Capabilities = Capabilities()

    def is_same_model(self, provider: str | None, api: Api | None, model: str | None) -> bool:
        """Signatures and ids from (provider, api, model) may be replayed to this target."""
        if provider is None or api is None or model is None:
            return False
        return (
            _provider_key(provider) == _provider_key(self.provider)
            and api == self.api
            and same_model_id(model, self.model_id)
        )


_PROVIDER_ALIASES = {
    "bedrock_converse": "bedrock",
    "vertex_ai_beta": "vertex_ai",
    "vertex_ai-anthropic_models": "vertex_ai",
    "vertex_ai-language-models": "vertex_ai",
}
_DATE_SUFFIX = re.compile(r"([-@]\d{8}|-\d{4}-\d{2}-\d{2}|-latest)$")
_BEDROCK_DECOR = re.compile(r"^(?:[a-z]{2,4}\.)?(?=[a-z]+\.)|-v\d+(?::\d+)?$")


def _provider_key(provider: str | None) -> str | None:
    return _PROVIDER_ALIASES.get(provider, provider) if provider else provider


@functools.lru_cache(maxsize=256)
def _canonical(model: str) -> str:
    name = model.lower()
    for prefix in _ROUTE_PREFIXES:
        name = name.removeprefix(prefix)
    name = _BEDROCK_DECOR.sub("", name)
    return _DATE_SUFFIX.sub("", name)


def same_model_id(a: str, b: str) -> bool:
    """Two ids name the same model.

    Equal after dropping route prefixes, region and version decorations, and date or
    ``-latest`` suffixes: an alias and its snapshot share signatures
    (``claude-sonnet-4-5`` and ``claude-sonnet-4-5-20250929``).
    """
    return a == b or _canonical(a) == _canonical(b)


def _family(api: Api, model_id: str) -> Family:
    # The families' profiles read Policy, which reads this module: asked at call time.
    from ._families import family_of

    return family_of(api, model_id)


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
    for prefix in _ROUTE_PREFIXES:
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
        family=_family(resolved_api, bare_id),
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
