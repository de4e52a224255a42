"""What hygiene did for one call, as SDK users, proxy clients and logs see it.

One :class:`CallReport` per LiteLLM call id: the request side fills in the target and
the changes, the response side the overflow. It goes on the response's hidden params
(``response._hidden_params["litellm_hygiene"]``) and becomes proxy response headers.
Nothing here ever holds message content, keys or signatures.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .._overflow import Overflow

__all__ = ["HIDDEN_PARAMS_KEY", "CallReport", "ReportBook", "call_id_of", "headers_for"]

HIDDEN_PARAMS_KEY = "litellm_hygiene"
"""Key of the report in a LiteLLM response's ``_hidden_params``."""


@dataclass
class CallReport:
    """Hygiene's record of one call.

    Attributes:
        target: The deployment the request was transformed for (``provider/model``).
        changes: Number of changes per kind.
        restored: Assistant turns whose provenance came from the provenance store (a
            turn is looked up only where its provenance can change what is sent).
        overflow: The context-window overflow seen on the response or the error.
        error: The type name of an internal hygiene error that let the request through
            unchanged (fail-open), if any.
        trimmed: What the sliding window and the fit to the context window left out:
            ``removed`` messages, ``thinking_dropped`` turns, and after a fit the
            resulting ``tokens`` and the ``context_window``; ``None`` when nothing.
        published: The ``spend_logs_metadata`` dict hygiene put on this call's metadata
            (``_metadata.with_report_metadata``), completed by the response hooks.
        unread: Each message that could not be read (``messages[3].role: ...``, in words
            that never quote the caller's values): kept as it came, at its place, while
            the rest of the request was transformed.
        shape: The shape the request was read in: ``None`` for chat messages, else the
            call type of a ``/v1/messages`` or ``/v1/responses`` call sent as it is.
        in_flight: A chat completion hygiene transformed has not answered yet: a call
            of its id now is the inner call LiteLLM bridges it to, already done.
        resent: LiteLLM sends this call again after its failure (1.110's ``/v1/messages``
            bridges, without the encrypted reasoning the provider rejected): the next call
            of its id is the same request, transformed again but not counted again.
    """

    target: str | None = None
    changes: dict[str, int] = field(default_factory=dict)
    restored: int = 0
    overflow: Overflow | None = None
    error: str | None = None
    trimmed: dict[str, int] | None = None
    unread: list[str] = field(default_factory=list)
    published: dict[str, Any] | None = field(default=None, repr=False, compare=False)
    shape: str | None = field(default=None, repr=False, compare=False)
    in_flight: bool = field(default=False, repr=False, compare=False)
    resent: bool = field(default=False, repr=False, compare=False)

    def as_dict(self) -> dict[str, Any]:
        """The report as plain JSON-able data (``unread`` only when a message was)."""
        out: dict[str, Any] = {
            "target": self.target,
            "changes": dict(self.changes),
            "restored": self.restored,
            "overflow": None if self.overflow is None else self.overflow.model_dump(),
            "error": self.error,
            "trimmed": None if self.trimmed is None else dict(self.trimmed),
        }
        if self.unread:
            out["unread"] = list(self.unread)
        return out

    @classmethod
    def from_dict(cls, data: Any) -> CallReport | None:
        """The report :meth:`as_dict` wrote; ``None`` when ``data`` is not one."""
        if not isinstance(data, dict):
            return None
        overflow = data.get("overflow")
        return cls(
            target=data.get("target"),
            changes=dict(data.get("changes") or {}),
            restored=int(data.get("restored") or 0),
            overflow=Overflow.model_validate(overflow) if isinstance(overflow, dict) else None,
            error=data.get("error"),
            trimmed=dict(trimmed) if isinstance(trimmed := data.get("trimmed"), dict) else None,
            unread=[str(u) for u in data.get("unread") or ()],
        )


class ReportBook:
    """Reports of calls in flight, keyed by LiteLLM's call id, bounded in memory.

    The request hook and the response (or failure) hooks of one call meet here: LiteLLM
    gives them the same ``litellm_call_id``. A call whose response never comes is
    forgotten once ``max_entries`` newer calls have started.
    """

    def __init__(self, max_entries: int = 10_000) -> None:
        self._max = max_entries
        self._reports: OrderedDict[str, CallReport] = OrderedDict()
        self._lock = threading.Lock()

    def open(self, call_id: str | None) -> CallReport:
        """A fresh report for ``call_id`` (replacing an earlier attempt's)."""
        report = CallReport()
        if call_id is None:
            return report
        with self._lock:
            self._reports[call_id] = report
            self._reports.move_to_end(call_id)
            while len(self._reports) > self._max:
                self._reports.popitem(last=False)
        return report

    def open_call(self, call_id: str | None, shape: str | None) -> tuple[CallReport, bool] | None:
        """The report of a call hygiene is to prepare, and whether LiteLLM resent it.

        ``shape`` as :attr:`CallReport.shape`. ``None`` for the inner call LiteLLM
        bridged a chat completion to (``openai/responses/`` models): hygiene did its work
        on the chat messages, and a request has one report.
        """
        earlier = self.get(call_id)
        if shape is not None and earlier is not None and earlier.in_flight:
            return None
        report = self.open(call_id)
        report.shape = shape
        report.in_flight = shape is None
        return report, earlier is not None and earlier.resent

    def get(self, call_id: str | None) -> CallReport | None:
        """The report of ``call_id``, if it is still known."""
        if call_id is None:
            return None
        with self._lock:
            return self._reports.get(call_id)

    def get_or_open(self, call_id: str | None) -> CallReport:
        """The report of ``call_id``, opening one when there is none."""
        return self.get(call_id) or self.open(call_id)

    def pop(self, call_id: str | None) -> CallReport | None:
        """Forget and return the report of ``call_id``."""
        if call_id is None:
            return None
        with self._lock:
            return self._reports.pop(call_id, None)

    def __len__(self) -> int:
        return len(self._reports)


def call_id_of(kwargs: Mapping[str, Any]) -> str | None:
    """LiteLLM's id of the call ``kwargs`` are of (every hook of one call gets it)."""
    value = kwargs.get("litellm_call_id")
    return value if isinstance(value, str) else None


def headers_for(report: CallReport, prefix: str) -> dict[str, str]:
    """Proxy response headers for ``report`` (ASCII only, no content).

    ``<prefix>-changes`` lists ``kind=count`` pairs (``none`` when nothing changed);
    ``<prefix>-overflow`` is present only when an overflow was seen; ``<prefix>-error``
    only when hygiene failed open; ``<prefix>-trimmed`` only when the window or the fit
    left messages out; ``<prefix>-unread`` (a count) only when messages no reader could
    read were kept as they came.
    """
    headers = {
        f"{prefix}-changes": ", ".join(f"{k}={v}" for k, v in sorted(report.changes.items()))
        or "none",
    }
    if report.target:
        headers[f"{prefix}-target"] = _ascii(report.target)
    if report.restored:
        headers[f"{prefix}-restored"] = str(report.restored)
    if report.overflow is not None:
        headers[f"{prefix}-overflow"] = _overflow_header(report.overflow)
    if report.error:
        headers[f"{prefix}-error"] = _ascii(report.error)
    if report.trimmed:
        trimmed = "; ".join(f"{k}={v}" for k, v in report.trimmed.items())
        headers[f"{prefix}-trimmed"] = _ascii(trimmed)
    if report.unread:
        headers[f"{prefix}-unread"] = str(len(report.unread))
    return headers


def _overflow_header(overflow: Overflow) -> str:
    parts = [f"kind={overflow.kind}", f"signal={overflow.signal}"]
    if overflow.input_tokens is not None:
        parts.append(f"input_tokens={overflow.input_tokens}")
    if overflow.context_window is not None:
        parts.append(f"context_window={overflow.context_window}")
    return _ascii("; ".join(parts))


def _ascii(text: str) -> str:
    return text.encode("ascii", "replace").decode("ascii").replace("\n", " ")[:200]
