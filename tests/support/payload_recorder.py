"""A logging callback that records what every logging integration gets from LiteLLM.

This is a test-support module, not a test file. LiteLLM hands each logging callback the
*standard logging payload* (``kwargs["standard_logging_object"]``), the same object
spend logs, the admin UI and the integrations are built from. :class:`PayloadRecorder`
keeps its ``metadata.spend_logs_metadata`` in memory, and, when ``path`` is set, appends
it as a JSON line to a file, so a test can read what a proxy process logged
(``litellm_settings: callbacks: [..., tests.support.payload_recorder.recorder]``; the proxy runs
in its work dir, where ``hygiene-payloads.jsonl`` is written).

Each record also carries what the process looked like then: the entries of hygiene's
in-process provenance store (when hygiene runs there), and the event loop's longest
stall so far, measured by a task that wakes every 5 ms (started with the first request),
with the longest full garbage collection beside it (a collection stops every thread).
"""

from __future__ import annotations

import asyncio
import gc
import json
import threading
import time
from pathlib import Path
from typing import Any

from litellm.integrations.custom_logger import CustomLogger

__all__ = ["PAYLOAD_FILE", "LoopMonitor", "PayloadRecorder", "recorder"]

PAYLOAD_FILE = "hygiene-payloads.jsonl"
"""Where the proxy's :data:`recorder` writes, relative to the proxy's working directory."""


class LoopMonitor:
    """The longest time the event loop did not run, and the longest full collection."""

    TICK = 0.005

    def __init__(self) -> None:
        self.max_stall = 0.0
        self.max_gc = 0.0
        self._gc_started = 0.0
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())
            gc.callbacks.append(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if info.get("generation") != 2:
            return
        if phase == "start":
            self._gc_started = time.perf_counter()
        else:
            self.max_gc = max(self.max_gc, time.perf_counter() - self._gc_started)

    async def _run(self) -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(self.TICK)
            now = time.perf_counter()
            self.max_stall = max(self.max_stall, now - last - self.TICK)
            last = now


def _store_entries() -> int | None:
    """Entries of the proxy handler's in-process store, if hygiene runs in this process."""
    from litellm_hygiene._integration import _proxy

    handler = _proxy._handler
    store = None if handler is None else handler.store
    memory = getattr(store, "local", store)  # with Redis, the in-process store in front
    try:
        return len(memory) if memory is not None else None  # type: ignore[arg-type]
    except TypeError:
        return None


class PayloadRecorder(CustomLogger):
    """Records, per logged call: status, model, call id and ``spend_logs_metadata``."""

    def __init__(self, path: str | None = None) -> None:
        super().__init__()
        self.path = path
        self.records: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self.monitor = LoopMonitor()

    async def async_pre_call_deployment_hook(
        self, kwargs: dict[str, Any], call_type: Any
    ) -> dict[str, Any] | None:
        self.monitor.start()
        return None

    def _record(self, kwargs: dict[str, Any], status: str) -> None:
        payload = kwargs.get("standard_logging_object") or {}
        metadata = payload.get("metadata") or {}
        record = {
            "status": status,
            "call_id": payload.get("id"),
            "model": payload.get("model"),
            "spend_logs_metadata": metadata.get("spend_logs_metadata"),
            "store_entries": _store_entries(),
            "max_stall_ms": round(self.monitor.max_stall * 1000, 1),
            "max_gc_ms": round(self.monitor.max_gc * 1000, 1),
        }
        with self._lock:
            self.records.append(record)
            if self.path is not None:
                with Path(self.path).open("a", encoding="utf-8") as out:
                    out.write(json.dumps(record, default=str) + "\n")

    async def async_log_success_event(
        self, kwargs: dict[str, Any], response_obj: Any, start_time: Any, end_time: Any
    ) -> None:
        self._record(kwargs, "success")

    async def async_log_failure_event(
        self, kwargs: dict[str, Any], response_obj: Any, start_time: Any, end_time: Any
    ) -> None:
        self._record(kwargs, "failure")


recorder = PayloadRecorder(PAYLOAD_FILE)
"""The instance a proxy config names."""


async def records_tagged(recorder: PayloadRecorder, tag: str) -> list[dict[str, Any]]:
    """The records of the calls whose ``spend_logs_metadata`` says ``test: tag``.

    Waits for the first (LiteLLM logs after the call returns), then a little more: a
    second record would be a bug, and it must have the time to arrive.
    """
    for _ in range(200):
        if any(_tagged(record, tag) for record in recorder.records):
            await asyncio.sleep(0.05)
            return [record for record in recorder.records if _tagged(record, tag)]
        await asyncio.sleep(0.02)
    raise AssertionError(f"the call tagged {tag!r} was never logged")


def _tagged(record: dict[str, Any], tag: str) -> bool:
    return bool((record["spend_logs_metadata"] or {}).get("test") == tag)
