"""Every record of hygiene's own logger, captured for a test to read."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager


class LogLines(logging.Handler):
    """The formatted records (message, and a traceback where one was logged)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@contextmanager
def hygiene_log() -> Iterator[LogLines]:
    """The ``litellm_hygiene`` logger's records at every level (DEBUG and up)."""
    handler = LogLines()
    logger = logging.getLogger("litellm_hygiene")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
