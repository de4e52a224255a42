"""Predict, before sending, whether a request will overflow the target's context window.

A request that cannot fit costs a round trip and, on some providers, is silently
truncated instead of refused. Counting its tokens first lets the caller compact the
history before the call. The count comes from ``litellm.token_counter``, always with a
tokenizer this process already has: LiteLLM's bundled Claude tokenizer or tiktoken's
``cl100k_base``, never one LiteLLM would download from the Hugging Face hub for Llama or
Command R models (with the hub unreachable each count would wait ~23 s, on the request's
event loop). So it is an estimate; the window
comes from ``litellm.get_model_info`` unless the caller overrides it. LiteLLM is
imported inside the functions, so importing this package never loads it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from .._errors import ConfigurationError

__all__ = ["OverflowPrediction", "WindowSource", "lookup_context_window", "predict_overflow"]

WindowSource = Literal["override", "max_input_tokens", "max_tokens", "unknown"]
"""Where the window came from: the caller, LiteLLM's ``max_input_tokens``, its legacy
``max_tokens`` (older map entries only have that), or nowhere."""


class OverflowPrediction(BaseModel):
    """The estimate for one request against one model's window.

    Attributes:
        model: The model the request targets.
        estimated_tokens: Input tokens by LiteLLM's counter; ``None`` if it failed.
        context_window: The input window in tokens; ``None`` when unknown.
        window_source: Where ``context_window`` came from.
        max_output_tokens: The model's output limit, when known.
        reserved_output: Tokens set aside for the answer: ``max_tokens`` (capped at
            ``max_output_tokens``, since a provider never writes more), else 0.
        available_tokens: Window minus reserved output: the room left for input.
        overflow_tokens: How many input tokens do not fit; 0 when it fits or cannot be
            predicted.
        overflows: The request is predicted to overflow.
        can_predict: Both the count and the window are known.
        reason: Why no prediction could be made, when ``can_predict`` is False.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    estimated_tokens: int | None
    context_window: int | None
    window_source: WindowSource
    max_output_tokens: int | None = None
    reserved_output: int = 0
    available_tokens: int | None = None
    overflow_tokens: int = 0
    overflows: bool = False
    can_predict: bool = False
    reason: str | None = None


class _Limits(BaseModel):
    model_config = ConfigDict(frozen=True)

    window: int | None
    source: WindowSource
    max_output: int | None


def lookup_context_window(model: str) -> int | None:
    """The model's input window from LiteLLM's model map, or ``None`` when unknown.

    Uses ``max_input_tokens``, falling back to the legacy ``max_tokens``. Unknown models
    return ``None`` instead of raising, so callers can degrade gracefully.
    """
    return _limits(model, None, None, None).window


def predict_overflow(
    messages: Sequence[Mapping[str, Any]],
    model: str,
    *,
    max_tokens: int | None = None,
    context_window: int | None = None,
    max_output_tokens: int | None = None,
    tools: Sequence[Mapping[str, Any]] | None = None,
    model_info: Mapping[str, Any] | None = None,
) -> OverflowPrediction:
    """Estimate the request's input tokens and compare them with the room in the window.

    The room is the input window minus the output the request reserves. That is exact
    for providers whose prompt and answer share one window (OpenAI, Anthropic) and
    conservative for those with a separate input limit.

    Args:
        messages: OpenAI-shaped messages, as sent to ``litellm.completion``.
        model: LiteLLM model name, e.g. ``"anthropic/claude-sonnet-4-5"``.
        max_tokens: The output the request asks for.
        context_window: Override of the input window (a deployment's own limit).
        max_output_tokens: Override of the model's output limit.
        tools: OpenAI ``tools`` entries; they count towards the prompt.
        model_info: A Router deployment's ``model_info`` overrides
            (``max_input_tokens``, ``max_tokens``, ``max_output_tokens``).

    Returns:
        The prediction; ``can_predict`` is False (never an exception) for unknown models.

    Raises:
        ConfigurationError: A token argument is negative or the window is not positive.
    """
    _check_arguments(max_tokens, context_window, max_output_tokens)
    limits = _limits(model, context_window, max_output_tokens, model_info)
    estimated, failure = _count_tokens(messages, model, tools)
    reserved = max_tokens or 0
    if limits.max_output is not None:
        reserved = min(reserved, limits.max_output)
    base = OverflowPrediction(
        model=model,
        estimated_tokens=estimated,
        context_window=limits.window,
        window_source=limits.source,
        max_output_tokens=limits.max_output,
        reserved_output=reserved,
    )
    if estimated is None or limits.window is None:
        reason = failure or f"the context window of {model!r} is unknown to LiteLLM"
        return base.model_copy(update={"reason": reason})
    available = limits.window - reserved
    excess = max(estimated - available, 0)
    return base.model_copy(
        update={
            "available_tokens": available,
            "overflow_tokens": excess,
            "overflows": excess > 0,
            "can_predict": True,
        }
    )


def _check_arguments(
    max_tokens: int | None, context_window: int | None, max_output_tokens: int | None
) -> None:
    for name, value in (("max_tokens", max_tokens), ("max_output_tokens", max_output_tokens)):
        if value is not None and value < 0:
            raise ConfigurationError(f"{name} must not be negative, got {value}")
    if context_window is not None and context_window <= 0:
        raise ConfigurationError(f"context_window must be positive, got {context_window}")


def _limits(
    model: str,
    context_window: int | None,
    max_output_tokens: int | None,
    model_info: Mapping[str, Any] | None,
) -> _Limits:
    info = {**_model_info(model), **{k: v for k, v in (model_info or {}).items() if v}}
    max_output = max_output_tokens or _positive(info.get("max_output_tokens"))
    if context_window is not None:
        return _Limits(window=context_window, source="override", max_output=max_output)
    for key in ("max_input_tokens", "max_tokens"):
        window = _positive(info.get(key))
        if window is not None:
            source: WindowSource = "max_input_tokens" if key == "max_input_tokens" else "max_tokens"
            return _Limits(window=window, source=source, max_output=max_output)
    return _Limits(window=None, source="unknown", max_output=max_output)


def _model_info(model: str) -> Mapping[str, Any]:
    from .._litellm_lookup import quiet_litellm

    try:
        with quiet_litellm() as litellm:  # no "Provider List" banner for unknown models
            info = litellm.get_model_info(model)
    except Exception:  # unknown models raise; several exception types across versions
        return {}
    return info if isinstance(info, Mapping) else {}


def _count_tokens(
    messages: Sequence[Mapping[str, Any]],
    model: str,
    tools: Sequence[Mapping[str, Any]] | None,
) -> tuple[int | None, str | None]:
    import litellm

    try:
        count = litellm.token_counter(
            model=model,
            custom_tokenizer=_local_tokenizer(model),
            messages=[dict(m) for m in messages],
            tools=[dict(t) for t in tools] if tools else None,
            # Otherwise LiteLLM downloads a remote `detail: high` image to measure it: a
            # request to any URL a client names, and seconds of waiting when unreachable.
            use_default_image_token_count=True,
        )
    except Exception as err:  # a message shape the counter cannot read
        return None, f"LiteLLM could not count the tokens: {err}"
    return int(count), None


_DOWNLOADED = frozenset({"cohere", "llama2", "llama3"})
"""LiteLLM's tokenizer kinds it fetches from the Hugging Face hub (its Claude one ships
with it)."""


def _local_tokenizer(model: str) -> Any:
    """The tokenizer to count with: never one LiteLLM would download.

    Returns tiktoken's ``cl100k_base`` where LiteLLM would fetch a tokenizer, else
    ``None`` (LiteLLM's own choice, which is local).
    """
    from litellm import utils

    kind = getattr(utils, "huggingface_tokenizer_kind", None)
    try:
        downloads = kind(model) in _DOWNLOADED if callable(kind) else True
    except Exception:  # a LiteLLM without this helper's contract: stay local
        downloads = True
    if not downloads:
        return None
    from litellm._lazy_imports import get_default_encoding

    return {"type": "openai_tokenizer", "tokenizer": get_default_encoding()}


def _positive(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        return None
    return int(value)
