"""A logging callback that records what every logging integration gets from LiteLLM.

This is a test-support module, not a test file. LiteLLM hands each logging callback the
*standard logging payload* (``kwargs["standard_logging_object"]``), the same object
spend logs, the admin UI and the integrations are built from. :class:`PayloadRecorder`
keeps its ``metadata.spend_logs_metadata`` in memory, and, when ``path`` is set, appends
it as a JSON line to a file, so a test can read what a proxy process logged
(``litellm_settings: callbacks: [..., tests.payload_recorder.recorder]``; the proxy runs
in its work dir, where ``hygiene-payloads.jsonl`` is written).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from litellm.integrations.custom_logger import CustomLogger

__all__ = ["PAYLOAD_FILE", "PayloadRecorder", "recorder"]

PAYLOAD_FILE = "hygiene-payloads.jsonl"
"""Where the proxy's :data:`recorder` writes, relative to the proxy's working directory."""


class PayloadRecorder(CustomLogger):
    """Records, per logged call: status, model, call id and ``spend_logs_metadata``."""

    def __init__(self, path: str | None = None) -> None:
        super().__init__()
        self.path = path
        self.records: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def _record(self, kwargs: dict[str, Any], status: str) -> None:
        payload = kwargs.get("standard_logging_object") or {}
        metadata = payload.get("metadata") or {}
        record = {
            "status": status,
            "call_id": payload.get("id"),
            "model": payload.get("model"),
            "spend_logs_metadata": metadata.get("spend_logs_metadata"),
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
