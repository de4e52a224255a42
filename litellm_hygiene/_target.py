"""The resolved target model: which provider, protocol and model a request goes to.

Every transformation is decided for the model the request is actually sent to (the
resolved deployment, or the fallback hop), so everything starts from a
:class:`TargetModel`. Capabilities come from LiteLLM's model map, where ``None`` means
unknown (not false), and the caller may override any of them. This module holds the
value and what compares two of them; :mod:`litellm_hygiene._resolve` works one out from
what a LiteLLM call knows, its family from the families' profiles.
"""

from __future__ import annotations

import functools
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict

from ._messages import Api

__all__ = ["ROUTE_PREFIXES", "Capabilities", "Family", "TargetModel", "same_model_id"]

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

ROUTE_PREFIXES = ("converse/", "invoke/", "responses/")
"""LiteLLM's route prefixes of a model id (``bedrock/converse/...``): not part of the model."""


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
    for prefix in ROUTE_PREFIXES:
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
