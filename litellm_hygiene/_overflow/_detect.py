"""Decide whether a call overflowed the context window, and say which signal showed it.

A context overflow shows up in three ways, and a caller that wants to compact and retry
needs to catch all of them:

- **Loud**: the provider rejects the request with an error. Every provider words it
  differently, LiteLLM maps only some of them to ``ContextWindowExceededError`` (not
  Mistral's, for one), and look-alike errors (rate limits, output caps) must not count.
  The :data:`~._signals.SIGNALS` table decides.
- **Stop reason**: the call succeeds but stops with a provider reason such as Anthropic's
  ``model_context_window_exceeded``, which LiteLLM folds into an ordinary finish reason;
  only the raw provider response still says it.
- **Silent**: the call succeeds, yet the usage shows the prompt did not fit: the input
  (with cache reads) is larger than the window, or generation stopped for ``length``
  without writing a token while the input filled at least 99 % of the window. Servers
  that truncate quietly (Ollama, vLLM) leave only this trace.

:func:`detect_overflow` is pure: it reads its argument and returns a frozen
:class:`Overflow` or ``None``; what to do about it is the integration's business.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from .._errors import ConfigurationError
from ._evidence import Evidence
from ._extract import OverflowSource, gather_evidence
from ._signals import LENGTH_STOP_FILL_PERCENT, SIGNALS, Signal

__all__ = [
    "Overflow",
    "OverflowKind",
    "deciding_signal",
    "detect_overflow",
    "is_context_overflow",
]

_NEUTRAL_ROWS = frozenset({"generic", "litellm"})

OverflowKind = Literal[
    "error_pattern",
    "error_code",
    "usage_over_window",
    "length_stop_full_window",
    "stop_reason",
    "request_too_large",
]
"""Which kind of signal fired. ``request_too_large`` is a byte-size limit, not a token
overflow: shrinking attachments helps, compacting the history may not."""


class Overflow(BaseModel):
    """A detected overflow and the evidence for it.

    Attributes:
        kind: Which kind of signal fired.
        signal: The table row or rule that fired (``"anthropic_prompt_too_long"``,
            ``"usage_over_window"``), stable enough to log and count.
        provider: The provider whose wording matched (the caller's provider when it is
            among the row's providers), or the call's provider for usage rules.
        detail: The matched text, code or stop reason, or the numbers behind a usage
            rule, for logs.
        input_tokens: Prompt tokens, from the error text or the usage, when known.
        context_window: The window, from the error text or the caller, when known.
        status_code: The HTTP status of the failed call, when known.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: OverflowKind
    signal: str
    provider: str | None = None
    detail: str = ""
    input_tokens: int | None = None
    context_window: int | None = None
    status_code: int | None = None

    @property
    def is_context_overflow(self) -> bool:
        """True for token overflows; False for a byte-size ``request_too_large``."""
        return self.kind != "request_too_large"

    @property
    def excess_tokens(self) -> int | None:
        """How many tokens over the window, when both numbers are known."""
        if self.input_tokens is None or self.context_window is None:
            return None
        return self.input_tokens - self.context_window


def detect_overflow(
    source: OverflowSource,
    *,
    context_window: int | None = None,
    status_code: int | None = None,
    provider: str | None = None,
    raw_response: Mapping[str, Any] | str | None = None,
) -> Overflow | None:
    """Decide whether a completed or failed call overflowed the context window.

    Error signals are checked first (look-alike exclusions, then codes and stop reasons,
    then wording); the usage rules run only when the call left no error signal and
    ``context_window`` is given.

    Args:
        source: A neutral :class:`~litellm_hygiene.AssistantMessage`, an exception
            (LiteLLM's, mapped to ``ContextWindowExceededError`` or not, or a provider
            SDK's), an error string, a JSON error body or raw response dict, or a
            ``litellm.ModelResponse``.
        context_window: The model's input window in tokens; needed for the usage rules.
        status_code: The HTTP status, when ``source`` does not carry it.
        provider: The provider that answered (LiteLLM's key, e.g. ``"cerebras"``).
        raw_response: The provider's raw response (dict or JSON text), where stop
            reasons LiteLLM rewrites survive, e.g. the logging object's
            ``original_response``.

    Returns:
        The overflow, or ``None`` when nothing shows one.

    Raises:
        ConfigurationError: ``context_window`` is not positive, or ``source`` is of a
            type this function cannot read.
    """
    if context_window is not None and context_window <= 0:
        raise ConfigurationError(f"context_window must be positive, got {context_window}")
    evidence = gather_evidence(
        source, status_code=status_code, provider=provider, raw_response=raw_response
    )
    decided = _first_hit(evidence)
    if decided is not None:
        return _verdict(*decided, evidence, context_window)
    return _silent_overflow(evidence, context_window)


def is_context_overflow(
    source: OverflowSource,
    *,
    context_window: int | None = None,
    status_code: int | None = None,
    provider: str | None = None,
    raw_response: Mapping[str, Any] | str | None = None,
) -> bool:
    """True when :func:`detect_overflow` finds a token overflow.

    A byte-size ``request_too_large`` is not a context overflow: compacting the history
    is the wrong fix for an oversized attachment.

    Raises:
        ConfigurationError: As :func:`detect_overflow`.
    """
    found = detect_overflow(
        source,
        context_window=context_window,
        status_code=status_code,
        provider=provider,
        raw_response=raw_response,
    )
    return found is not None and found.is_context_overflow


def deciding_signal(
    source: OverflowSource,
    *,
    status_code: int | None = None,
    provider: str | None = None,
    raw_response: Mapping[str, Any] | str | None = None,
) -> Signal | None:
    """The table row that decides ``source``, exclusion rows included.

    Detection reports only overflow rows; tests and debugging also need to see which
    look-alike row suppressed a message.
    """
    evidence = gather_evidence(
        source, status_code=status_code, provider=provider, raw_response=raw_response
    )
    decided = _first_hit(evidence)
    return decided[0] if decided is not None else None


class _Hit(BaseModel):
    model_config = ConfigDict(frozen=True)

    detail: str
    tokens: int | None = None
    limit: int | None = None


def _first_hit(evidence: Evidence) -> tuple[Signal, _Hit] | None:
    for signal in SIGNALS:
        found = _match(signal, evidence)
        if found is not None:
            return signal, found
    return None


def _match(signal: Signal, evidence: Evidence) -> _Hit | None:
    if signal.only_for and evidence.provider and evidence.provider not in signal.only_for:
        return None
    if signal.status is not None and evidence.status_code == signal.status:
        return _Hit(detail=f"HTTP {signal.status}")
    if signal.codes:
        codes = signal.codes & evidence.codes
        if codes:
            return _Hit(detail=min(codes))
        found = _search(_code_pattern(signal.codes), evidence.texts)
        if found is not None:
            return found
    stops = signal.stop_reasons & evidence.stop_reasons
    if stops:
        return _Hit(detail=min(stops))
    if signal.pattern is None:
        return None
    found = _search(signal.pattern, evidence.texts)
    if signal.exceeds and found is not None:
        if found.tokens is None or found.limit is None or found.tokens <= found.limit:
            return None
    return found


@functools.cache
def _code_pattern(codes: frozenset[str]) -> re.Pattern[str]:
    """Codes as whole identifiers, for bodies that were flattened into prose."""
    names = "|".join(re.escape(code) for code in sorted(codes))
    return re.compile(rf"(?<![a-z0-9_])(?:{names})(?![a-z0-9_])", re.IGNORECASE)


def _search(pattern: re.Pattern[str], texts: tuple[str, ...]) -> _Hit | None:
    for text in texts:
        match = pattern.search(text)
        if match is not None:
            groups = match.groupdict()
            return _Hit(
                detail=match.group(0),
                tokens=_int(groups.get("tokens")),
                limit=_int(groups.get("limit")),
            )
    return None


def _int(value: str | None) -> int | None:
    """A captured count, thousands separators dropped."""
    if not value:
        return None
    digits = value.replace(",", "").replace("_", "").replace(" ", "")
    return int(digits) if digits.isdigit() else None


def _verdict(
    signal: Signal, hit: _Hit, evidence: Evidence, context_window: int | None
) -> Overflow | None:
    if signal.verdict == "exclude":
        return None
    if hit.tokens is None and hit.limit is None and signal.verdict != "request_too_large":
        numbers = _numbers_from_text(evidence)
        if numbers is not None:
            hit = hit.model_copy(update={"tokens": numbers.tokens, "limit": numbers.limit})
    provider = _provider_label(signal, evidence.provider)
    return Overflow(
        kind=signal.verdict,
        signal=signal.name,
        provider=provider,
        detail=hit.detail,
        input_tokens=hit.tokens if hit.tokens is not None else evidence.input_tokens,
        context_window=hit.limit if hit.limit is not None else context_window,
        status_code=evidence.status_code,
    )


def _provider_label(signal: Signal, hint: str | None) -> str:
    """The caller's provider when the row covers it or is provider-neutral, else the row's."""
    if hint and (hint in signal.providers or signal.providers[0] in _NEUTRAL_ROWS):
        return hint
    return signal.providers[0]


def _numbers_from_text(evidence: Evidence) -> _Hit | None:
    """Token counts from the wording, when a code row fired on a body that has them."""
    for signal in SIGNALS:
        if signal.verdict != "error_pattern" or signal.pattern is None:
            continue
        found = _search(signal.pattern, evidence.texts)
        if found is not None and (found.tokens is not None or found.limit is not None):
            return found
    return None


def _silent_overflow(evidence: Evidence, context_window: int | None) -> Overflow | None:
    used = evidence.input_tokens
    if context_window is None or used is None:
        return None
    if used > context_window:
        return _usage_overflow("usage_over_window", evidence, used, context_window)
    full = used * 100 >= context_window * LENGTH_STOP_FILL_PERCENT
    if evidence.stop_reason == "length" and evidence.output_tokens == 0 and full:
        return _usage_overflow("length_stop_full_window", evidence, used, context_window)
    return None


def _usage_overflow(
    kind: Literal["usage_over_window", "length_stop_full_window"],
    evidence: Evidence,
    used: int,
    window: int,
) -> Overflow:
    return Overflow(
        kind=kind,
        signal=kind,
        provider=evidence.provider,
        detail=f"input {used} tokens, window {window}, output {evidence.output_tokens}",
        input_tokens=used,
        context_window=window,
        status_code=evidence.status_code,
    )
