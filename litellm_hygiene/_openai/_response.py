"""A completed chat response (LiteLLM ``ModelResponse`` or its dict) as a neutral message.

The response's first choice becomes an :class:`AssistantMessage` carrying where it came
from (provider, protocol, model), token usage and cost, and the neutral stop reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._errors import ConfigurationError
from .._messages import Api, AssistantMessage, Diagnostic, StopReason, Usage, UsageCost
from .._providers import api_for
from .._wire._stops import STOP_REASONS
from ._decode import as_message_dict, decode_message

__all__ = ["assistant_from_response"]


def _field(obj: Any, name: str) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def usage_from(raw: Any, cost: float | None) -> Usage | None:
    """Neutral usage from an OpenAI-style usage object.

    LiteLLM's ``prompt_tokens`` includes cache reads and cache writes; the neutral
    ``input`` excludes both, so ``input + cache_read + cache_write`` is the prompt.
    """
    if raw is None:
        return None
    prompt = _int(_field(raw, "prompt_tokens"))
    output = _int(_field(raw, "completion_tokens"))
    details = _field(raw, "prompt_tokens_details")
    cache_read = _int(_field(raw, "cache_read_input_tokens")) or _int(
        _field(details, "cached_tokens")
    )
    cache_write = _int(_field(raw, "cache_creation_input_tokens")) or _int(
        _field(details, "cache_creation_tokens")
    )
    total = _int(_field(raw, "total_tokens")) or prompt + output
    return Usage(
        input=max(prompt - cache_read - cache_write, 0),
        output=output,
        cache_read=cache_read,
        cache_write=cache_write,
        total=total,
        cost=UsageCost(total=cost or 0.0),
    )


def _prefix(hidden: Mapping[str, Any]) -> str | None:
    """The provider prefix of LiteLLM's ``litellm_model_name`` (``anthropic/claude-...``).

    Non-streaming responses of some providers carry no ``custom_llm_provider``.
    """
    name = hidden.get("litellm_model_name")
    if isinstance(name, str) and "/" in name:
        return name.split("/", 1)[0]
    return None


def _stop_reason(finish: Any) -> tuple[StopReason | None, tuple[Diagnostic, ...]]:
    if finish is None:
        return None, ()
    reason = STOP_REASONS.get(str(finish))
    if reason is not None:
        return reason, ()
    shown = repr(finish)
    note = Diagnostic(code="unmapped_finish_reason", message=f"finish_reason {shown}")
    return "stop", (note,)


def assistant_from_response(
    response: Any,
    *,
    provider: str | None = None,
    api: Api | None = None,
    choice: int = 0,
) -> AssistantMessage:
    """Convert one choice of a chat completion response into an :class:`AssistantMessage`.

    Args:
        response: A LiteLLM ``ModelResponse`` (or any object with the same attributes),
            or its dict form.
        provider: The LiteLLM provider key that served it; read from the response's
            hidden params (``custom_llm_provider``) when not given.
        api: The wire protocol; derived from the provider when not given.
        choice: Which choice to convert.

    Raises:
        ConfigurationError: The response has no such choice.
    """
    choices = _field(response, "choices") or []
    if not 0 <= choice < len(choices):
        raise ConfigurationError(f"response has no choice {choice}")
    picked = choices[choice]
    hidden = getattr(response, "_hidden_params", None) or {}
    provider = provider or hidden.get("custom_llm_provider") or _prefix(hidden)
    model = _field(response, "model")
    message = decode_message(as_message_dict(_field(picked, "message"), 0), 0)
    if not isinstance(message, AssistantMessage):
        raise ConfigurationError("the response's message is not an assistant message")
    stop, notes = _stop_reason(_field(picked, "finish_reason"))
    created = _field(response, "created")
    cost = hidden.get("response_cost")
    usage = usage_from(_field(response, "usage"), cost if isinstance(cost, float) else None)
    return message.model_copy(
        update={
            "provider": message.provider if message.stamped else provider,
            "api": message.api if message.stamped else (api or api_for(provider, model)),
            "model": message.model if message.stamped else model,
            "usage": usage,
            "stop_reason": stop,
            "diagnostics": message.diagnostics + notes,
            "timestamp": created * 1000 if isinstance(created, int) else None,
            "response_id": _field(response, "id"),
        }
    )
