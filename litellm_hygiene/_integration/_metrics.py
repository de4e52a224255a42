"""Hygiene's Prometheus metrics, where LiteLLM's proxy already serves its own.

The proxy's ``/metrics`` (mounted when its ``prometheus`` callback is on) serves
``prometheus_client``'s default registry, or, with ``PROMETHEUS_MULTIPROC_DIR`` set, a
fresh registry with a ``MultiProcessCollector`` that sums the per-process files every
worker writes (LiteLLM 1.106, ``PrometheusLogger._mount_metrics_endpoint``). So the
metrics are plain ``Counter`` and ``Histogram`` objects in the default registry: in
multiprocess mode their values go to those files by themselves (``prometheus_client``
picks its value class from the environment when it is imported), and neither kind needs
a per-metric multiprocess mode the way a ``Gauge`` would. No custom collector is used:
the multiprocess registry would never call it.

Names follow LiteLLM's (``litellm_…``, counters exposed with ``_total``, latency as a
``_metric`` histogram in seconds); label values are bounded: the target
(``provider/model``, one per configured deployment), a rule code, an overflow kind, a
word of :data:`~litellm_hygiene._integration._metadata.SUMMARIES` plus ``rejected``, or a
:attr:`HygieneEngine.stats <litellm_hygiene._integration._engine.HygieneEngine.stats>` key.

``prometheus_client`` ships with ``litellm-hygiene[proxy]``; without it every function
here does nothing.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "LATENCY_BUCKETS",
    "METRIC_NAMES",
    "StatsCounter",
    "model_label",
    "observe_overflow",
    "observe_request",
]

LATENCY_BUCKETS: Final = (
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
)
"""Hook time buckets, in seconds: most requests take well under a millisecond to a few
milliseconds; a 10,000-message transcript or a re-encoded image, up to seconds."""

METRIC_NAMES: Final = (
    "litellm_hygiene_requests",
    "litellm_hygiene_changes",
    "litellm_hygiene_restored_turns",
    "litellm_hygiene_overflows",
    "litellm_hygiene_events",
    "litellm_hygiene_latency_metric",
)
"""Every metric family hygiene registers (counters are exposed with ``_total``)."""


@dataclass(frozen=True)
class _Families:
    requests: Any
    changes: Any
    restored: Any
    overflows: Any
    events: Any
    latency: Any


_families: _Families | None = None
_unavailable = False
_lock = threading.Lock()


def _create() -> _Families | None:
    try:
        from prometheus_client import Counter as PromCounter
        from prometheus_client import Histogram
    except ImportError:
        return None
    return _Families(
        requests=PromCounter(
            "litellm_hygiene_requests",
            "Chat requests hygiene saw, by target and what it did (its one-word summary, "
            "or 'rejected' when it refused the request)",
            ["model", "outcome"],
        ),
        changes=PromCounter(
            "litellm_hygiene_changes",
            "Changes hygiene made to requests, by target and rule",
            ["model", "kind"],
        ),
        restored=PromCounter(
            "litellm_hygiene_restored_turns",
            "Assistant turns whose provenance came from the provenance store, by target",
            ["model"],
        ),
        overflows=PromCounter(
            "litellm_hygiene_overflows",
            "Context-window overflows hygiene recognised in responses and errors",
            ["model", "kind"],
        ),
        events=PromCounter(
            "litellm_hygiene_events",
            "HygieneCallback.stats, summed over the proxy's workers (requests, changed, "
            "errors, error:<Type>, store_errors, overflow_*)",
            ["event"],
        ),
        latency=Histogram(
            "litellm_hygiene_latency_metric",
            "Time hygiene's request hook took, in seconds (store lookups included)",
            ["model"],
            buckets=LATENCY_BUCKETS,
        ),
    )


def _get() -> _Families | None:
    """The metric families, registered once per process on first use."""
    global _families, _unavailable
    if _families is not None or _unavailable:
        return _families
    with _lock:
        if _families is None and not _unavailable:
            _families = _create()
            _unavailable = _families is None
    return _families


def model_label(kwargs: Mapping[str, Any], target: str | None) -> str:
    """The metrics' ``model`` label: the resolved ``target``, else the call's model string."""
    return target or str(kwargs.get("model") or "unknown")


def observe_request(
    model: str, outcome: str, seconds: float, changes: Mapping[str, int], restored: int
) -> None:
    """Count one request hygiene handled, its changes and restored turns; time it."""
    families = _get()
    if families is None:
        return
    families.requests.labels(model=model, outcome=outcome).inc()
    families.latency.labels(model=model).observe(seconds)
    for kind, count in changes.items():
        families.changes.labels(model=model, kind=kind).inc(count)
    if restored:
        families.restored.labels(model=model).inc(restored)


def observe_overflow(model: str, kind: str) -> None:
    """Count one context-window overflow seen on a response or an error."""
    families = _get()
    if families is not None:
        families.overflows.labels(model=model, kind=kind).inc()


class StatsCounter(Counter[str]):
    """A ``Counter`` whose increments are also ``litellm_hygiene_events_total``.

    :attr:`HygieneEngine.stats <litellm_hygiene._integration._engine.HygieneEngine.stats>`
    is per process; a proxy with several workers answers ``/metrics`` from the sum of all
    of them, so the same events are counted in Prometheus too. Only increases are
    mirrored (a Prometheus counter never goes down).
    """

    def __setitem__(self, key: str, value: int) -> None:
        delta = value - self.get(key, 0)
        super().__setitem__(key, value)
        if delta > 0:
            families = _get()
            if families is not None:
                families.events.labels(event=key).inc(delta)
