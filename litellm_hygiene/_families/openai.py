"""OpenAI's Chat Completions API.

OpenAI itself (Azure's chat deployments are OpenAI-compatible).
"""

from __future__ import annotations

from .._policy import ALL_RESPONSE_FIELDS, IdRule, Policy
from ._profile import CHAT_PATHS, Layout, Profile

__all__ = ["PROFILE"]

PROFILE = Profile(
    family="openai",
    # OpenAI Chat: touched no more than needed. Ids up to 40; LiteLLM forwards its
    # response-only fields verbatim and OpenAI rejects them.
    policy=Policy(
        family="openai",
        tool_ids=IdRule(max_length=40),
        strip_fields=ALL_RESPONSE_FIELDS,
    ),
    paths=CHAT_PATHS,
    layout=Layout("one_to_one", {}),
    extra_field="Additional properties are not allowed ('{key}' was unexpected) - 'messages.{i}'",
    apis=frozenset({"openai-chat"}),
    call_id_prefixes=("call_",),
    wording={
        "null_content": {
            "null_content": "Invalid value for 'content': expected a string, got null.",
        },
        "image_unsupported": {
            "image_unsupported": (
                "Invalid content type. image_url is only supported by certain models."
            ),
        },
        "tool_pairing": {
            "call_without_result": (
                "An assistant message with 'tool_calls' must be followed by "
                "tool messages responding to each 'tool_call_id'. The "
                "following tool_call_ids did not have response messages: {id}"
            ),
            "result_without_call": (
                "Messages with role 'tool' must be a response to a preceding "
                "message with 'tool_calls'"
            ),
            "duplicate_result": (
                "Messages with role 'tool' must be a response to a preceding "
                "message with 'tool_calls'"
            ),
        },
        "tool_call_id": {
            "id_too_long": (
                "Invalid '{where}': string too long. Expected a string with maximum "
                "length {limit}, but got a string with length {n} instead."
            ),
            "id_empty": (
                "Invalid '{where}': empty string. Expected a string with minimum length "
                "1, but got an empty string instead."
            ),
        },
    },
)
