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
- ``async_post_call_streaming_deployment_hook`` stamps the delta of a streamed
  answer's closing chunk (the one with a ``finish_reason``), and
  ``async_log_success_event`` records the provenance of the streamed answer, whose
  assembled message exists only once the stream is done.
- ``async_post_call_failure_deployment_hook`` records an overflow error in the report
  before LiteLLM's failure logging reads the request's metadata.
- Every request hygiene handles carries its report in ``spend_logs_metadata``
  (:mod:`._metadata`) and is counted and timed in Prometheus (:mod:`._metrics`).
- Proxy only: ``async_post_call_failure_hook`` turns an overflow LiteLLM did not map
  into the context-window error proxy clients recognise (and a look-alike LiteLLM mapped
  to it back into a plain bad request), and
  ``async_post_call_response_headers_hook`` adds the report as response headers. The
  proxy calls these only when they are defined on the callback's own class.

The work itself is done by the engine the callback holds (:attr:`HygieneCallback.engine`,
a :class:`~litellm_hygiene._integration._engine.HygieneEngine`): each hook reads what
LiteLLM hands it, asks the engine, and hands LiteLLM the answer.
"""

from __future__ import annotations

import importlib
import time
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from litellm import ModelResponse
from litellm.integrations.custom_logger import CustomLogger

from .._recall import Recall
from .._wire._keys import STAMP_KEY
from ._annotate import provenance_of
from ._engine import HygieneEngine
from ._metadata import summary_of, update_published, with_report_metadata
from ._metrics import observe_overflow, observe_request
from ._options import HygieneOptions
from ._overflow_errors import not_overflow_error, overflow_error, token_overflow_of
from ._report import HIDDEN_PARAMS_KEY, CallReport, headers_for
from ._request import target_of
from ._routes import messages_route
from ._shapes import CHAT, shape_of
from ._store import ProvenanceStore

if TYPE_CHECKING:
    from litellm.proxy._types import UserAPIKeyAuth

__all__ = ["HygieneCallback"]


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
        engine: The engine doing the work (options, provenance store, reports, what it
            remembers of conversations, counters).
    """

    def __init__(
        self,
        options: HygieneOptions | None = None,
        *,
        store: ProvenanceStore | None = None,
        **overrides: Any,
    ) -> None:
        super().__init__()
        self.engine = HygieneEngine(options, store=store, **overrides)

    @property
    def options(self) -> HygieneOptions:
        """The options in force."""
        return self.engine.options

    @property
    def store(self) -> ProvenanceStore | None:
        """The provenance store (``None`` when ``provenance_store`` is ``none``)."""
        return self.engine.store

    @property
    def recall(self) -> Recall:
        """What the engine remembers of the conversations it has seen."""
        return self.engine.recall

    @property
    def stats(self) -> Counter[str]:
        """The engine's counters (see :attr:`HygieneEngine.stats`)."""
        return self.engine.stats

    def report_for(self, call_id: str | None) -> CallReport | None:
        """The report of a call still in flight (or awaiting its proxy headers)."""
        return self.engine.report_for(call_id)

    # -- request -------------------------------------------------------------------

    async def async_pre_call_deployment_hook(
        self, kwargs: dict[str, Any], call_type: Any
    ) -> dict[str, Any] | None:
        """Transform the messages for the deployment LiteLLM resolved; publish the report.

        The report goes into the call's ``spend_logs_metadata`` (spend logs, the admin
        UI, every logging integration) and into the Prometheus metrics.
        """
        served = shape_of(kwargs, _call_type_name(call_type))
        if served is None:
            return None
        shape = None if served.is_chat else served.name
        earlier = self.engine.reports.get(_call_id(kwargs))
        if shape is not None and earlier is not None and earlier.in_flight:
            # The inner call of a chat completion LiteLLM bridged (``openai/responses/``
            # models): hygiene did its work on the chat messages; one report per request.
            return None
        resend = earlier is not None and earlier.resent
        report = self.engine.reports.open(_call_id(kwargs))
        report.shape = shape
        report.in_flight = shape is None
        started = time.perf_counter()
        try:
            prepared = await self.engine.prepare(kwargs, report, shape)
        except Exception:
            observe_request(_model_label(kwargs, report), "rejected", _since(started), {}, 0)
            raise
        enabled = self.engine.options.enabled
        if prepared is None and report.error is None and enabled:
            return None  # no chat messages: nothing for hygiene to do or report
        # Every request hygiene saw carries its report in the spend-log metadata, so
        # "unchanged" is as visible to operators as "changed".
        new_kwargs = with_report_metadata(
            kwargs, report, enabled=enabled, container=served.metadata
        )
        if prepared is not None and prepared.changed:
            new_kwargs = prepared.apply(new_kwargs)  # its messages, trimmed parameters gone
        if not resend:  # the request was counted on its first attempt
            outcome = summary_of(report, enabled=enabled)
            model = _model_label(kwargs, report)
            observe_request(model, outcome, _since(started), report.changes, report.restored)
        return new_kwargs

    # -- response ------------------------------------------------------------------

    async def async_post_call_success_deployment_hook(
        self, request_data: dict[str, Any], response: Any, call_type: Any
    ) -> Any:
        """Stamp the answer, store its fingerprints, flag overflow, attach the report.

        The answer of a ``/v1/messages`` or ``/v1/responses`` call LiteLLM sent as it is
        is not stamped (the client keeps only its content) and is returned as it came.
        """
        served = shape_of(request_data, _call_type_name(call_type))
        if served is not None and served.is_chat:
            self._landed(request_data)
        if served is not None and not served.is_chat:
            report = self.engine.reports.get_or_open(_call_id(request_data))
            flagged = report.overflow is not None
            await self.engine.annotate_answer(request_data, response, report, served.name)
            self._publish_overflow(request_data, report, flagged)
            return None
        if served is None or not isinstance(response, ModelResponse):
            return None
        report = self.engine.reports.get_or_open(_call_id(request_data))
        flagged = report.overflow is not None
        await self.engine.annotate(request_data, response, report)
        self._publish_overflow(request_data, report, flagged)
        return response

    async def async_post_call_failure_deployment_hook(
        self,
        request_data: Mapping[str, Any],
        exception: Exception,
        call_type: Any,
        fallback_depth: int | None = None,
    ) -> None:
        """Record an overflow error in the spend-log metadata before LiteLLM logs it.

        LiteLLM calls this for every failed deployment attempt, before its failure
        logging builds the standard logging payload from the request's metadata.
        """
        served = shape_of(request_data, _call_type_name(call_type))
        if served is None:
            return
        if served.is_chat:
            self._landed(request_data)
        report = self.engine.reports.get(_call_id(request_data))
        if report is not None and _is_resent(exception):
            report.resent = True
        if report is None or report.overflow is not None:
            return
        try:
            report.overflow = token_overflow_of(exception, None)
        except Exception as err:
            self.engine.internal_error("overflow detection", err)
            return
        self._publish_overflow(request_data, report, False)

    def _landed(self, request_data: Mapping[str, Any]) -> None:
        """A chat completion's hop is over: a later call of its id is another hop's."""
        report = self.engine.reports.get(_call_id(request_data))
        if report is not None:
            report.in_flight = False

    def _publish_overflow(
        self, request_data: Mapping[str, Any], report: CallReport, flagged: bool
    ) -> None:
        """Complete the published report; count an overflow seen for the first time."""
        if report.overflow is not None and not flagged:
            observe_overflow(_model_label(request_data, report), report.overflow.kind)
        update_published(report)

    async def async_log_success_event(
        self, kwargs: dict[str, Any], response_obj: Any, start_time: Any, end_time: Any
    ) -> None:
        """Remember the provenance of a streamed answer once it is assembled.

        A ``/v1/messages`` or ``/v1/responses`` call sent as it is has no other hook for
        its stream: LiteLLM assembles a native Anthropic stream into a ``ModelResponse``
        here, a Responses stream into a ``ResponsesAPIResponse``; its provenance is the
        one of its route's target, and its overflow is flagged here (counted, logged and
        in the metrics: the stream's headers went out before its end was known).
        """
        if not kwargs.get("stream"):
            return
        call_type = _call_type_name(kwargs.get("call_type"))
        served = shape_of(kwargs, call_type)
        if served is not None and not served.is_chat:
            report = self.engine.reports.get_or_open(_call_id(kwargs))
            flagged = report.overflow is not None
            await self.engine.streamed_answer(kwargs, response_obj, report, served.name)
            self._publish_overflow(kwargs, report, flagged)
            return
        if not self.engine.options.stamp_responses:
            return
        try:
            if call_type == "anthropic_messages" and messages_route(kwargs) == "responses":
                return  # its inner Responses call's hooks remembered it, as that route's
            if not isinstance(response_obj, ModelResponse):
                return
            provenance = provenance_of(target_of(kwargs))
            for choice in response_obj.choices or ():
                message = getattr(choice, "message", None)
                if message is not None:
                    await self.engine.remember(message, provenance)
        except Exception as err:
            self.engine.internal_error("stream provenance", err)

    async def async_post_call_streaming_deployment_hook(
        self, request_data: dict[str, Any], response_chunk: Any, call_type: Any
    ) -> Any:
        """Stamp the delta of the chunk that closes a streamed answer."""
        if not self.engine.options.stamp_responses:
            return None
        if _call_type_name(call_type) not in CHAT.call_types:
            return None
        for choice in getattr(response_chunk, "choices", None) or ():
            delta = getattr(choice, "delta", None)
            if getattr(choice, "finish_reason", None) is None or delta is None:
                continue
            try:
                stamp = provenance_of(target_of(request_data)).as_stamp()
                setattr(delta, STAMP_KEY, stamp)
            except Exception as err:
                self.engine.internal_error("stream stamp", err)
        return response_chunk

    # -- proxy ---------------------------------------------------------------------

    async def async_post_call_failure_hook(
        self,
        request_data: dict[str, Any],
        original_exception: Exception,
        user_api_key_dict: UserAPIKeyAuth,
        traceback_str: str | None = None,
    ) -> Any:
        """Give proxy clients the error type the error's content says; record overflow.

        An overflow LiteLLM did not map becomes its context-window error; a look-alike
        LiteLLM mapped to it (a tool id over its length limit) becomes a plain bad
        request again, so clients do not retry it with a bigger window.
        """
        report = self.engine.reports.get_or_open(_call_id(request_data))
        overflow = token_overflow_of(original_exception, None)
        if overflow is None:
            return self._downgraded(original_exception)
        report.overflow = overflow
        self.stats["overflow_flagged"] += 1
        if not self.engine.options.upgrade_overflow_errors:
            return None
        upgraded = overflow_error(original_exception, None)
        if upgraded is None:
            return None
        self.stats["overflow_upgraded"] += 1
        from fastapi import HTTPException

        return HTTPException(status_code=400, detail=upgraded.message)

    def _downgraded(self, error: Exception) -> Any:
        """A look-alike LiteLLM raised as overflow, as the ``HTTPException`` it is."""
        if not self.engine.options.upgrade_overflow_errors:
            return None
        downgraded = not_overflow_error(error)
        if downgraded is None:
            return None
        self.stats["overflow_downgraded"] += 1
        from fastapi import HTTPException

        return HTTPException(status_code=400, detail=downgraded.message)

    async def async_post_call_response_headers_hook(
        self,
        data: dict[str, Any],
        user_api_key_dict: UserAPIKeyAuth,
        response: Any,
        request_headers: dict[str, str] | None = None,
        litellm_call_info: dict[str, Any] | None = None,
    ) -> dict[str, str] | None:
        """The report of this request as response headers."""
        report = self.engine.reports.pop(_call_id(data))
        if report is None:
            report = _report_from_hidden_params(response)
        if report is None:
            return None
        return headers_for(report, self.engine.options.header_prefix)


def _report_from_hidden_params(response: Any) -> CallReport | None:
    hidden = getattr(response, "_hidden_params", None)
    return CallReport.from_dict(hidden.get(HIDDEN_PARAMS_KEY)) if isinstance(hidden, dict) else None


def _model_label(kwargs: Mapping[str, Any], report: CallReport) -> str:
    """The metrics' ``model`` label: the resolved target, else the model string."""
    return report.target or str(kwargs.get("model") or "unknown")


def _since(started: float) -> float:
    return time.perf_counter() - started


def _call_type_name(call_type: Any) -> str | None:
    value = getattr(call_type, "value", call_type)
    return value if isinstance(value, str) else None


def _is_resent(error: Exception) -> bool:
    """Whether LiteLLM sends the failed call again itself (1.110: ``resent_on``)."""
    context = importlib.import_module("litellm._internal_context")
    is_resent_failure = getattr(context, "is_resent_failure", None)  # not before 1.110
    return is_resent_failure is not None and bool(is_resent_failure(error))


def _call_id(kwargs: Mapping[str, Any]) -> str | None:
    value = kwargs.get("litellm_call_id")
    return value if isinstance(value, str) else None
