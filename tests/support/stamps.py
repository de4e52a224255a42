"""Messages with litellm_hygiene's stamp set aside, for comparing requests stamps aside.

This is a test-support module, not a test file. The stamp stays on a message where
LiteLLM leaves it behind (``tests/shapes/test_wire_keys.py``), so outputs that differ only in
it are compared without it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from litellm_hygiene import STAMP_KEY

__all__ = ["without_stamps"]


def without_stamps(messages: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Shallow copies of ``messages`` without the stamp key."""
    return [{k: v for k, v in m.items() if k != STAMP_KEY} for m in messages]
