"""litellm_hygiene: make switching LLM models mid-conversation just work.

The public API is declared here once; every implementation module is private.
"""

from ._content import ImageContent, OpaqueContent, TextContent, ThinkingContent, ToolCall
from ._errors import ConfigurationError, HygieneError, InvalidMessageError
from ._messages import (
    AssistantMessage,
    Context,
    Diagnostic,
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
from ._passes._base import Change
from ._pipeline import TransformReport, TransformResult, transform_messages
from ._policy import POLICIES, IdRule, Policy, policy_for
from ._sanitize import SanitizeResult, sanitize_messages
from ._target import Capabilities, TargetModel, resolve_target
from ._validate import validate_for_target, validate_messages
from ._validate_violation import Violation, ViolationCode

__all__ = [
    "POLICIES",
    "STAMP_KEY",
    "AssistantMessage",
    "Capabilities",
    "Change",
    "ConfigurationError",
    "Context",
    "Diagnostic",
    "HygieneError",
    "IdRule",
    "ImageContent",
    "InvalidMessageError",
    "OpaqueContent",
    "Overflow",
    "OverflowKind",
    "OverflowPrediction",
    "OverflowSource",
    "Policy",
    "SanitizeResult",
    "SystemMessage",
    "TargetModel",
    "TextContent",
    "ThinkingContent",
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
    "assistant_from_response",
    "context_from_json",
    "context_to_json",
    "detect_overflow",
    "from_openai",
    "is_context_overflow",
    "lookup_context_window",
    "policy_for",
    "predict_overflow",
    "resolve_target",
    "sanitize_messages",
    "to_openai",
    "tools_to_openai",
    "transform_messages",
    "validate_for_target",
    "validate_messages",
]
