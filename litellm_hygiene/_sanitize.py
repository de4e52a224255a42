"""``sanitize_messages``: OpenAI-shaped messages in, messages valid for the target out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from pydantic import BaseModel, ConfigDict

from ._build import trusted
from ._messages import Context
from ._openai import STAMP_KEY, encode_message, from_openai, to_openai
from ._openai._decode import lifted_system_prompt
from ._passes._base import Change
from ._passes._stamps import STEP as STAMP_STEP
from ._pipeline import TransformReport, transform_messages
from ._policy import Policy, policy_for
from ._target import TargetModel, resolve_request
from ._validate import validate_for_target
from ._validate_scan import scan_request

__all__ = ["SanitizeResult", "sanitize_for_target", "sanitize_messages", "transform_all"]


class SanitizeResult(BaseModel):
    """New OpenAI-shaped messages for the target, and what was changed.

    Attributes:
        messages: The messages to send. A message nothing changed is the caller's own
            dict (one that lost only its stamp is a shallow copy sharing the caller's
            values); only messages a pass changed are written anew.
        report: What each pass changed.
        target: The model the messages were transformed for.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    messages: list[Any]
    report: TransformReport
    target: TargetModel


_NOTHING: Final = TransformReport()


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
    rules (:func:`~litellm_hygiene._validate_scan.scan_request`, and the validator when
    the scan cannot tell). When the validator would find nothing wrong, the request is
    returned as is, without building a model or copying a message. When only the
    provenance stamps are wrong (and nothing else the pipeline changes), the stamped
    messages are copied shallowly without them: the messages and changes
    :func:`transform_all` gives, leaving out the provenance attribution, which changes
    nothing that is sent (``tests/test_perf_fast_path.py``). Any other request goes
    through the pipeline, and only the messages a pass changed are written anew.
    """
    policy = policy or policy_for(target)
    if not isinstance(messages, list | tuple):
        return transform_all(messages, target, tools=tools, policy=policy, source=source)
    verdict = scan_request(messages, target, policy, source)
    if verdict == "unsure" and not validate_for_target(messages, target, policy, source=source):
        verdict = "clean"
    if verdict == "clean":
        return trusted(SanitizeResult, messages=list(messages), report=_NOTHING, target=target)
    if verdict == "stamps":  # the scan read every message as a dict
        return _without_stamps(messages, target)
    context = from_openai(messages, tools)
    result = transform_messages(context, target, policy=policy, source=source)
    if not result.report.changed:
        return trusted(SanitizeResult, messages=list(messages), report=result.report, target=target)
    out = _encoded(messages, context, result.context)
    return trusted(SanitizeResult, messages=out, report=result.report, target=target)


def _without_stamps(messages: Sequence[dict[str, Any]], target: TargetModel) -> SanitizeResult:
    """What the pipeline makes of a request whose only fault is its provenance stamps.

    Each stamped message is copied without the stamp key (its values are shared with
    the caller's message, as every value of an untouched request is); the others are
    the caller's own. The changes are the ones :func:`strip_hygiene_stamps` reports,
    indexed as in the pipeline, where a lifted system prompt is not a message.
    """
    offset = 0 if lifted_system_prompt(messages) is None else 1
    out: list[Any] = []
    changes: list[Change] = []
    for index, message in enumerate(messages):
        if STAMP_KEY in message:
            message = dict(message)
            del message[STAMP_KEY]
            changes.append(
                trusted(Change, step=STAMP_STEP, kind="stamp_removed", index=index - offset)
            )
        out.append(message)
    report = trusted(TransformReport, changes=tuple(changes))
    return trusted(SanitizeResult, messages=out, report=report, target=target)


def _encoded(messages: Sequence[Any], before: Context, after: Context) -> list[Any]:
    """``to_openai(after)``, with the caller's own dict for every message no pass touched.

    A pass returns the very object it was given when it changes nothing, so a message
    of ``after`` that is a message of ``before`` encodes back to the caller's message
    (the converter's round trip is exact): that message is not written again.
    """
    offset = 0 if before.system_prompt is None else 1
    given = {id(m): messages[i + offset] for i, m in enumerate(before.messages)}
    out: list[Any] = []
    for message in after.messages:
        original = given.get(id(message))
        out.append(original if isinstance(original, dict) else encode_message(message))
    if after.system_prompt is not None:
        out.insert(0, messages[0])  # the pipeline never changes the lifted system prompt
    return out


def transform_all(
    messages: Sequence[Any],
    target: TargetModel,
    *,
    tools: Sequence[Any] | None = None,
    policy: Policy | None = None,
    source: TargetModel | None = None,
) -> SanitizeResult:
    """Run the whole pipeline and write every message anew: the hot path's reference.

    :func:`sanitize_for_target` gives the same messages and changes (the provenance
    attribution aside) with less work; ``tests/test_perf_fast_path.py`` holds it to this.
    """
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
