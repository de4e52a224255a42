"""How provider error wordings are written and filled in.

Each rule holds its own wording table (family -> kind of breakage -> template); this
module holds what the tables share: the kinds, where each family's errors point
(``{where}``), and the formatter. Templates name wire positions as placeholders
(``{m}`` wire message, ``{c}`` block inside it, ``{i}`` and ``{j}`` the caller's message
and list positions, ``{where}`` the family's path to the offending field). The texts
come from PROVIDER_RULES.md and from errors seen in public issue threads; a kind
missing from a table means no known provider error, and the violation then carries
``provider_error=None``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal

from .._target import Family

__all__ = ["DEFAULTS", "EXTRA_FIELD", "ErrorKind", "PathKind", "WordingTable", "wording"]

ErrorKind = Literal[
    "id_chars",
    "id_too_long",
    "id_length",
    "id_empty",
    "item_id_chars",
    "item_id_prefix",
    "call_without_result",
    "result_without_call",
    "result_without_call_unnamed",
    "duplicate_result",
    "id_collision",
    "user_after_user",
    "assistant_after_assistant",
    "assistant_first",
    "assistant_first_with_calls",
    "user_after_tool",
    "system_after_turn",
    "assistant_last",
    "foreign_thinking",
    "foreign_redacted",
    "foreign_thought_signature",
    "foreign_reasoning_item",
    "non_base64_signature",
    "extra_field",
    "image_unsupported",
    "image_base64",
    "image_too_large",
    "image_side",
    "image_side_many",
    "images_total",
    "empty_text",
    "blank_text",
    "null_content",
    "invalid_arguments",
    "lone_reasoning_item",
    "image_media_type",
    "missing_reasoning",
    "thinking_not_first",
]
"""What went wrong, as a provider words it (several kinds may share one code)."""

PathKind = Literal["call_id", "result_id", "item_id"]
"""Which field ``{where}`` names in a family's wording."""

EXTRA_FIELD: Final[dict[Family, str]] = {
    "openai": "Additional properties are not allowed ('{key}' was unexpected) - 'messages.{i}'",
    "openai-compatible": "Extra inputs are not permitted, field: 'messages[{i}].{key}'",
    "mistral": "Extra inputs are not permitted, field: 'messages[{i}].{key}'",
}
"""What strict OpenAI-shaped providers say of a message key they do not know."""

_PATHS: Final[dict[Family, dict[PathKind, str]]] = {
    "anthropic": {
        "call_id": "messages.{m}.content.{c}.tool_use.id",
        "result_id": "messages.{m}.content.{c}.tool_result.tool_use_id",
    },
    "bedrock": {
        "call_id": "messages.{m}.member.content.{c}.member.toolUse.toolUseId",
        "result_id": "messages.{m}.member.content.{c}.member.toolResult.toolUseId",
    },
    "gemini": {},
    "openai": {
        "call_id": "messages[{i}].tool_calls[{j}].id",
        "result_id": "messages[{i}].tool_call_id",
    },
    "openai-responses": {
        "call_id": "input[{c}].call_id",
        "item_id": "input[{c}].id",
        "result_id": "input[{m}].call_id",
    },
    "mistral": {
        "call_id": "messages[{i}].tool_calls[{j}].id",
        "result_id": "messages[{i}].tool_call_id",
    },
    "openai-compatible": {
        "call_id": "messages[{i}].tool_calls[{j}].id",
        "result_id": "messages[{i}].tool_call_id",
    },
}

DEFAULTS: Final[dict[str, Any]] = {
    "j": 0,
    "id": "",
    "n": 0,
    "limit": 0,
    "exact": 0,
    "key": "",
    "sig": "",
    "item": "rs_...",
    "role": "user",
    "n_b64": 0,
    "limit_b64": 0,
    "limit_b64_mb": "0",
    "declared": "",
    "actual": "",
    "found": "tool_use",
}


_FALLBACK: Final[dict[ErrorKind, ErrorKind]] = {
    "result_without_call_unnamed": "result_without_call",
    "assistant_first_with_calls": "assistant_first",
}
"""A more specific kind falls back to the general one where a family has no own text."""


WordingTable = Mapping[Family, Mapping[ErrorKind, str]]
"""A rule's wordings: what each provider family says, per kind of breakage."""


def wording(
    tables: WordingTable,
    family: Family,
    kind: ErrorKind,
    path: PathKind | None,
    values: dict[str, Any],
) -> str | None:
    """The provider's error text for ``kind``, formatted with ``values``; ``None`` if unknown."""
    table = tables.get(family, {})
    template = table.get(kind) or table.get(_FALLBACK.get(kind, kind))
    if template is None:
        return None
    if path is not None:
        values["where"] = _PATHS[family].get(path, path).format_map(values)
    return template.format_map(values)
