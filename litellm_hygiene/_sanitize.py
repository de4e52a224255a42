"""``sanitize_messages``: OpenAI-shaped messages in, messages valid for the target out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from ._openai import from_openai, to_openai
from ._pipeline import TransformReport, transform_messages
from ._policy import Policy, policy_for
from ._target import TargetModel, resolve_request
from ._validate import validate_for_target

__all__ = ["SanitizeResult", "sanitize_for_target", "sanitize_messages", "transform_all"]


class SanitizeResult(BaseModel):
    """New OpenAI-shaped messages for the target, and what was changed.

    Attributes:
        messages: The messages to send (the caller's own values when nothing changed).
        report: What each pass changed.
        target: The model the messages were transformed for.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    messages: list[Any]
    report: TransformReport
    target: TargetModel


def sanitize_for_target(
    messages: Sequence[Any],
    target: TargetModel,
    *,
    tools: Sequence[Any] | None = None,
    policy: Policy | None = None,
    source: TargetModel | None = None,
) -> SanitizeResult:
    """:func:`sanitize_messages` for an already-resolved target.

    The hot path: the request is first checked as plain dicts against the target's
    rules; when nothing is wrong it is returned as is, without building a model or
    copying a message. Only a request with violations goes through the pipeline.
    """
    policy = policy or policy_for(target)
    if isinstance(messages, list | tuple) and not validate_for_target(
        messages, target, policy, source=source
    ):
        return SanitizeResult(messages=list(messages), report=TransformReport(), target=target)
    return transform_all(messages, target, tools=tools, policy=policy, source=source)


def transform_all(
    messages: Sequence[Any],
    target: TargetModel,
    *,
    tools: Sequence[Any] | None = None,
    policy: Policy | None = None,
    source: TargetModel | None = None,
) -> SanitizeResult:
    """Run the whole pipeline, without the validator's shortcut."""
    context = from_openai(messages, tools)
    result = transform_messages(context, target, policy=policy, source=source)
    if not result.report.changed:
        return SanitizeResult(messages=list(messages), report=result.report, target=target)
    return SanitizeResult(messages=to_openai(result.context), report=result.report, target=target)


def sanitize_messages(
    messages: Sequence[Any],
    model: str,
    *,
    tools: Sequence[Any] | None = None,
    custom_llm_provider: str | None = None,
    api_base: str | None = None,
    model_info: Mapping[str, Any] | None = None,
    source_model: str | None = None,
    policy: Policy | None = None,
) -> SanitizeResult:
    """Make OpenAI-shaped messages valid for ``model``, per request.

    Args:
        messages: The conversation as LiteLLM accepts it; never mutated.
        model: The target model string as given to LiteLLM.
        tools: The request's tools (passed through).
        custom_llm_provider: LiteLLM's explicit provider, when given.
        api_base: The deployment's base URL, when given.
        model_info: A deployment's ``model_info`` overrides.
        source_model: The model that produced assistant turns carrying no provenance
            stamp (for example the model of the previous requests).
        policy: Override the target family's policy.

    Returns:
        The new messages and a report. Running it again on its output changes nothing.

    Raises:
        InvalidMessageError: A message cannot be read.
    """
    target, source = resolve_request(
        model,
        custom_llm_provider=custom_llm_provider,
        api_base=api_base,
        model_info=model_info,
        source_model=source_model,
    )
    return sanitize_for_target(messages, target, tools=tools, policy=policy, source=source)
