"""Context-window overflow: detect it after a call, predict it before one.

- :func:`detect_overflow` / :func:`is_context_overflow` read a failed or completed call
  (neutral message, LiteLLM exception, error string, body dict, ``ModelResponse``) and
  report which signal showed an overflow, from one declarative table
  (:mod:`._signals`) plus two usage rules for silent overflows.
- :func:`predict_overflow` counts a request's tokens against the target's window.

Detection is pure and never imports LiteLLM; prediction imports it lazily.
"""

from ._detect import Overflow, OverflowKind, detect_overflow, is_context_overflow
from ._extract import OverflowSource
from ._predict import OverflowPrediction, lookup_context_window, predict_overflow

__all__ = [
    "Overflow",
    "OverflowKind",
    "OverflowPrediction",
    "OverflowSource",
    "detect_overflow",
    "is_context_overflow",
    "lookup_context_window",
    "predict_overflow",
]
