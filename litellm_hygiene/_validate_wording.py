"""Provider error wordings, as data: what each provider says for each kind of violation.

Each family's table maps an error kind to the text its provider returns, with wire
positions as placeholders (``{m}`` wire message, ``{c}`` block inside it, ``{i}`` and
``{j}`` the caller's message and list positions, ``{where}`` the family's path to the
offending field). The texts come from /shared/PROVIDER_RULES.md and from errors seen in
public issue threads; a kind missing from a table means no known provider error, and
the violation then carries ``provider_error=None``.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from ._target import Family

__all__ = ["DEFAULTS", "ErrorKind", "PathKind", "wording"]

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
]
"""What went wrong, as a provider words it (several kinds may share one code)."""

PathKind = Literal["call_id", "result_id", "item_id"]
"""Which field ``{where}`` names in a family's wording."""

_OPENAI_TOO_LONG = (
    "Invalid '{where}': string too long. Expected a string with maximum length {limit}, "
    "but got a string with length {n} instead."
)
_OPENAI_EMPTY = (
    "Invalid '{where}': empty string. Expected a string with minimum length 1, but got an "
    "empty string instead."
)
_OPENAI_RESULT_WITHOUT_CALL = (
    "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'"
)
_OPENAI_CHAT: Final[dict[ErrorKind, str]] = {
    "id_too_long": _OPENAI_TOO_LONG,
    "id_empty": _OPENAI_EMPTY,
    "call_without_result": (
        "An assistant message with 'tool_calls' must be followed by tool messages responding "
        "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
        "{id}"
    ),
    "result_without_call": _OPENAI_RESULT_WITHOUT_CALL,
    "duplicate_result": _OPENAI_RESULT_WITHOUT_CALL,
    "extra_field": (
        "Additional properties are not allowed ('{key}' was unexpected) - 'messages.{i}'"
    ),
    "image_unsupported": "Invalid content type. image_url is only supported by certain models.",
}
_EXTRA_FORBIDDEN = "Extra inputs are not permitted, field: 'messages[{i}].{key}'"
_ANTHROPIC_PATTERN = "{where}: String should match pattern '^[a-zA-Z0-9_-]+$'"
_ANTHROPIC_ALTERNATE = (
    'messages: roles must alternate between "user" and "assistant", but found multiple '
    '"{role}" roles in a row'
)
_ANTHROPIC_SIGNATURE = "messages.{m}.content.{c}: Invalid `signature` in `thinking` block"
_ANTHROPIC_REDACTED = "messages.{m}.content.{c}: Invalid `data` in `redacted_thinking` block"
_BEDROCK_ALTERNATE = (
    "A conversation must alternate between user and assistant roles. Make sure the "
    "conversation alternates between user and assistant roles and try again."
)
_BEDROCK_TOO_MANY_RESULTS = (
    "The number of toolResult blocks at messages.{m}.content exceeds the number of toolUse "
    "blocks of previous turn."
)
_BEDROCK_BLANK = (
    "The text field in the ContentBlock object at messages.{m}.content.{c} is blank. Add "
    "text to the text field, and try again."
)
_GEMINI_COUNT = (
    "Please ensure that the number of function response parts is equal to the number of "
    "function call parts of the function call turn."
)
_GEMINI_EMPTY = (
    "Unable to submit request because it has an empty text parameter. Add a value to the "
    "parameter and try again."
)
_MISTRAL_ID = "Tool call id was {id} but must be a-z, A-Z, 0-9, with a length of {exact}."
_MISTRAL_COUNT = "Not the same number of function calls and responses"
_RESPONSES_ENCRYPTED = "The encrypted content for item {item} could not be verified."

_WORDING: Final[dict[Family, dict[ErrorKind, str]]] = {
    "anthropic": {
        "id_chars": _ANTHROPIC_PATTERN,
        "id_empty": _ANTHROPIC_PATTERN,
        "id_too_long": "{where}: String should have at most {limit} characters",
        "call_without_result": (
            "messages.{m}: `tool_use` ids were found without `tool_result` blocks immediately "
            "after: {id}. Each `tool_use` block must have a corresponding `tool_result` block "
            "in the next message."
        ),
        "result_without_call": (
            "messages.{m}.content.{c}: unexpected `tool_use_id` found in `tool_result` blocks: "
            "{id}. Each `tool_result` block must have a corresponding `tool_use` block in the "
            "previous message."
        ),
        "duplicate_result": (
            "each tool_use must have a single result. Found multiple tool_result blocks with "
            "id: {id}"
        ),
        "id_collision": "messages.{m}.content.{c}: `tool_use` ids must be unique",
        "user_after_user": _ANTHROPIC_ALTERNATE,
        "assistant_after_assistant": _ANTHROPIC_ALTERNATE,
        "assistant_first": 'messages: first message must use the "user" role',
        "foreign_thinking": _ANTHROPIC_SIGNATURE,
        "foreign_redacted": _ANTHROPIC_REDACTED,
        "image_too_large": (
            "messages.{m}.content.{c}.image.source.base64: image exceeds {limit_b64_mb} MB "
            "maximum: {n_b64} bytes > {limit_b64} bytes"
        ),
        "image_side": (
            "messages.{m}.content.{c}.image.source.base64.data: At least one of the image "
            "dimensions exceed max allowed size: {limit} pixels"
        ),
        "image_side_many": (
            "messages.{m}.content.{c}.image.source.base64.data: At least one of the image "
            "dimensions exceed max allowed size for many-image requests: {limit} pixels"
        ),
        "images_total": "request_too_large: Request exceeds the maximum size",
        "empty_text": "messages: text content blocks must be non-empty",
        "blank_text": "messages: text content blocks must contain non-whitespace text",
    },
    "bedrock": {
        "id_chars": (
            "Value at '{where}' failed to satisfy constraint: Member must satisfy regular "
            "expression pattern: [a-zA-Z0-9_-]+"
        ),
        "id_too_long": (
            "Value at '{where}' failed to satisfy constraint: Member must have length less "
            "than or equal to {limit}"
        ),
        "id_empty": (
            "Value at '{where}' failed to satisfy constraint: Member must have length greater "
            "than or equal to 1"
        ),
        "call_without_result": (
            "Expected toolResult blocks at messages.{next_m}.content for the following Ids: {id}"
        ),
        "result_without_call": _BEDROCK_TOO_MANY_RESULTS,
        "duplicate_result": _BEDROCK_TOO_MANY_RESULTS,
        "user_after_user": _BEDROCK_ALTERNATE,
        "assistant_after_assistant": _BEDROCK_ALTERNATE,
        "assistant_first": (
            "A conversation must start with a user message. Try again with a conversation "
            "that starts with a user message."
        ),
        "foreign_thinking": _ANTHROPIC_SIGNATURE,
        "foreign_redacted": _ANTHROPIC_REDACTED,
        "empty_text": _BEDROCK_BLANK,
        "blank_text": _BEDROCK_BLANK,
    },
    "gemini": {
        "call_without_result": _GEMINI_COUNT,
        "result_without_call": (
            "Please ensure that function response turn comes immediately after a function "
            "call turn."
        ),
        "result_without_call_unnamed": (
            "Missing corresponding tool call for tool response message."
        ),
        "duplicate_result": _GEMINI_COUNT,
        "user_after_user": (
            "Please ensure that multiturn requests alternate between user and model."
        ),
        "assistant_after_assistant": (
            "Please ensure that multiturn requests alternate between user and model."
        ),
        "assistant_first_with_calls": (
            "Please ensure that function call turn comes immediately after a user turn or "
            "after a function response turn."
        ),
        "foreign_thinking": "Corrupted thought signature.",
        "foreign_thought_signature": "Corrupted thought signature.",
        "non_base64_signature": (
            "Invalid value at 'contents[{m}].parts[{c}].thought_signature' (TYPE_BYTES), "
            'Base64 decoding failed for "{sig}"'
        ),
        "image_base64": (
            "Invalid value at 'contents[{m}].parts[{c}].inline_data.data' (TYPE_BYTES), "
            'Base64 decoding failed for "{sig}"'
        ),
        "images_total": "Request payload size exceeds the limit: {limit} bytes.",
        "empty_text": _GEMINI_EMPTY,
        "blank_text": _GEMINI_EMPTY,
    },
    "openai": _OPENAI_CHAT,
    "openai-responses": {
        "id_too_long": _OPENAI_TOO_LONG,
        "id_empty": _OPENAI_EMPTY,
        "item_id_chars": (
            "Invalid '{where}': '{id}'. Expected an ID that contains letters, numbers, "
            "underscores, or dashes, but this value contained additional characters."
        ),
        "item_id_prefix": "Invalid '{where}': '{id}'. Expected an ID that begins with 'fc'.",
        "call_without_result": "No tool output found for function call {id}.",
        "result_without_call": "No tool call found for function call output with call_id {id}.",
        "foreign_thinking": _RESPONSES_ENCRYPTED,
        "foreign_reasoning_item": _RESPONSES_ENCRYPTED,
    },
    "mistral": {
        "id_chars": _MISTRAL_ID,
        "id_too_long": _MISTRAL_ID,
        "id_length": _MISTRAL_ID,
        "id_empty": _MISTRAL_ID,
        "call_without_result": _MISTRAL_COUNT,
        "result_without_call": _MISTRAL_COUNT,
        "duplicate_result": _MISTRAL_COUNT,
        "user_after_user": "Conversation roles must alternate user/assistant/user/assistant/...",
        "extra_field": _EXTRA_FORBIDDEN,
    },
    "openai-compatible": {
        **_OPENAI_CHAT,
        "duplicate_result": "Duplicate value for 'tool_call_id' of {id} in message[{i}]",
        "extra_field": _EXTRA_FORBIDDEN,
    },
}

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
}


_FALLBACK: Final[dict[ErrorKind, ErrorKind]] = {
    "result_without_call_unnamed": "result_without_call",
    "assistant_first_with_calls": "assistant_first",
}
"""A more specific kind falls back to the general one where a family has no own text."""


def wording(
    family: Family, kind: ErrorKind, path: PathKind | None, values: dict[str, Any]
) -> str | None:
    """The provider's error text for ``kind``, formatted with ``values``; ``None`` if unknown."""
    table = _WORDING[family]
    template = table.get(kind) or table.get(_FALLBACK.get(kind, kind))
    if template is None:
        return None
    if path is not None:
        values["where"] = _PATHS[family].get(path, path).format_map(values)
    return template.format_map(values)
