"""The response side: stamp the assistant message, flag overflow, attach the report.

The stamp (``message.litellm_hygiene = {provider, api, model}``) is set as an extra
attribute on LiteLLM's ``Message``: it is part of ``model_dump()``, so it survives the
proxy's JSON and the OpenAI SDK's ``model_dump()`` on the client, and it comes back with
the history. The provenance recorded is the deployment hygiene transformed for, so that
the next request to the same deployment recognises its own turns.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from litellm import ModelResponse

from .._overflow import Overflow, detect_overflow
from .._target import TargetModel
from .._wire._keys import STAMP_KEY
from ._report import HIDDEN_PARAMS_KEY, CallReport
from ._store import Provenance

__all__ = ["attach_report", "provenance_of", "raw_response_of", "response_overflow", "stamp"]


def provenance_of(target: TargetModel) -> Provenance:
    """The provenance recorded for answers from ``target``."""
    return Provenance(provider=target.provider, api=target.api, model=target.model_id)


def stamp(response: ModelResponse, provenance: Provenance) -> list[Any]:
    """Stamp every choice's message; returns the messages stamped."""
    stamped: list[Any] = []
    value = provenance.as_stamp()
    for choice in response.choices or ():
        message = getattr(choice, "message", None)
        if message is None:
            continue
        setattr(message, STAMP_KEY, dict(value))
        stamped.append(message)
    return stamped


def raw_response_of(request_data: Mapping[str, Any]) -> Mapping[str, Any] | str | None:
    """The provider's raw response LiteLLM kept on the call's logging object.

    Stop reasons LiteLLM rewrites (Anthropic's ``model_context_window_exceeded`` becomes
    ``finish_reason: "length"`` or ``"stop"``) survive only there.
    """
    logging_obj = request_data.get("litellm_logging_obj")
    details = getattr(logging_obj, "model_call_details", None)
    if not isinstance(details, Mapping):
        return None
    raw = details.get("original_response")
    return raw if isinstance(raw, Mapping | str) else None


def response_overflow(
    response: ModelResponse | Mapping[str, Any],
    target: TargetModel,
    request_data: Mapping[str, Any],
) -> Overflow | None:
    """The overflow a successful response shows, using the target's window.

    ``response``: LiteLLM's, or a provider's answer as a dict (``/v1/messages``).
    """
    window = target.capabilities.context_window
    return detect_overflow(
        response,
        context_window=window if window and window > 0 else None,
        provider=target.provider,
        raw_response=raw_response_of(request_data),
    )


def attach_report(response: Any, report: CallReport) -> None:
    """Put the report in the response's hidden params, where SDK users read it."""
    hidden = getattr(response, "_hidden_params", None)
    if not isinstance(hidden, dict):
        hidden = {}
        try:
            response._hidden_params = hidden
        except (AttributeError, TypeError):
            return
    hidden[HIDDEN_PARAMS_KEY] = report.as_dict()
