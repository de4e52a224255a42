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

Each hook is one call into a side of the work, with the engine the callback holds
(:attr:`HygieneCallback.engine`, a
:class:`~litellm_hygiene._integration._engine.HygieneEngine`: the options, the store,
the reports, what is remembered, the counters): the request side (:mod:`._prepare`) and
the answer side (:mod:`._answer`) are each read from top to bottom there.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from litellm.integrations.custom_logger import CustomLogger

from .._recall import Recall
from ._answer import after_call, after_failure, after_stream, closing_chunk
from ._engine import HygieneEngine
from ._options import HygieneOptions
from ._overflow_errors import not_overflow_error, overflow_error, token_overflow_of
from ._prepare import before_call
from ._report import HIDDEN_PARAMS_KEY, CallReport, call_id_of, headers_for
from ._shapes import call_type_name
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

    # -- request (see ._prepare) ------------------------------------------------------

    async def async_pre_call_deployment_hook(
        self, kwargs: dict[str, Any], call_type: Any
    ) -> dict[str, Any] | None:
        """Transform the messages for the deployment LiteLLM resolved; publish the report.

        The report goes into the call's ``spend_logs_metadata`` (spend logs, the admin
        UI, every logging integration) and into the Prometheus metrics.
        """
        return await before_call(self.engine, kwargs, call_type_name(call_type))

    # -- answer (see ._answer) ---------------------------------------------------------

    async def async_post_call_success_deployment_hook(
        self, request_data: dict[str, Any], response: Any, call_type: Any
    ) -> Any:
        """Stamp the answer, store its fingerprints, flag overflow, attach the report.

        The answer of a ``/v1/messages`` or ``/v1/responses`` call LiteLLM sent as it is
        is not stamped (the client keeps only its content) and is returned as it came.
        """
        return await after_call(self.engine, request_data, response, call_type_name(call_type))

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
        await after_failure(self.engine, request_data, exception, call_type_name(call_type))

    async def async_log_success_event(
        self, kwargs: dict[str, Any], response_obj: Any, start_time: Any, end_time: Any
    ) -> None:
        """Remember the provenance of a streamed answer once it is assembled."""
        await after_stream(self.engine, kwargs, response_obj)

    async def async_post_call_streaming_deployment_hook(
        self, request_data: dict[str, Any], response_chunk: Any, call_type: Any
    ) -> Any:
        """Stamp the delta of the chunk that closes a streamed answer."""
        return closing_chunk(self.engine, request_data, response_chunk, call_type_name(call_type))

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
        report = self.engine.reports.get_or_open(call_id_of(request_data))
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
        report = self.engine.reports.pop(call_id_of(data))
        if report is None:
            report = _report_from_hidden_params(response)
        if report is None:
            return None
        return headers_for(report, self.engine.options.header_prefix)


def _report_from_hidden_params(response: Any) -> CallReport | None:
    hidden = getattr(response, "_hidden_params", None)
    return CallReport.from_dict(hidden.get(HIDDEN_PARAMS_KEY)) if isinstance(hidden, dict) else None
