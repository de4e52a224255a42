"""What a finish reason means, however LiteLLM or the provider spelled it: stated once."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from .._messages import StopReason

__all__ = ["STOP_REASONS"]

STOP_REASONS: Final[Mapping[str, StopReason]] = MappingProxyType(
    {
        "stop": "stop",
        "end_turn": "stop",
        "stop_sequence": "stop",
        "length": "length",
        "max_tokens": "length",
        "tool_calls": "toolUse",
        "function_call": "toolUse",
        "tool_use": "toolUse",
        "error": "error",
    }
)
"""OpenAI's and LiteLLM's finish reasons, and the raw provider ones LiteLLM passes
through (Anthropic's ``end_turn``, ``max_tokens``, ``tool_use``), as the neutral model's."""
