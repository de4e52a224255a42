"""Trimming a transcript to fit: a sliding window and a token budget.

Both keep tool exchanges whole (a call and all its results, parallel calls included),
so trimming never leaves what every provider rejects. :class:`SlidingWindow` keeps the
recent messages or user turns; :func:`fit_to_context` keeps what fits the target's
window. After a cut, kept turns lose their signed thinking, which is bound to the
messages before it (:mod:`._thinking`).
"""

from ._fit import DEFAULT_MARKER, FitResult, fit_to_context
from ._thinking import ThinkingDrop, drop_thinking_after
from ._window import SlidingWindow

__all__ = [
    "DEFAULT_MARKER",
    "FitResult",
    "SlidingWindow",
    "ThinkingDrop",
    "drop_thinking_after",
    "fit_to_context",
]
