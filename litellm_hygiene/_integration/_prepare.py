"""The request side: a deployment call's kwargs in, the kwargs to send out.

Read from the top. :func:`before_call` is the deployment hook's work:

1. it tells the call's request shape (:func:`._shapes.shape_of`); a call hygiene leaves
   alone ends there;
2. opens the call's report (:meth:`._report.ReportBook.open_call`);
3. prepares the call (:func:`._request.preparing_call`): the core resolves the
   deployment, restores lost stamps from the provenance store, runs the rules and
   writes the result in the call's own shape; the engine counts what became of it
   (:meth:`HygieneEngine.accepted`), or fails open;
4. puts the report in the call's metadata (:mod:`._metadata`) and the prepared
   messages in its kwargs;
5. and counts the request in the metrics (:mod:`._metrics`).

:func:`prepare` and :func:`prepare_sync` are step 3 alone, for the SDK's wrappers.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from ._engine import HygieneEngine
from ._metadata import summary_of, with_report_metadata
from ._metrics import model_label, observe_request
from ._prepared import Prepared
from ._report import CallReport, call_id_of
from ._request import preparing_call
from ._shapes import shape_named, shape_of
from ._steps import run, run_sync

__all__ = ["before_call", "prepare", "prepare_sync"]


async def before_call(
    engine: HygieneEngine, kwargs: dict[str, Any], call_type: str | None
) -> dict[str, Any] | None:
    """The kwargs to send for a deployment call of ``call_type``; ``None``: as they are.

    Every request hygiene saw carries its report in the call's ``spend_logs_metadata``
    (spend logs, the admin UI, every logging integration), so "unchanged" is as visible
    to operators as "changed", and is counted in the Prometheus metrics.

    Raises:
        ContextWindowExceededError: The request cannot fit its deployment, or is
            predicted to overflow and ``reject_predicted_overflow`` is set.
        BadRequestError: ``fail_closed`` is set and a message cannot be read.
        Exception: ``fail_closed`` is set and hygiene failed internally.
    """
    served = shape_of(kwargs, call_type)
    if served is None:
        return None
    opened = engine.reports.open_call(call_id_of(kwargs), None if served.is_chat else served.name)
    if opened is None:
        return None
    report, resend = opened
    started = time.perf_counter()
    outcome: str | None = "rejected"  # until the request is prepared
    try:
        steps = preparing_call(engine, served, kwargs, report)
        prepared = await run(steps, engine.options, engine.store)
        enabled = engine.options.enabled
        if prepared is None and report.error is None and enabled:
            outcome = None  # no conversation: nothing for hygiene to do or report
            return None
        new_kwargs = with_report_metadata(
            kwargs, report, enabled=enabled, container=served.metadata
        )
        if prepared is not None and prepared.changed:
            new_kwargs = prepared.apply(new_kwargs)  # its messages, trimmed parameters gone
        # A request LiteLLM resends was counted on its first attempt.
        outcome = None if resend else summary_of(report, enabled=enabled)
        return new_kwargs
    finally:
        if outcome is not None:
            seconds = time.perf_counter() - started
            label = model_label(kwargs, report.target)
            observe_request(label, outcome, seconds, report.changes, report.restored)


async def prepare(
    engine: HygieneEngine,
    kwargs: Mapping[str, Any],
    report: CallReport,
    shape: str | None = None,
) -> Prepared | None:
    """Transform a call's conversation; ``None`` when hygiene does not apply or failed open.

    ``shape``: the name of the call's request shape (:data:`._shapes.SHAPES`; ``None``:
    chat, as :attr:`CallReport.shape` says). The store is awaited, and heavy work runs
    on a worker thread.

    Raises:
        ContextWindowExceededError: The request cannot fit its deployment, or is
            predicted to overflow and ``reject_predicted_overflow`` is set.
        BadRequestError: ``fail_closed`` is set and a message cannot be read.
        Exception: ``fail_closed`` is set and hygiene failed internally.
    """
    steps = preparing_call(engine, shape_named(shape), kwargs, report)
    return await run(steps, engine.options, engine.store)


def prepare_sync(
    engine: HygieneEngine,
    kwargs: Mapping[str, Any],
    report: CallReport,
    shape: str | None = None,
) -> Prepared | None:
    """:func:`prepare` for the sync SDK wrappers: the store called, all work on this thread."""
    steps = preparing_call(engine, shape_named(shape), kwargs, report)
    return run_sync(steps, engine.options, engine.store)
