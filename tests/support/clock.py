"""A hand-driven monotonic clock, so expiry and the breaker need no sleeping."""

from __future__ import annotations

__all__ = ["Clock"]


class Clock:
    """Seconds that pass only when a test moves ``now``."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now
