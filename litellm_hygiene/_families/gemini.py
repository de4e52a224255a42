"""Google's Gemini API.

Gemini on AI Studio and on Vertex AI.
"""

from __future__ import annotations

from .._policy import IdRule, Policy
from ._profile import MERGED_GEMINI, SAFE_IDS, Layout, Profile

__all__ = ["PROFILE"]

PROFILE = Profile(
    family="gemini",
    # Gemini: ids optional; renamed ones use [a-zA-Z0-9_-] (strict alphanumerics would
    # rename LiteLLM's own Gemini ids, call_<hex>); function call turns must follow a
    # user or function response turn; history must not start with the model; thought
    # signatures must be base64.
    policy=Policy(
        family="gemini",
        parse_tool_arguments=True,
        tool_ids=IdRule(allowed=SAFE_IDS, max_length=64),
        merge_user_turns=True,
        merge_assistant_turns=True,
        require_user_first=True,
        require_base64_thought_signatures=True,
        max_total_image_bytes=20 * 1024 * 1024,
        reject_empty_text=True,
        keep_signed_empty_text=True,
    ),
    paths={},
    layout=Layout("merged_turns", MERGED_GEMINI),
    extra_field=None,
    apis=frozenset({"gemini"}),
    # LiteLLM gives Gemini's calls ``call_<hex>`` ids too (the first of parallel calls
    # carries the signature, the others none).
    call_id_prefixes=("call_",),
    signed_thinking=True,
    wording={
        "image_payload": {
            "image_base64": (
                "Invalid value at 'contents[{m}].parts[{c}].inline_data.data' "
                '(TYPE_BYTES), Base64 decoding failed for "{sig}"'
            ),
            "images_total": "Request payload size exceeds the limit: {limit} bytes.",
        },
        "foreign_reasoning": {
            "foreign_thinking": "Corrupted thought signature.",
            "foreign_thought_signature": "Corrupted thought signature.",
        },
        "non_base64_signature": {
            "non_base64_signature": (
                "Invalid value at "
                "'contents[{m}].parts[{c}].thought_signature' (TYPE_BYTES), "
                'Base64 decoding failed for "{sig}"'
            ),
        },
        "tool_arguments": {
            "invalid_arguments": "Unable to convert openai tool calls",
        },
        "empty_content": {
            "empty_text": (
                "Unable to submit request because it has an empty text parameter. Add "
                "a value to the parameter and try again."
            ),
            "blank_text": (
                "Unable to submit request because it has an empty text parameter. Add "
                "a value to the parameter and try again."
            ),
        },
        "tool_pairing": {
            "call_without_result": (
                "Please ensure that the number of function response parts is "
                "equal to the number of function call parts of the function "
                "call turn."
            ),
            "result_without_call": (
                "Please ensure that function response turn comes immediately "
                "after a function call turn."
            ),
            "result_without_call_unnamed": (
                "Missing corresponding tool call for tool response message."
            ),
            "duplicate_result": (
                "Please ensure that the number of function response parts is "
                "equal to the number of function call parts of the function "
                "call turn."
            ),
        },
        "consecutive_turns": {
            "user_after_user": (
                "Please ensure that multiturn requests alternate between user and model."
            ),
            "assistant_after_assistant": (
                "Please ensure that multiturn requests alternate between user and model."
            ),
        },
        "assistant_first": {
            "assistant_first_with_calls": (
                "Please ensure that function call turn comes "
                "immediately after a user turn or after a function "
                "response turn."
            ),
        },
    },
)
