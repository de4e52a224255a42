"""A readable before/after of two JSON documents, for people, in a terminal.

Signatures and inline images are hundreds of base64 characters that say nothing to a
reader and hide the line that matters, so long strings are shortened (``"Ab3d…(412
chars)"``, the same way on both sides, so an unchanged signature stays an unchanged
line). The diff is a unified diff of the pretty-printed JSON, keys sorted.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterator
from typing import Any

import click

__all__ = ["json_diff", "shorten", "styled"]

_LONG = 48


def shorten(value: Any, limit: int = _LONG) -> Any:
    """``value`` with every string longer than ``limit`` cut, its length noted."""
    if isinstance(value, str) and len(value) > limit:
        return f"{value[: limit - 12]}…({len(value)} chars)"
    if isinstance(value, list):
        return [shorten(item, limit) for item in value]
    if isinstance(value, dict):
        return {key: shorten(item, limit) for key, item in value.items()}
    return value


def _lines(document: Any) -> list[str]:
    # Sorted keys: a converter that writes the same keys in another order is not a change.
    text = json.dumps(shorten(document), indent=1, ensure_ascii=False, sort_keys=True)
    return text.splitlines()


def json_diff(before: Any, after: Any, *, context: int = 1) -> list[str]:
    """The unified diff of ``before`` and ``after``, without the file header lines."""
    lines = difflib.unified_diff(
        _lines(before), _lines(after), "before", "after", n=context, lineterm=""
    )
    return [line for line in lines if not line.startswith(("---", "+++"))]


def styled(lines: list[str], limit: int | None = None) -> Iterator[str]:
    """Colour diff lines (red removed, green added, dim hunk headers), at most ``limit``.

    The colour codes are dropped by ``click.echo`` when the output is not a terminal.
    """
    shown = lines if limit is None else lines[:limit]
    for line in shown:
        if line.startswith("@@"):
            yield click.style(line, dim=True)
        elif line.startswith("-"):
            yield click.style(line, fg="red")
        elif line.startswith("+"):
            yield click.style(line, fg="green")
        else:
            yield line
    if limit is not None and len(lines) > limit:
        yield click.style(f"… {len(lines) - limit} more diff lines (--full shows all)", dim=True)
