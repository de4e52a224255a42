"""litellm_hygiene: make switching LLM models mid-conversation just work.

The public API is declared here once; every implementation module is private.
``proxy_handler`` (for ``litellm_settings: callbacks: litellm_hygiene.proxy_handler``)
is built on first access, from the proxy config LiteLLM has loaded by then.
"""

import importlib
import logging
from typing import TYPE_CHECKING, Any

from ._content import ImageContent, OpaqueContent, TextContent, ThinkingContent, ToolCall
from ._errors import ConfigurationError, HygieneError, InvalidMessageError
from ._families import POLICIES, policy_for
from ._messages import (
    Api,
    AssistantMessage,
    Context,
    Diagnostic,
    Message,
    OpaqueMessage,
    StopReason,
    SystemMessage,
    ToolDefinition,
    ToolResultMessage,
    Usage,
    UsageCost,
    UserMessage,
    context_from_json,
    context_to_json,
)
from ._openai import STAMP_KEY, from_openai, to_openai, tools_to_openai
from ._openai._response import assistant_from_response
from ._overflow import (
    Overflow,
    OverflowKind,
    OverflowPrediction,
    OverflowSource,
    detect_overflow,
    is_context_overflow,
    lookup_context_window,
    predict_overflow,
)
from ._pipeline import TransformReport, TransformResult, transform_messages
from ._policy import IdRule, Policy
from ._resolve import resolve_target
from ._rules import Change, Code
from ._sanitize import (
    AnthropicSanitizeResult,
    SanitizeResult,
    sanitize_anthropic_messages,
    sanitize_messages,
)
from ._target import Capabilities, Family, TargetModel
from ._trim import FitResult, SlidingWindow, fit_to_context
from ._validate import Violation, ViolationCode, validate_for_target, validate_messages

if TYPE_CHECKING:
    from ._integration._callback import HygieneCallback
    from ._integration._options import HygieneOptions
    from ._integration._report import HIDDEN_PARAMS_KEY, CallReport
    from ._integration._sdk import HygieneRouter, acompletion, completion
    from ._integration._store import MemoryStore, Provenance, ProvenanceStore, TieredStore
    from ._integration._store._redis import RedisStore

# The integration with LiteLLM's callback machinery loads on first use: the pure core
# (messages, rules, validation, overflow) imports none of it.
_INTEGRATION = {
    "HygieneCallback": "._integration._callback",
    "HygieneOptions": "._integration._options",
    "RedisStore": "._integration._store._redis",
    "HIDDEN_PARAMS_KEY": "._integration._report",
    "CallReport": "._integration._report",
    "HygieneRouter": "._integration._sdk",
    "acompletion": "._integration._sdk",
    "completion": "._integration._sdk",
    "MemoryStore": "._integration._store",
    "Provenance": "._integration._store",
    "ProvenanceStore": "._integration._store",
    "TieredStore": "._integration._store",
}

__all__ = [
    "HIDDEN_PARAMS_KEY",
    "POLICIES",
    "STAMP_KEY",
    "AnthropicSanitizeResult",
    "Api",
    "AssistantMessage",
    "CallReport",
    "Capabilities",
    "Change",
    "Code",
    "ConfigurationError",
    "Context",
    "Diagnostic",
    "Family",
    "FitResult",
    "HygieneCallback",
    "HygieneError",
    "HygieneOptions",
    "HygieneRouter",
    "IdRule",
    "ImageContent",
    "InvalidMessageError",
    "MemoryStore",
    "Message",
    "OpaqueContent",
    "OpaqueMessage",
    "Overflow",
    "OverflowKind",
    "OverflowPrediction",
    "OverflowSource",
    "Policy",
    "Provenance",
    "ProvenanceStore",
    "RedisStore",
    "SanitizeResult",
    "SlidingWindow",
    "StopReason",
    "SystemMessage",
    "TargetModel",
    "TextContent",
    "ThinkingContent",
    "TieredStore",
    "ToolCall",
    "ToolDefinition",
    "ToolResultMessage",
    "TransformReport",
    "TransformResult",
    "Usage",
    "UsageCost",
    "UserMessage",
    "Violation",
    "ViolationCode",
    "acompletion",
    "assistant_from_response",
    "completion",
    "context_from_json",
    "context_to_json",
    "detect_overflow",
    "fit_to_context",
    "from_openai",
    "is_context_overflow",
    "lookup_context_window",
    "policy_for",
    "predict_overflow",
    "proxy_handler",
    "resolve_target",
    "sanitize_anthropic_messages",
    "sanitize_messages",
    "to_openai",
    "tools_to_openai",
    "transform_messages",
    "validate_for_target",
    "validate_messages",
]

# A library logs, the application decides where: without logging configured, nothing
# is printed (hygiene's warnings carry only error types and counts).
logging.getLogger(__name__).addHandler(logging.NullHandler())


def __getattr__(name: str) -> Any:
    """Load the integration on first use.

    ``proxy_handler`` is built anew once the proxy has loaded its config.
    """
    if name == "proxy_handler":
        from ._integration._proxy import proxy_handler

        return proxy_handler()
    module = _INTEGRATION.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module, __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
