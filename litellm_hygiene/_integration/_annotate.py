"""The answer's core: stamp the assistant message, remember it, flag overflow, attach the report.

:func:`annotating` (a chat answer) and :func:`answering` (the answer of a call of
another shape, sent as it is) are the steps the answer side (:mod:`._answer`) runs for
LiteLLM's hooks; each step fails on its own: a store that cannot record the stamp does
not cost the overflow flag, and nothing costs the caller the answer.

The stamp (``message.litellm_hygiene = {provider, api, model}``) is set as an extra
attribute on LiteLLM's ``Message``: it is part of ``model_dump()``, so it survives the
proxy's JSON and the OpenAI SDK's ``model_dump()`` on the client, and it comes back with
the history. The provenance recorded is the deployment hygiene transformed for, so that
the next request to the same deployment recognises its own turns.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from litellm import ModelResponse

from .._overflow import Overflow, detect_overflow
from .._resolve import target_of
from .._target import TargetModel
from .._wire._keys import STAMP_KEY
from ._engine import HygieneEngine, logger, target_label
from ._report import HIDDEN_PARAMS_KEY, CallReport
from ._shapes import RequestShape
from ._steps import Record, Steps
from ._store import Provenance

__all__ = [
    "annotating",
    "answering",
    "attach_report",
    "provenance_of",
    "raw_response_of",
    "remembering",
    "response_overflow",
    "stamp",
]


def annotating(
    engine: HygieneEngine,
    request_data: Mapping[str, Any],
    response: ModelResponse,
    report: CallReport,
) -> Steps[None]:
    """A chat answer's steps: stamp it, remember it, flag overflow, attach the report."""
    try:
        target: TargetModel | None = target_of(request_data)
    except Exception as err:
        engine.internal_error("response target", err)
        target = None
    if target is not None:
        report.target = report.target or target_label(target)
        if engine.options.stamp_responses:
            provenance = provenance_of(target)
            try:
                for message in stamp(response, provenance):
                    yield from remembering(engine, message, provenance)
            except Exception as err:
                engine.internal_error("response stamp", err)
        _flag(engine, response, target, request_data, report)
    attach_report(response, report)


def answering(
    engine: HygieneEngine,
    served: RequestShape,
    kwargs: Mapping[str, Any],
    response: Any,
    report: CallReport,
    streamed: bool = False,
) -> Steps[TargetModel | None]:
    """The steps for the answer of a call of the ``served`` shape, sent as it is.

    The answer is not stamped (the client keeps its content, not hygiene's key): its
    turns are remembered under the target of the call's route, and its overflow is
    flagged. ``streamed``: the answer LiteLLM assembled from a stream (a
    ``ModelResponse`` for an Anthropic stream). The target; ``None`` when it cannot be
    told.
    """
    assert served.target is not None and served.answer is not None  # not chat
    where = "stream" if streamed else "response"
    try:
        target = served.target(kwargs)
    except Exception as err:
        engine.internal_error(f"{where} target", err)
        return None
    report.target = report.target or target_label(target)
    if engine.options.stamp_responses:
        try:
            provenance = provenance_of(target)
            for turn in served.answer(response):
                yield from remembering(engine, turn, provenance)
        except Exception as err:
            engine.internal_error("stream provenance" if streamed else "response fingerprints", err)
    if streamed:
        engine.stats["stream_answers"] += 1
    if isinstance(response, Mapping) or (streamed and isinstance(response, ModelResponse)):
        _flag(engine, response, target, kwargs, report)
    return target


def remembering(engine: HygieneEngine, message: Any, provenance: Provenance) -> Steps[None]:
    """Record ``message``'s provenance; a store failure is counted, never raised."""
    if engine.store is None:
        return
    try:
        yield Record(message, provenance)
    except Exception as err:
        engine.store_failed(type(err).__name__)


def provenance_of(target: TargetModel) -> Provenance:
    """The provenance recorded for answers from ``target``."""
    return Provenance(provider=target.provider, api=target.api, model=target.model_id)


def stamp(response: ModelResponse, provenance: Provenance) -> list[Any]:
    """Stamp every choice's message; returns the messages stamped."""
    stamped: list[Any] = []
    value = provenance.as_stamp()
    for choice in response.choices or ():
        message = getattr(choice, "message", None)
        if message is None:
            continue
        setattr(message, STAMP_KEY, dict(value))
        stamped.append(message)
    return stamped


def raw_response_of(request_data: Mapping[str, Any]) -> Mapping[str, Any] | str | None:
    """The provider's raw response LiteLLM kept on the call's logging object.

    Stop reasons LiteLLM rewrites (Anthropic's ``model_context_window_exceeded`` becomes
    ``finish_reason: "length"`` or ``"stop"``) survive only there.
    """
    logging_obj = request_data.get("litellm_logging_obj")
    details = getattr(logging_obj, "model_call_details", None)
    if not isinstance(details, Mapping):
        return None
    raw = details.get("original_response")
    return raw if isinstance(raw, Mapping | str) else None


def response_overflow(
    response: ModelResponse | Mapping[str, Any],
    target: TargetModel,
    request_data: Mapping[str, Any],
) -> Overflow | None:
    """The overflow a successful response shows, using the target's window.

    ``response``: LiteLLM's, or a provider's answer as a dict (``/v1/messages``).
    """
    window = target.capabilities.context_window
    return detect_overflow(
        response,
        context_window=window if window and window > 0 else None,
        provider=target.provider,
        raw_response=raw_response_of(request_data),
    )


def attach_report(response: Any, report: CallReport) -> None:
    """Put the report in the response's hidden params, where SDK users read it."""
    hidden = getattr(response, "_hidden_params", None)
    if not isinstance(hidden, dict):
        hidden = {}
        try:
            response._hidden_params = hidden
        except (AttributeError, TypeError):
            return
    hidden[HIDDEN_PARAMS_KEY] = report.as_dict()


def _flag(
    engine: HygieneEngine,
    response: ModelResponse | Mapping[str, Any],
    target: TargetModel,
    request_data: Mapping[str, Any],
    report: CallReport,
) -> None:
    """Flag an overflow the answer shows (its stop reason and usage, ``target``'s window)."""
    try:
        report.overflow = response_overflow(response, target, request_data)
    except Exception as err:
        engine.internal_error("overflow detection", err)
        return
    if report.overflow is not None:
        engine.stats["overflow_flagged"] += 1
        logger.info(
            "litellm_hygiene: response from %s overflowed its context window (%s)",
            report.target,
            report.overflow.signal,
        )
