"""Translate each input shape detect_overflow accepts into :class:`Evidence`.

This is the one place that knows what LiteLLM's objects look like: exceptions carry
``status_code``, ``llm_provider``, ``body`` and a message prefixed with
``litellm.BadRequestError: AnthropicException - ``; ``ModelResponse`` carries
``choices[].finish_reason``, ``usage`` and ``_hidden_params``. It reads them by duck
typing (``getattr``), never by importing LiteLLM, so provider SDK errors (openai,
anthropic, botocore) and plain dicts work the same way and the detector stays pure.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from .._errors import ConfigurationError
from .._messages import AssistantMessage
from .._wire._keys import PROVIDER_FIELDS
from ._evidence import (
    Evidence,
    WalkMode,
    evidence_from_mapping,
    evidence_from_text,
    merge,
    neutral_stop,
)

__all__ = ["OverflowSource", "ResponseLike", "gather_evidence"]

_MAX_CAUSES = 3
_SUCCESS_KEYS = frozenset(
    {"choices", "content", "candidates", "output", "stop_reason", "stopReason", "usage"}
)
_SKIPPED_CLASSES = frozenset({"baseexception", "exception", "object"})


@runtime_checkable
class ResponseLike(Protocol):
    """Anything shaped like ``litellm.ModelResponse``: it has ``choices``."""

    @property
    def choices(self) -> Sequence[Any]:
        """The completion choices, each with a ``finish_reason``."""


OverflowSource = AssistantMessage | BaseException | str | Mapping[str, Any] | ResponseLike
"""What :func:`detect_overflow` accepts: a neutral message, an exception (LiteLLM's or a
provider SDK's), an error string, a JSON body or raw response dict, or a
``ModelResponse``."""


def gather_evidence(
    source: OverflowSource,
    *,
    status_code: int | None,
    provider: str | None,
    raw_response: Mapping[str, Any] | str | None,
) -> Evidence:
    """Collect the evidence of ``source``; explicit arguments win over what it says.

    Raises:
        ConfigurationError: ``source`` is none of the accepted shapes.
    """
    given = Evidence(status_code=status_code, provider=provider.lower() if provider else None)
    extra = () if raw_response is None else (_from_raw(raw_response),)
    return merge(given, _from_source(source), *extra)


def _from_source(source: OverflowSource) -> Evidence:
    if isinstance(source, AssistantMessage):
        return _from_message(source)
    if isinstance(source, BaseException):
        return _from_exception(source, 0)
    if isinstance(source, str):
        return evidence_from_text(source)
    if isinstance(source, Mapping):
        return evidence_from_mapping(source, _mode_of(source))
    # What isinstance(source, ResponseLike) checks, without the protocol machinery
    # (tens of microseconds a call; this runs on every response).
    if hasattr(source, "choices"):
        return _from_response(source)
    raise ConfigurationError(
        f"detect_overflow cannot read a {type(source).__name__}; pass an AssistantMessage, "
        "an exception, an error string, a mapping or a ModelResponse"
    )


def _mode_of(data: Mapping[str, Any]) -> WalkMode:
    """A mapping is a response (read stops and usage only) unless it carries an error."""
    if data.get("error") or data.get("type") == "error" or data.get("object") == "error":
        return "error"
    return "success" if _SUCCESS_KEYS & set(data) else "error"


def _from_raw(raw: Mapping[str, Any] | str) -> Evidence:
    if isinstance(raw, Mapping):
        return evidence_from_mapping(raw, _mode_of(raw))
    try:
        parsed = json.loads(raw)
    except ValueError:
        return evidence_from_text(raw)
    if isinstance(parsed, Mapping):
        return evidence_from_mapping(parsed, _mode_of(parsed))
    return evidence_from_text(raw)


def _from_message(message: AssistantMessage) -> Evidence:
    usage = message.usage
    own = Evidence(
        stop_reason=message.stop_reason,
        provider=message.provider.lower() if message.provider else None,
        input_tokens=usage.input + usage.cache_read if usage else None,
        output_tokens=usage.output if usage else None,
    )
    # An error text counts when the turn failed (or its end is unknown): a turn that
    # stopped normally is not an overflow, whatever text it carries.
    failed = message.stop_reason in (None, "error", "aborted")
    parts = [evidence_from_text(message.error_message)] if message.error_message and failed else []
    for fields in (message.provider_specific_fields, message.extra):
        if fields:
            parts.append(evidence_from_mapping(fields, "success"))
    return merge(own, *parts)


def _from_exception(exc: BaseException, depth: int) -> Evidence:
    codes = {
        cls.__name__.lower()
        for cls in type(exc).__mro__
        if cls.__name__.lower() not in _SKIPPED_CLASSES
    }
    for attr in ("code", "type"):
        value = getattr(exc, attr, None)
        if isinstance(value, str) and value.strip():
            codes.add(value.strip().lower())
    provider = getattr(exc, "llm_provider", None)
    own = Evidence(
        codes=frozenset(codes),
        status_code=_exception_status(exc),
        provider=provider.lower() if isinstance(provider, str) and provider else None,
    )
    parts = [evidence_from_text(str(exc))]
    message = getattr(exc, "message", None)
    if isinstance(message, str) and message not in str(exc):
        parts.append(evidence_from_text(message))
    parts.extend(_payload_evidence(getattr(exc, "body", None)))
    parts.extend(_payload_evidence(_response_payload(getattr(exc, "response", None))))
    cause = exc.__cause__
    if cause is not None and depth < _MAX_CAUSES:
        parts.append(_from_exception(cause, depth + 1))
    return merge(own, *parts)


def _exception_status(exc: BaseException) -> int | None:
    for holder in (exc, getattr(exc, "response", None)):
        status = getattr(holder, "status_code", None)
        if isinstance(status, int) and not isinstance(status, bool):
            return status
    return None


def _response_payload(response: object) -> object:
    """A botocore ``response`` dict as is, or an HTTP response's body text."""
    if response is None or isinstance(response, Mapping):
        return response
    try:
        text = getattr(response, "text", None)
    except Exception:  # an unread streaming body raises; it simply has no text for us
        return None
    return text if isinstance(text, str) else None


def _payload_evidence(payload: object) -> list[Evidence]:
    if isinstance(payload, Mapping):
        return [evidence_from_mapping(payload, "error")]
    if isinstance(payload, str) and payload.strip():
        return [evidence_from_text(payload)]
    return []


def _from_response(response: ResponseLike) -> Evidence:
    stops: set[str] = set()
    parts: list[Evidence] = [_usage_evidence(getattr(response, "usage", None))]
    for choice in response.choices:
        finish = _field(choice, "finish_reason")
        if isinstance(finish, str) and finish:
            stops.add(finish.lower())
        message = _field(choice, "message") or _field(choice, "delta")
        fields = _field(message, PROVIDER_FIELDS)
        if isinstance(fields, Mapping):
            parts.append(evidence_from_mapping(fields, "success"))
    hidden = getattr(response, "_hidden_params", None)
    provider: str | None = None
    if isinstance(hidden, Mapping):
        name = hidden.get("custom_llm_provider")
        provider = name.lower() if isinstance(name, str) and name else None
        parts.append(evidence_from_mapping(hidden, "success"))
        original = hidden.get("original_response")
        if isinstance(original, str):
            parts.append(_from_raw(original))
    neutral = {n for s in stops if (n := neutral_stop(s)) is not None}
    # Any choice cut short by the window is enough, so "length" outranks the others.
    stop = "length" if "length" in neutral else next(iter(sorted(neutral)), None)
    own = Evidence(stop_reasons=frozenset(stops), stop_reason=stop, provider=provider)
    return merge(own, *parts)


def _usage_evidence(usage: object) -> Evidence:
    if usage is None:
        return Evidence()
    if isinstance(usage, Mapping):
        return evidence_from_mapping({"usage": usage}, "success")
    prompt = getattr(usage, "prompt_tokens", None)
    completion = getattr(usage, "completion_tokens", None)
    return Evidence(
        input_tokens=prompt if isinstance(prompt, int) else None,
        output_tokens=completion if isinstance(completion, int) else None,
    )


def _field(holder: object, name: str) -> object:
    if isinstance(holder, Mapping):
        return holder.get(name)
    return getattr(holder, name, None)
