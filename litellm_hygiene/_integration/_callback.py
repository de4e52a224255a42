"""``HygieneCallback``: litellm_hygiene as a LiteLLM callback, for the SDK, Router and proxy.

Hooks used, and why each (verified in LiteLLM's source):

- ``async_pre_call_deployment_hook`` is the only hook that sees the *resolved*
  deployment and whose returned kwargs reach the wire; it runs for
  ``litellm.acompletion``, ``Router.acompletion`` (again for every fallback hop) and the
  proxy. The messages are transformed there, for that deployment.
- ``async_post_call_success_deployment_hook`` sees each deployment's response: the
  assistant message is stamped, its fingerprints stored, overflow detected with the
  deployment's window and the provider's raw stop reason, and the report attached to
  the response's hidden params.
- ``async_log_success_event`` records the provenance of streamed responses, whose
  assembled message exists only once the stream is done.
- Proxy only: ``async_post_call_failure_hook`` turns an overflow LiteLLM did not map
  into the context-window error proxy clients recognise, and
  ``async_post_call_response_headers_hook`` adds the report as response headers. The
  proxy calls these only when they are defined on the callback's own class.

Failure behaviour: an internal error never blocks traffic unless ``fail_closed`` is set;
the request goes out unchanged, and the error is logged by type (never content) and
counted in :attr:`HygieneCallback.stats`.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from litellm import ModelResponse
from litellm.exceptions import BadRequestError
from litellm.integrations.custom_logger import CustomLogger

from .._errors import InvalidMessageError
from .._overflow import Overflow, predict_overflow
from .._target import TargetModel
from ._annotate import attach_report, provenance_of, response_overflow, stamp
from ._fingerprint import fingerprints
from ._options import HygieneOptions
from ._overflow_errors import overflow_error, predicted_overflow_error, token_overflow_of
from ._report import HIDDEN_PARAMS_KEY, CallReport, ReportBook, headers_for
from ._request import Prepared, prepare_request, prepare_request_sync, target_of
from ._store import Provenance, ProvenanceStore
from ._stores import build_store

if TYPE_CHECKING:
    from litellm.proxy._types import UserAPIKeyAuth

__all__ = ["CHAT_CALL_TYPES", "HygieneCallback", "target_label"]

logger = logging.getLogger("litellm_hygiene")

CHAT_CALL_TYPES = frozenset({"completion", "acompletion"})
"""LiteLLM call types carrying chat-completion messages; others pass untouched."""


def target_label(prepared_target: Any) -> str:
    """``provider/model`` for reports and headers."""
    provider, model_id = prepared_target.provider, prepared_target.model_id
    return f"{provider}/{model_id}" if provider else str(model_id)


class HygieneCallback(CustomLogger):
    """Transform every chat request for its resolved deployment; stamp every answer.

    Register it once, globally (a per-request ``callbacks=`` never gets the deployment
    hook)::

        litellm.callbacks = [HygieneCallback()]

    Args:
        options: A :class:`HygieneOptions`; keyword arguments override its fields.
        store: A provenance store to use instead of the one ``options`` describe.
        **overrides: Option fields by name (``fail_closed=True``).

    Attributes:
        stats: Counters: ``requests``, ``changed``, ``unchanged``, ``restored``,
            ``errors`` (and ``error:<Type>``), ``invalid_input``, ``overflow_flagged``,
            ``overflow_upgraded``, ``overflow_rejected``, ``store_errors``.
    """

    def __init__(
        self,
        options: HygieneOptions | None = None,
        *,
        store: ProvenanceStore | None = None,
        **overrides: Any,
    ) -> None:
        super().__init__()
        base = options or HygieneOptions()
        self._options = base.with_updates(**overrides) if overrides else base
        self._store = store
        self._store_built = store is not None
        self._book = ReportBook()
        self.stats: Counter[str] = Counter()

    @property
    def options(self) -> HygieneOptions:
        """The options in force."""
        return self._options

    @property
    def store(self) -> ProvenanceStore | None:
        """The provenance store, built on first use from the options."""
        if not self._store_built:
            self._store = build_store(self._options)
            self._store_built = True
        return self._store

    def report_for(self, call_id: str | None) -> CallReport | None:
        """The report of a call still in flight (or awaiting its proxy headers)."""
        return self._book.get(call_id)

    # -- request -------------------------------------------------------------------

    async def async_pre_call_deployment_hook(
        self, kwargs: dict[str, Any], call_type: Any
    ) -> dict[str, Any] | None:
        """Transform the messages for the deployment LiteLLM resolved."""
        if _call_type_name(call_type) not in CHAT_CALL_TYPES:
            return None
        prepared = await self.prepare(kwargs, self._book.open(_call_id(kwargs)))
        if prepared is None or not prepared.changed:
            return None
        return {**kwargs, "messages": list(prepared.messages)}

    async def prepare(self, kwargs: Mapping[str, Any], report: CallReport) -> Prepared | None:
        """Transform a call's messages; ``None`` when hygiene does not apply or failed open.

        Raises:
            ContextWindowExceededError: The request is predicted to overflow and
                ``reject_predicted_overflow`` is set.
            BadRequestError: ``fail_closed`` is set and a message cannot be read.
            Exception: ``fail_closed`` is set and hygiene failed internally.
        """
        if not self._applies(kwargs):
            return None
        try:
            prepared = await prepare_request(kwargs, self._options, self.store)
        except Exception as err:
            self._failed(err, report, kwargs)
            return None
        self._record(prepared, report)
        self._check_prediction(kwargs, prepared)
        return prepared

    def prepare_sync(self, kwargs: Mapping[str, Any], report: CallReport) -> Prepared | None:
        """:meth:`prepare` for the sync SDK wrappers (sync store calls)."""
        if not self._applies(kwargs):
            return None
        try:
            prepared = prepare_request_sync(kwargs, self._options, self.store)
        except Exception as err:
            self._failed(err, report, kwargs)
            return None
        self._record(prepared, report)
        self._check_prediction(kwargs, prepared)
        return prepared

    def _applies(self, kwargs: Mapping[str, Any]) -> bool:
        messages = kwargs.get("messages")
        if not isinstance(messages, list) or not messages:
            return False
        self.stats["requests"] += 1
        return self._options.enabled

    def _record(self, prepared: Prepared, report: CallReport) -> None:
        report.target = target_label(prepared.target)
        report.changes = dict(prepared.changes)
        report.restored = prepared.restored
        self.stats["changed" if prepared.changed else "unchanged"] += 1
        self.stats["restored"] += prepared.restored
        if prepared.changed:
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
            self._internal("overflow prediction", err)
            return
        if prediction.overflows:
            self.stats["overflow_rejected"] += 1
            logger.info("litellm_hygiene: rejected request predicted to overflow %s", target)
            raise predicted_overflow_error(prediction, target)

    # -- response ------------------------------------------------------------------

    async def async_post_call_success_deployment_hook(
        self, request_data: dict[str, Any], response: Any, call_type: Any
    ) -> Any:
        """Stamp the answer, store its fingerprints, flag overflow, attach the report."""
        if _call_type_name(call_type) not in CHAT_CALL_TYPES:
            return None
        if not isinstance(response, ModelResponse):
            return None
        report = self._book.get_or_open(_call_id(request_data))
        await self.annotate(request_data, response, report)
        return response

    async def annotate(
        self, request_data: Mapping[str, Any], response: ModelResponse, report: CallReport
    ) -> None:
        """Stamp, remember, flag overflow, attach the report; never raises."""
        try:
            target = target_of(request_data)
            for message, provenance in self._stamp(response, target, report):
                await self._remember(message, provenance)
            self._flag(response, target, request_data, report)
        except Exception as err:  # the answer is already here: never lose it
            self._internal("response annotation", err)
        attach_report(response, report)

    def annotate_sync(
        self, request_data: Mapping[str, Any], response: ModelResponse, report: CallReport
    ) -> None:
        """:meth:`annotate` for the sync SDK wrappers."""
        try:
            target = target_of(request_data)
            for message, provenance in self._stamp(response, target, report):
                self._remember_sync(message, provenance)
            self._flag(response, target, request_data, report)
        except Exception as err:
            self._internal("response annotation", err)
        attach_report(response, report)

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
        response: ModelResponse,
        target: TargetModel,
        request_data: Mapping[str, Any],
        report: CallReport,
    ) -> None:
        report.overflow = response_overflow(response, target, request_data)
        if report.overflow is not None:
            self.stats["overflow_flagged"] += 1
            logger.info(
                "litellm_hygiene: response from %s overflowed its context window (%s)",
                report.target,
                report.overflow.signal,
            )

    def _internal(self, where: str, err: Exception) -> None:
        self.stats["errors"] += 1
        self.stats[f"error:{type(err).__name__}"] += 1
        logger.warning("litellm_hygiene: %s failed: %s", where, type(err).__name__)

    async def _remember(self, message: Any, provenance: Provenance) -> None:
        store = self.store
        keys = fingerprints(message)
        if store is None or not keys:
            return
        try:
            await store.aput(keys, provenance)
        except Exception as err:
            self.stats["store_errors"] += 1
            logger.warning("litellm_hygiene: provenance store failed: %s", type(err).__name__)

    def _remember_sync(self, message: Any, provenance: Provenance) -> None:
        store = self.store
        keys = fingerprints(message)
        if store is None or not keys:
            return
        try:
            store.put(keys, provenance)
        except Exception as err:
            self.stats["store_errors"] += 1
            logger.warning("litellm_hygiene: provenance store failed: %s", type(err).__name__)

    async def async_log_success_event(
        self, kwargs: dict[str, Any], response_obj: Any, start_time: Any, end_time: Any
    ) -> None:
        """Remember the provenance of a streamed answer once it is assembled."""
        if not kwargs.get("stream") or not isinstance(response_obj, ModelResponse):
            return
        if not self._options.stamp_responses:
            return
        try:
            provenance = provenance_of(target_of(kwargs))
            for choice in response_obj.choices or ():
                message = getattr(choice, "message", None)
                if message is not None:
                    await self._remember(message, provenance)
        except Exception as err:
            self._internal("stream provenance", err)

    # -- proxy ---------------------------------------------------------------------

    async def async_post_call_failure_hook(
        self,
        request_data: dict[str, Any],
        original_exception: Exception,
        user_api_key_dict: UserAPIKeyAuth,
        traceback_str: str | None = None,
    ) -> Any:
        """Make an unmapped overflow recognisable to proxy clients; record it."""
        report = self._book.get_or_open(_call_id(request_data))
        overflow = token_overflow_of(original_exception, None)
        if overflow is None:
            return None
        report.overflow = overflow
        self.stats["overflow_flagged"] += 1
        if not self._options.upgrade_overflow_errors:
            return None
        upgraded = overflow_error(original_exception, None)
        if upgraded is None:
            return None
        self.stats["overflow_upgraded"] += 1
        from fastapi import HTTPException

        return HTTPException(status_code=400, detail=upgraded.message)

    async def async_post_call_response_headers_hook(
        self,
        data: dict[str, Any],
        user_api_key_dict: UserAPIKeyAuth,
        response: Any,
        request_headers: dict[str, str] | None = None,
        litellm_call_info: dict[str, Any] | None = None,
    ) -> dict[str, str] | None:
        """The report of this request as response headers."""
        report = self._book.pop(_call_id(data))
        if report is None:
            report = _report_from_hidden_params(response)
        if report is None:
            return None
        return headers_for(report, self._options.header_prefix)


def _report_from_hidden_params(response: Any) -> CallReport | None:
    hidden = getattr(response, "_hidden_params", None)
    data = hidden.get(HIDDEN_PARAMS_KEY) if isinstance(hidden, dict) else None
    if not isinstance(data, dict):
        return None
    overflow = data.get("overflow")
    return CallReport(
        target=data.get("target"),
        changes=dict(data.get("changes") or {}),
        restored=int(data.get("restored") or 0),
        overflow=Overflow.model_validate(overflow) if isinstance(overflow, dict) else None,
        error=data.get("error"),
    )


def _call_type_name(call_type: Any) -> str | None:
    value = getattr(call_type, "value", call_type)
    return value if isinstance(value, str) else None


def _call_id(kwargs: Mapping[str, Any]) -> str | None:
    value = kwargs.get("litellm_call_id")
    return value if isinstance(value, str) else None


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _mapping_or_none(value: Any) -> Mapping[str, Any] | None:
    return value if isinstance(value, Mapping) else None


def _margin(window: int | None, options: HygieneOptions) -> int | None:
    if window is None or not options.overflow_margin:
        return window
    return max(1, int(window * (1.0 - options.overflow_margin)))
