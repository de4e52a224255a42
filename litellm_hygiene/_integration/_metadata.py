"""What hygiene did to a request, in the request metadata LiteLLM logs everywhere.

Operators already read LiteLLM's spend logs, the admin UI's request logs and their
logging integrations (Langfuse, Datadog, S3, ...); all of them are fed from one
*standard logging payload*, whose ``metadata.spend_logs_metadata`` is copied from the
request's ``spend_logs_metadata`` (it survives the spend-log allow-list; LiteLLM's own
compression callback records its savings there). So hygiene writes its report there:

- ``litellm_hygiene``: ``{"target", "changes", "changed", "restored", "overflow",
  "error"}`` (counts, names and numbers only: never content, keys or signatures);
- ``litellm_hygiene_summary``: one word from :data:`SUMMARIES`, short and of fixed
  vocabulary so that ``custom_prometheus_metadata_labels: ["litellm_hygiene_summary"]``
  turns it into a Prometheus label of bounded cardinality (LiteLLM's Prometheus logger
  reads the keys of ``spend_logs_metadata`` as if they were top-level metadata).

Facts verified in LiteLLM 1.106's source and pinned by ``tests/integration/test_observability.py``:
the deployment hook's returned kwargs are what ``completion()`` builds the logging
object's ``litellm_params["metadata"]`` from; ``merge_litellm_metadata`` merges
``metadata`` and ``litellm_metadata`` (keys of ``metadata`` win); the success deployment
hook and the failure deployment hook run before the success and failure logging, so
the report can still be completed there, in the dict hygiene itself created.

The caller's metadata is never mutated: the request hook returns new ``metadata`` and
``spend_logs_metadata`` dicts, and later updates touch only the dict it created.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal

from ._report import CallReport

__all__ = [
    "REPORT_KEY",
    "SPEND_LOGS_KEY",
    "SUMMARIES",
    "SUMMARY_KEY",
    "Summary",
    "report_metadata",
    "summary_of",
    "update_published",
    "with_report_metadata",
]

SPEND_LOGS_KEY: Final = "spend_logs_metadata"
"""LiteLLM's per-request metadata that reaches spend logs and every logging integration."""
REPORT_KEY: Final = "litellm_hygiene"
"""Key of hygiene's report inside ``spend_logs_metadata``."""
SUMMARY_KEY: Final = "litellm_hygiene_summary"
"""Key of the one-word summary inside ``spend_logs_metadata`` (a Prometheus label)."""

Summary = Literal["unchanged", "changed", "restored", "overflow", "failed_open", "disabled"]
"""What hygiene did to one request, in one word.

``changed``: the messages were transformed; ``restored``: only stamps were restored
from the provenance store; ``overflow``: the response or error showed a context-window
overflow (it wins over the others: it is what an operator must act on); ``failed_open``:
hygiene failed internally and the request went out unchanged; ``disabled``: hygiene is
switched off (``enabled: false``).
"""
SUMMARIES: Final[tuple[Summary, ...]] = (
    "unchanged",
    "changed",
    "restored",
    "overflow",
    "failed_open",
    "disabled",
)
"""Every :data:`Summary` value: the whole label vocabulary."""

_METADATA_KEYS: Final = ("metadata", "litellm_metadata")
"""Where LiteLLM keeps proxy/request metadata; ``metadata`` wins when merged."""


def summary_of(report: CallReport, *, enabled: bool = True) -> Summary:
    """The one-word summary of ``report`` (see :data:`Summary` for the precedence)."""
    if not enabled:
        return "disabled"
    if report.overflow is not None:
        return "overflow"
    if report.error is not None:
        return "failed_open"
    if report.changes:
        return "changed"
    if report.restored:
        return "restored"
    return "unchanged"


def report_metadata(report: CallReport) -> dict[str, Any]:
    """The report as spend-log metadata: counts, names and numbers, nothing else.

    The overflow's ``detail`` (the provider's error text) is left out: it can quote the
    request.
    """
    overflow = report.overflow
    return {
        "target": report.target,
        "changes": dict(sorted(report.changes.items())),
        "changed": sum(report.changes.values()),
        "restored": report.restored,
        "overflow": None
        if overflow is None
        else {
            "kind": overflow.kind,
            "signal": overflow.signal,
            "input_tokens": overflow.input_tokens,
            "context_window": overflow.context_window,
        },
        "error": report.error,
    }


def with_report_metadata(
    kwargs: Mapping[str, Any],
    report: CallReport,
    *,
    enabled: bool = True,
    container: str | None = None,
) -> dict[str, Any]:
    """New call kwargs whose metadata carries ``report``; ``kwargs`` stays untouched.

    The report goes into the metadata dict that already holds a ``spend_logs_metadata``
    (``metadata`` first: its keys win the merge), else ``litellm_metadata`` when the route
    keeps LiteLLM's metadata there, else ``metadata``. The new ``spend_logs_metadata``
    dict is remembered on the report (:attr:`CallReport.published`) so the response hooks
    can complete it. ``container`` names the dict to use instead: a ``/v1/messages``
    call's ``metadata`` is Anthropic's own request field, sent to the provider.
    """
    name = container or _container(kwargs)
    container = kwargs.get(name)
    metadata = dict(container) if isinstance(container, Mapping) else {}
    existing = metadata.get(SPEND_LOGS_KEY)
    spend = dict(existing) if isinstance(existing, Mapping) else {}
    spend[REPORT_KEY] = report_metadata(report)
    spend[SUMMARY_KEY] = summary_of(report, enabled=enabled)
    metadata[SPEND_LOGS_KEY] = spend
    report.published = spend
    return {**kwargs, name: metadata}


def update_published(report: CallReport) -> None:
    """Bring the spend-log metadata hygiene published for ``report`` up to date.

    Only the dict :func:`with_report_metadata` created is written, never the caller's.
    """
    spend = report.published
    if spend is None:
        return
    spend[REPORT_KEY] = report_metadata(report)
    if spend.get(SUMMARY_KEY) != "disabled":
        spend[SUMMARY_KEY] = summary_of(report)


def _container(kwargs: Mapping[str, Any]) -> str:
    for name in _METADATA_KEYS:
        value = kwargs.get(name)
        if isinstance(value, Mapping) and isinstance(value.get(SPEND_LOGS_KEY), Mapping):
            return name
    if isinstance(kwargs.get("litellm_metadata"), Mapping) and not isinstance(
        kwargs.get("metadata"), Mapping
    ):
        return "litellm_metadata"
    return "metadata"
