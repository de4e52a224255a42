"""The public surface is declared once, sorted, and pinned here."""

from __future__ import annotations

import litellm_hygiene


def test_all_is_sorted_and_importable() -> None:
    names = litellm_hygiene.__all__

    def isort_style(name: str) -> tuple[int, str]:
        return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)

    assert list(names) == sorted(names, key=isort_style)
    for name in names:
        assert getattr(litellm_hygiene, name) is not None


def test_public_names_are_pinned() -> None:
    expected = {
        "HIDDEN_PARAMS_KEY",
        "CallReport",
        "HygieneCallback",
        "HygieneOptions",
        "HygieneRouter",
        "MemoryStore",
        "Provenance",
        "ProvenanceStore",
        "RedisStore",
        "TieredStore",
        "acompletion",
        "completion",
        "proxy_handler",
        "AssistantMessage",
        "ConfigurationError",
        "Context",
        "Diagnostic",
        "HygieneError",
        "ImageContent",
        "InvalidMessageError",
        "OpaqueContent",
        "STAMP_KEY",
        "SystemMessage",
        "TextContent",
        "ThinkingContent",
        "ToolCall",
        "ToolDefinition",
        "ToolResultMessage",
        "Usage",
        "UsageCost",
        "UserMessage",
        "assistant_from_response",
        "context_from_json",
        "context_to_json",
        "from_openai",
        "to_openai",
        "tools_to_openai",
        "TargetModel",
        "resolve_target",
        "transform_messages",
        "sanitize_messages",
        "Policy",
        "detect_overflow",
        "is_context_overflow",
        "predict_overflow",
        "validate_messages",
        "Violation",
    }
    assert set(litellm_hygiene.__all__) >= expected
