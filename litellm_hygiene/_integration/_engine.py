"""The engine behind :class:`~litellm_hygiene.HygieneCallback`, free of LiteLLM's hooks.

Request side (:meth:`HygieneEngine.prepare`): resolve the deployment, restore lost
stamps from the provenance store, transform, record what changed, and optionally reject
a request predicted to overflow. Response side (:meth:`HygieneEngine.annotate`): stamp
the answer, remember its fingerprints, flag overflow, attach the report. The callback's
hooks and the SDK wrappers are thin calls into these.

Failure behaviour: an internal error never blocks traffic unless ``fail_closed`` is set;
the request goes out unchanged, and the error is logged by type (never content) and
counted in :attr:`HygieneEngine.stats`.
"""

from __future__ import annotations

import functools
import logging
from collections import Counter
from collections.abc import Mapping
from typing import Any

from litellm import ModelResponse
from litellm.exceptions import BadRequestError, ContextWindowExceededError

from .._errors import InvalidMessageError
from .._overflow import predict_overflow
from .._recall import Recall
from .._target import TargetModel
from ._annotate import attach_report, provenance_of, response_overflow, stamp
from ._metrics import StatsCounter
from ._options import HygieneOptions
from ._overflow_errors import predicted_overflow_error
from ._report import CallReport, ReportBook
from ._request import Prepared, preparing, preparing_shaped, target_of
from ._shapes import shape_named
from ._steps import Record, Steps, run, run_sync
from ._store import Provenance, ProvenanceStore
from ._store._config import build_store

__all__ = ["HygieneEngine", "logger", "target_label"]


logger = logging.getLogger("litellm_hygiene")


def target_label(target: TargetModel) -> str:
    """``provider/model`` for reports and headers."""
    return f"{target.provider}/{target.model_id}" if target.provider else target.model_id


class HygieneEngine:
    """Hygiene for LiteLLM calls: options, provenance store, per-call reports, counters.

    Args:
        options: A :class:`HygieneOptions`; keyword arguments override its fields.
        store: A provenance store to use instead of the one ``options`` describe.
        **overrides: Option fields by name (``fail_closed=True``).

    Attributes:
        stats: Counters: ``requests``, ``changed``, ``unchanged``, ``restored``,
            ``errors`` (and ``error:<Type>``), ``invalid_input``, ``overflow_flagged``,
            ``overflow_upgraded``, ``overflow_downgraded``, ``overflow_rejected``,
            ``store_errors``, ``trimmed`` (requests the window or fit cut),
            ``fit_rejected`` (requests that could not fit even their minimum),
            ``stream_answers`` (streamed ``/v1/messages`` and ``/v1/responses`` answers
            read once LiteLLM assembled them), ``recalled_messages`` (messages whose
            work was remembered from an earlier request of their conversation),
            ``recall_evictions`` (conversations forgotten to keep ``recall_max_mb``). Every
            increment is also counted in Prometheus as
            ``litellm_hygiene_events_total{event=...}`` (summed over proxy workers).
    """

    def __init__(
        self,
        options: HygieneOptions | None = None,
        *,
        store: ProvenanceStore | None = None,
        **overrides: Any,
    ) -> None:
        base = options or HygieneOptions()
        self._options = base.with_updates(**overrides) if overrides else base
        # Built now, not on first use: a store that cannot be configured (Redis chosen,
        # no host anywhere) is a startup error, never a per-request failure. Nothing
        # connects yet.
        self._store = store if store is not None else build_store(self._options)
        self.reports = ReportBook()
        """The report of each call in flight, by LiteLLM's call id."""
        self.stats: Counter[str] = StatsCounter()
        self._recall = Recall(int(self._options.recall_max_mb * (1 << 20)), self._count)

    def _count(self, name: str, amount: int) -> None:
        self.stats[name] += amount

    @property
    def options(self) -> HygieneOptions:
        """The options in force."""
        return self._options

    @property
    def recall(self) -> Recall:
        """What was worked out for the conversations seen (``recall_max_mb`` bounds it)."""
        return self._recall

    @property
    def store(self) -> ProvenanceStore | None:
        """The provenance store (``None`` when ``provenance_store`` is ``none``)."""
        return self._store

    def report_for(self, call_id: str | None) -> CallReport | None:
        """The report of a call still in flight (or awaiting its proxy headers)."""
        return self.reports.get(call_id)

    async def prepare(
        self, kwargs: Mapping[str, Any], report: CallReport, shape: str | None = None
    ) -> Prepared | None:
        """Transform a call's messages; ``None`` when hygiene does not apply or failed open.

        ``shape``: ``anthropic_messages`` for a ``/v1/messages`` call, ``responses`` for a
        ``/v1/responses`` one, sent as they are (read and written in that shape);
        ``None`` for chat completions.

        Raises:
            ContextWindowExceededError: The request is predicted to overflow and
                ``reject_predicted_overflow`` is set.
            BadRequestError: ``fail_closed`` is set and a message cannot be read.
            Exception: ``fail_closed`` is set and hygiene failed internally.
        """
        return await run(self._preparing(kwargs, report, shape), self._options, self._store)

    def prepare_sync(
        self, kwargs: Mapping[str, Any], report: CallReport, shape: str | None = None
    ) -> Prepared | None:
        """:meth:`prepare` for the sync SDK wrappers (sync store calls)."""
        return run_sync(self._preparing(kwargs, report, shape), self._options, self._store)

    def _preparing(
        self, kwargs: Mapping[str, Any], report: CallReport, shape: str | None
    ) -> Steps[Prepared | None]:
        """:meth:`prepare`'s steps: written once for both drivers (see :mod:`._steps`)."""
        if not self._applies(kwargs, shape):
            return None
        try:
            read_as = shape_named(shape).view
            if read_as is None:
                call = kwargs
                prepared = yield from preparing(
                    kwargs, self._options, self._store, recall=self._recall
                )
            else:
                view = functools.partial(read_as, recall=self._recall)
                call, prepared = yield from preparing_shaped(
                    kwargs, self._options, self._store, view, self._recall
                )
        except ContextWindowExceededError:
            self._cannot_fit(report)
            raise
        except Exception as err:
            self._failed(err, report, kwargs)
            return None
        return self._accept(call, prepared, report)

    def _accept(
        self, kwargs: Mapping[str, Any], prepared: Prepared, report: CallReport
    ) -> Prepared:
        """Count, report and check the prediction of a request hygiene prepared."""
        if prepared.store_error:
            self._store_failed_named(prepared.store_error)
        self._record(prepared, report)
        self._check_prediction(kwargs, prepared)
        return prepared

    def _cannot_fit(self, report: CallReport) -> None:
        """Count a request ``fit_to_context`` refused: even its minimum overflows."""
        self.stats["fit_rejected"] += 1
        report.error = "ContextWindowExceededError"
        logger.info("litellm_hygiene: rejected a request that cannot fit its deployment")

    def _applies(self, kwargs: Mapping[str, Any], shape: str | None = None) -> bool:
        """Whether the call holds a conversation (a ``responses`` one: a list of items)."""
        conversation = kwargs.get(shape_named(shape).conversation)
        if not isinstance(conversation, list) or not conversation:
            return False
        self.stats["requests"] += 1
        return self._options.enabled

    def _record(self, prepared: Prepared, report: CallReport) -> None:
        report.target = target_label(prepared.target)
        report.changes = dict(prepared.changes)
        report.restored = prepared.restored
        report.trimmed = prepared.trimmed
        report.unread = list(prepared.unread)
        self.stats["trimmed"] += prepared.trimmed is not None
        if prepared.unread:
            self.stats["unread_messages"] += len(prepared.unread)
            logger.warning(
                "litellm_hygiene: kept %d unreadable message(s) as they came (%s); "
                "the rest of the request was transformed",
                len(prepared.unread),
                "; ".join(prepared.unread),
            )
        self.stats["changed" if prepared.changes else "unchanged"] += 1
        self.stats["restored"] += prepared.restored
        if prepared.changes:
            logger.info(
                "litellm_hygiene: transformed request for %s: %s",
                report.target,
                ", ".join(f"{k}={v}" for k, v in sorted(prepared.changes.items())),
            )

    def _failed(self, err: Exception, report: CallReport, kwargs: Mapping[str, Any]) -> None:
        """Fail open (log by type, count, send unchanged) or, if configured, raise."""
        kind = type(err).__name__
        report.error = kind
        if isinstance(err, InvalidMessageError):
            self.stats["invalid_input"] += 1
            logger.warning(
                "litellm_hygiene: unreadable message at index %d (field %s); %s",
                err.index,
                err.field,
                "request rejected" if self._options.fail_closed else "request sent unchanged",
            )
            if self._options.fail_closed:
                raise BadRequestError(
                    message=f"litellm_hygiene: {err}",
                    model=str(kwargs.get("model") or ""),
                    llm_provider=str(kwargs.get("custom_llm_provider") or ""),
                ) from err
            return
        self.stats["errors"] += 1
        self.stats[f"error:{kind}"] += 1
        logger.warning(
            "litellm_hygiene: internal error %s; %s",
            kind,
            "request rejected" if self._options.fail_closed else "request sent unchanged",
        )
        if self._options.fail_closed:
            raise err

    def _check_prediction(self, kwargs: Mapping[str, Any], prepared: Prepared) -> None:
        """Reject a request predicted not to fit, when configured to."""
        if not self._options.reject_predicted_overflow:
            return
        target = prepared.target
        try:
            prediction = predict_overflow(
                list(prepared.messages),
                str(kwargs.get("model") or ""),
                max_tokens=_int_or_none(
                    kwargs.get("max_tokens") or kwargs.get("max_completion_tokens")
                ),
                context_window=_margin(target.capabilities.context_window, self._options),
                tools=kwargs.get("tools") if isinstance(kwargs.get("tools"), list) else None,
                model_info=_mapping_or_none(kwargs.get("model_info")),
            )
        except Exception as err:  # an estimate must never block traffic on its own
            self.internal_error("overflow prediction", err)
            return
        if prediction.overflows:
            self.stats["overflow_rejected"] += 1
            logger.info("litellm_hygiene: rejected request predicted to overflow %s", target)
            raise predicted_overflow_error(prediction, target)

    async def annotate(
        self, request_data: Mapping[str, Any], response: ModelResponse, report: CallReport
    ) -> None:
        """Stamp, remember, flag overflow, attach the report; never raises.

        Each step fails on its own: a store that cannot record the stamp does not cost
        the overflow flag, and nothing costs the caller the answer.
        """
        steps = self._annotating(request_data, response, report)
        await run(steps, self._options, self._store)

    def annotate_sync(
        self, request_data: Mapping[str, Any], response: ModelResponse, report: CallReport
    ) -> None:
        """:meth:`annotate` for the sync SDK wrappers."""
        run_sync(self._annotating(request_data, response, report), self._options, self._store)

    def _annotating(
        self, request_data: Mapping[str, Any], response: ModelResponse, report: CallReport
    ) -> Steps[None]:
        """:meth:`annotate`'s steps: written once for both drivers."""
        target = self._annotation_target(request_data, report)
        if target is not None:
            try:
                for message, provenance in self._stamp(response, target, report):
                    yield from self._remembering(message, provenance)
            except Exception as err:
                self.internal_error("response stamp", err)
            self._flag(response, target, request_data, report)
        attach_report(response, report)

    async def annotate_answer(
        self, request_data: Mapping[str, Any], response: Any, report: CallReport, shape: str
    ) -> None:
        """:meth:`annotate` for the answer of a call of another shape, sent as it is.

        ``shape`` as :meth:`prepare`'s. The answer (an Anthropic message dict, a
        ``ResponsesAPIResponse``) is not stamped: the client keeps its content, not
        hygiene's key. Its fingerprints are remembered; an Anthropic answer's stop reason
        and usage are checked for overflow.
        """
        target = await self._remember_answer(
            request_data, response, report, shape, ("response target", "response fingerprints")
        )
        if target is not None and isinstance(response, Mapping):
            self._flag(response, target, request_data, report)

    async def streamed_answer(
        self, kwargs: Mapping[str, Any], response: Any, report: CallReport, shape: str
    ) -> None:
        """:meth:`annotate_answer` for a streamed answer, once LiteLLM assembled it.

        A native stream has no success deployment hook: the answer's provenance is
        remembered and its overflow flagged here. LiteLLM assembles an Anthropic stream
        into a ``ModelResponse`` (its stop reason mapped, so the overflow shows in its
        usage against the window) and a Responses stream into a ``ResponsesAPIResponse``.
        """
        target = await self._remember_answer(
            kwargs, response, report, shape, ("stream target", "stream provenance")
        )
        if target is None:
            return
        self.stats["stream_answers"] += 1
        if isinstance(response, ModelResponse | Mapping):
            self._flag(response, target, kwargs, report)

    async def _remember_answer(
        self,
        kwargs: Mapping[str, Any],
        response: Any,
        report: CallReport,
        shape: str,
        where: tuple[str, str],
    ) -> TargetModel | None:
        """The target of a call of another shape (on ``report``), its answer remembered.

        The answer's turns are remembered under the target; ``None`` when the target
        cannot be told. ``where``: how a failure to tell the target, and to remember, is counted.
        """
        served = shape_named(shape)
        assert served.target is not None and served.answer is not None  # not chat
        try:
            target = served.target(kwargs)
        except Exception as err:
            self.internal_error(where[0], err)
            return None
        report.target = report.target or target_label(target)
        if self._options.stamp_responses:
            try:
                await self._remember_turns(served.answer(response), target)
            except Exception as err:
                self.internal_error(where[1], err)
        return target

    async def _remember_turns(self, turns: list[Any], target: TargetModel) -> None:
        provenance = provenance_of(target)
        for turn in turns:
            await self.remember(turn, provenance)

    def _annotation_target(
        self, request_data: Mapping[str, Any], report: CallReport
    ) -> TargetModel | None:
        try:
            return target_of(request_data)
        except Exception as err:
            self.internal_error("response target", err)
            return None

    def _stamp(
        self, response: ModelResponse, target: TargetModel, report: CallReport
    ) -> list[tuple[Any, Provenance]]:
        report.target = report.target or target_label(target)
        if not self._options.stamp_responses:
            return []
        provenance = provenance_of(target)
        return [(message, provenance) for message in stamp(response, provenance)]

    def _flag(
        self,
        response: ModelResponse | Mapping[str, Any],
        target: TargetModel,
        request_data: Mapping[str, Any],
        report: CallReport,
    ) -> None:
        try:
            report.overflow = response_overflow(response, target, request_data)
        except Exception as err:
            self.internal_error("overflow detection", err)
            return
        if report.overflow is not None:
            self.stats["overflow_flagged"] += 1
            logger.info(
                "litellm_hygiene: response from %s overflowed its context window (%s)",
                report.target,
                report.overflow.signal,
            )

    def internal_error(self, where: str, err: Exception) -> None:
        """Count and log a failure of hygiene's own (by type: messages can hold content)."""
        self.stats["errors"] += 1
        self.stats[f"error:{type(err).__name__}"] += 1
        logger.warning("litellm_hygiene: %s failed: %s", where, type(err).__name__)

    async def remember(self, message: Any, provenance: Provenance) -> None:
        """Record an answer's provenance under its fingerprints; failures are counted."""
        await run(self._remembering(message, provenance), self._options, self._store)

    def _remembering(self, message: Any, provenance: Provenance) -> Steps[None]:
        """Record ``message``'s provenance; a store failure is counted, never raised."""
        if self._store is None:
            return
        try:
            yield Record(message, provenance)
        except Exception as err:
            self._store_failed(err)

    def _store_failed(self, err: Exception) -> None:
        self._store_failed_named(type(err).__name__)

    def _store_failed_named(self, kind: str) -> None:
        self.stats["store_errors"] += 1
        logger.warning("litellm_hygiene: provenance store failed: %s", kind)


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _mapping_or_none(value: Any) -> Mapping[str, Any] | None:
    return value if isinstance(value, Mapping) else None


def _margin(window: int | None, options: HygieneOptions) -> int | None:
    if window is None or not options.overflow_margin:
        return window
    return max(1, int(window * (1.0 - options.overflow_margin)))
