"""Overflow as LiteLLM's own error type, on the way out and on the way back.

LiteLLM maps most providers' context-window errors to ``ContextWindowExceededError``,
which is what callers and Router ``context_window_fallbacks`` look for; some wordings it
does not map (Mistral's ``too large for model with N maximum context length`` arrives as
a plain ``BadRequestError``). Detection is the pure :func:`detect_overflow`; this module
only turns a detected token overflow into the error type LiteLLM's users expect.
"""

from __future__ import annotations

import re

import httpx
from litellm.exceptions import BadRequestError, ContextWindowExceededError

from .._overflow import Overflow, OverflowPrediction, detect_overflow
from .._target import TargetModel

__all__ = [
    "not_overflow_error",
    "overflow_error",
    "predicted_overflow_error",
    "retyped",
    "token_overflow_of",
]

_TOKEN_KINDS = frozenset({"error_pattern", "error_code", "stop_reason"})
"""Error signals that mean the prompt did not fit in tokens. ``request_too_large`` is a
byte limit (a bigger window does not help), so it is not upgraded."""

_LITELLM_PREFIX = "litellm."
_CLASS_PREFIX = re.compile(r"(litellm\.)?[A-Za-z]*Error: ")
"""The error class names LiteLLM writes before a provider's message, one per wrapping."""


def token_overflow_of(error: BaseException, target: TargetModel | None) -> Overflow | None:
    """The token overflow ``error`` reports, if any (never for byte-size limits)."""
    overflow = detect_overflow(
        error,
        provider=target.provider if target is not None else None,
        context_window=None,
    )
    if overflow is None or overflow.kind not in _TOKEN_KINDS:
        return None
    return overflow


def overflow_error(
    error: BaseException, target: TargetModel | None
) -> ContextWindowExceededError | None:
    """``error`` as ``ContextWindowExceededError`` when it is an unmapped token overflow.

    Returns ``None`` when ``error`` is already LiteLLM's overflow error or not an overflow;
    the caller raises the result ``from error`` so the provider's error stays attached.
    """
    if isinstance(error, ContextWindowExceededError):
        return None
    if token_overflow_of(error, target) is None:
        return None
    message = str(getattr(error, "message", "") or error)
    if message.startswith(_LITELLM_PREFIX):
        # "litellm.BadRequestError: MistralException - ..." -> "MistralException - ..."
        message = message.split(": ", 1)[-1]
    response = getattr(error, "response", None)
    return ContextWindowExceededError(
        message=message,
        model=getattr(error, "model", None) or (target.model_id if target else None),
        llm_provider=getattr(error, "llm_provider", None) or (target.provider if target else None),
        response=response if isinstance(response, httpx.Response) else None,
    )


def not_overflow_error(error: BaseException) -> BadRequestError | None:
    """``error`` as ``BadRequestError`` when LiteLLM mapped a look-alike to overflow.

    LiteLLM maps OpenAI's ``Invalid 'messages[11].tool_calls[0].id': string too long``
    to ``ContextWindowExceededError``: a bigger window would not help, and
    ``context_window_fallbacks`` would send the same invalid request on. ``None`` when
    ``error`` is not LiteLLM's overflow error or really is an overflow.
    """
    if not isinstance(error, ContextWindowExceededError) or detect_overflow(error) is not None:
        return None
    message = str(getattr(error, "message", "") or error)
    while _CLASS_PREFIX.match(message):
        # "litellm.BadRequestError: ContextWindowExceededError: OpenAIException - ..."
        message = message.split(": ", 1)[-1]
    response = getattr(error, "response", None)
    return BadRequestError(
        message=f"{message} (litellm_hygiene: not a context-window overflow)",
        model=str(getattr(error, "model", "") or ""),
        llm_provider=str(getattr(error, "llm_provider", "") or ""),
        response=response if isinstance(response, httpx.Response) else None,
    )


def retyped(error: BaseException, target: TargetModel | None) -> Exception | None:
    """``error`` with the type its content says, or ``None`` when it has it already."""
    return overflow_error(error, target) or not_overflow_error(error)


def predicted_overflow_error(
    prediction: OverflowPrediction, target: TargetModel
) -> ContextWindowExceededError:
    """The error a request predicted not to fit is rejected with, before it is sent."""
    message = (
        f"litellm_hygiene: request predicted to exceed the context window of "
        f"{target.model_id}: about {prediction.estimated_tokens} input tokens, "
        f"{prediction.available_tokens} available "
        f"(window {prediction.context_window}, {prediction.reserved_output} reserved for "
        "output)"
    )
    return ContextWindowExceededError(
        message=message, model=target.model_id, llm_provider=target.provider or ""
    )
