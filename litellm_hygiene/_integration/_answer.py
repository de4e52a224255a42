"""The answer side: what hygiene does with what a deployment call gives back.

Read from the top; each function is one of LiteLLM's hooks' work, and each reads the
call's shape (:func:`._shapes.shape_of`) and report (:mod:`._report`), runs the answer's
steps (:mod:`._annotate`), and publishes what they found (:mod:`._metrics`,
:mod:`._metadata`):

- :func:`after_call` (a deployment's answer): a chat answer is stamped with the
  deployment it came from, its fingerprints remembered in the provenance store, its
  overflow flagged with the deployment's window and the provider's raw stop reason,
  and the report attached to its hidden params. The answer of a ``/v1/messages`` or
  ``/v1/responses`` call sent as it is is not stamped (the client keeps only its
  content): its turns' fingerprints are remembered and its overflow flagged.
- :func:`after_failure` (a deployment's error): an overflow error is recorded in the
  report before LiteLLM's failure logging reads the call's metadata.
- :func:`after_stream` (a streamed answer LiteLLM assembled): its provenance remembered,
  its overflow flagged; :func:`closing_chunk` stamps the delta of a streamed chat
  answer's closing chunk.

:func:`annotate` and :func:`annotate_sync` are a chat answer's steps alone, for the
SDK's wrappers; :func:`remember` records one answer's provenance.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from litellm import ModelResponse

from .._resolve import target_of
from .._wire._keys import STAMP_KEY
from ._annotate import annotating, answering, provenance_of, remembering
from ._engine import HygieneEngine
from ._metadata import update_published
from ._metrics import model_label, observe_overflow
from ._overflow_errors import token_overflow_of
from ._report import CallReport, call_id_of
from ._shapes import CHAT, RequestShape, answered_inside, call_type_name, shape_of
from ._steps import run, run_sync
from ._store import Provenance

__all__ = [
    "after_call",
    "after_failure",
    "after_stream",
    "annotate",
    "annotate_sync",
    "closing_chunk",
    "remember",
]


async def after_call(
    engine: HygieneEngine, request_data: dict[str, Any], response: Any, call_type: str | None
) -> Any:
    """The answer of a deployment call, annotated; ``None``: the answer as it came."""
    served = shape_of(request_data, call_type)
    if served is None:
        return None
    if not served.is_chat:
        await _shaped_answer(engine, served, request_data, response, streamed=False)
        return None
    call_id = call_id_of(request_data)
    landed = engine.reports.get(call_id)
    if landed is not None:
        landed.in_flight = False  # the hop is over: a later call of its id is another's
    if not isinstance(response, ModelResponse):
        return None
    report = engine.reports.get_or_open(call_id)
    flagged = report.overflow is not None
    await run(annotating(engine, request_data, response, report), engine.options, engine.store)
    _publish(request_data, report, flagged)
    return response


async def after_failure(
    engine: HygieneEngine, request_data: Mapping[str, Any], error: Exception, call_type: str | None
) -> None:
    """Record an overflow error in the call's report (and its published metadata)."""
    served = shape_of(request_data, call_type)
    if served is None:
        return
    report = engine.reports.get(call_id_of(request_data))
    if report is None:
        return
    if served.is_chat:
        report.in_flight = False  # the hop is over
    if _is_resent(error):
        report.resent = True
    if report.overflow is not None:
        return
    try:
        report.overflow = token_overflow_of(error, None)
    except Exception as err:
        engine.internal_error("overflow detection", err)
        return
    _publish(request_data, report, False)


async def after_stream(engine: HygieneEngine, kwargs: dict[str, Any], response: Any) -> None:
    """Remember the provenance of a streamed answer once LiteLLM assembled it.

    A ``/v1/messages`` or ``/v1/responses`` call sent as it is has no other hook for its
    stream: LiteLLM assembles a native Anthropic stream into a ``ModelResponse`` here, a
    Responses stream into a ``ResponsesAPIResponse``; its provenance is the one of its
    route's target, and its overflow is flagged here (counted, logged and in the metrics:
    the stream's headers went out before its end was known).
    """
    if not kwargs.get("stream"):
        return
    call_type = call_type_name(kwargs.get("call_type"))
    served = shape_of(kwargs, call_type)
    if served is not None and not served.is_chat:
        await _shaped_answer(engine, served, kwargs, response, streamed=True)
        return
    if not engine.options.stamp_responses:
        return
    try:
        if answered_inside(kwargs, call_type):
            return  # the inner call's hooks remembered it, as that route's
        if not isinstance(response, ModelResponse):
            return
        provenance = provenance_of(target_of(kwargs))
        for choice in response.choices or ():
            message = getattr(choice, "message", None)
            if message is not None:
                await remember(engine, message, provenance)
    except Exception as err:
        engine.internal_error("stream provenance", err)


def closing_chunk(
    engine: HygieneEngine, request_data: Mapping[str, Any], chunk: Any, call_type: str | None
) -> Any:
    """Stamp the delta of the chunk that closes a streamed chat answer; ``None``: as it is."""
    if not engine.options.stamp_responses or call_type not in CHAT.call_types:
        return None
    for choice in getattr(chunk, "choices", None) or ():
        delta = getattr(choice, "delta", None)
        if getattr(choice, "finish_reason", None) is None or delta is None:
            continue
        try:
            value = provenance_of(target_of(request_data)).as_stamp()
            setattr(delta, STAMP_KEY, value)
        except Exception as err:
            engine.internal_error("stream stamp", err)
    return chunk


async def annotate(
    engine: HygieneEngine,
    request_data: Mapping[str, Any],
    response: ModelResponse,
    report: CallReport,
) -> None:
    """Stamp a chat answer, remember it, flag overflow, attach the report; never raises."""
    await run(annotating(engine, request_data, response, report), engine.options, engine.store)


def annotate_sync(
    engine: HygieneEngine,
    request_data: Mapping[str, Any],
    response: ModelResponse,
    report: CallReport,
) -> None:
    """:func:`annotate` for the sync SDK wrappers."""
    run_sync(annotating(engine, request_data, response, report), engine.options, engine.store)


async def remember(engine: HygieneEngine, message: Any, provenance: Provenance) -> None:
    """Record an answer's provenance under its fingerprints; failures are counted."""
    await run(remembering(engine, message, provenance), engine.options, engine.store)


async def _shaped_answer(
    engine: HygieneEngine,
    served: RequestShape,
    request_data: Mapping[str, Any],
    response: Any,
    streamed: bool,
) -> None:
    """The answer of a call of another shape, sent as it is: remembered, flagged, published."""
    report = engine.reports.get_or_open(call_id_of(request_data))
    flagged = report.overflow is not None
    steps = answering(engine, served, request_data, response, report, streamed)
    await run(steps, engine.options, engine.store)
    _publish(request_data, report, flagged)


def _publish(request_data: Mapping[str, Any], report: CallReport, flagged: bool) -> None:
    """Complete the published report; count an overflow seen for the first time."""
    if report.overflow is not None and not flagged:
        observe_overflow(model_label(request_data, report.target), report.overflow.kind)
    update_published(report)


def _is_resent(error: Exception) -> bool:
    """Whether LiteLLM sends the failed call again itself (1.110: ``resent_on``)."""
    context = importlib.import_module("litellm._internal_context")
    is_resent_failure = getattr(context, "is_resent_failure", None)  # not before 1.110
    return is_resent_failure is not None and bool(is_resent_failure(error))
