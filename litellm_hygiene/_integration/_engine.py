"""The engine behind :class:`~litellm_hygiene.HygieneCallback`: what hygiene holds and counts.

The engine is the state the two sides of a call share: the options, the provenance
store, the report of each call in flight, what is remembered of the conversations seen,
and the counters. The sides are their own modules, each a reading from top to bottom:

- the request side (:mod:`._prepare`): a deployment call's kwargs in, the kwargs to
  send out;
- the answer side (:mod:`._answer`): stamp the answer, remember its fingerprints, flag
  overflow, attach the report.

The callback's hooks and the SDK wrappers call into the sides with their engine.

Failure behaviour: an internal error never blocks traffic unless ``fail_closed`` is set;
the request goes out unchanged, and the error is logged by type (never content) and
counted in :attr:`HygieneEngine.stats`.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Mapping
from typing import Any

from litellm.exceptions import BadRequestError

from .._errors import InvalidMessageError
from .._overflow import predict_overflow
from .._recall import Recall
from .._target import TargetModel
from ._metrics import StatsCounter
from ._options import HygieneOptions
from ._overflow_errors import predicted_overflow_error
from ._prepared import Prepared
from ._report import CallReport, ReportBook
from ._store import ProvenanceStore
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

    def internal_error(self, where: str, err: Exception) -> None:
        """Count and log a failure of hygiene's own (by type: messages can hold content)."""
        self.stats["errors"] += 1
        self.stats[f"error:{type(err).__name__}"] += 1
        logger.warning("litellm_hygiene: %s failed: %s", where, type(err).__name__)

    def store_failed(self, kind: str) -> None:
        """Count and log a provenance store failure (``kind``: the error's type name)."""
        self.stats["store_errors"] += 1
        logger.warning("litellm_hygiene: provenance store failed: %s", kind)

    # -- what became of a request ----------------------------------------------------

    def accepted(
        self, kwargs: Mapping[str, Any], prepared: Prepared, report: CallReport
    ) -> Prepared:
        """Count, report and check the prediction of a request hygiene prepared.

        Raises:
            ContextWindowExceededError: The request is predicted to overflow and
                ``reject_predicted_overflow`` is set.
        """
        if prepared.store_error:
            self.store_failed(prepared.store_error)
        self._record(prepared, report)
        self._check_prediction(kwargs, prepared)
        return prepared

    def cannot_fit(self, report: CallReport) -> None:
        """Count a request ``fit_to_context`` refused: even its minimum overflows."""
        self.stats["fit_rejected"] += 1
        report.error = "ContextWindowExceededError"
        logger.info("litellm_hygiene: rejected a request that cannot fit its deployment")

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

    def failed(self, err: Exception, report: CallReport, kwargs: Mapping[str, Any]) -> None:
        """Fail open (log by type, count, send unchanged) or, if configured, raise.

        Raises:
            BadRequestError: ``fail_closed`` is set and a message cannot be read.
            Exception: ``fail_closed`` is set and hygiene failed internally (``err``).
        """
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


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _mapping_or_none(value: Any) -> Mapping[str, Any] | None:
    return value if isinstance(value, Mapping) else None


def _margin(window: int | None, options: HygieneOptions) -> int | None:
    if window is None or not options.overflow_margin:
        return window
    return max(1, int(window * (1.0 - options.overflow_margin)))
