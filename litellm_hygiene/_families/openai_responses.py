"""OpenAI's Responses API.

OpenAI and Azure ``responses/`` models, and ``/v1/responses`` calls sent as they are.
"""

from __future__ import annotations

from .._policy import IdRule, Policy
from ._profile import Layout, Profile

__all__ = ["PROFILE"]

PROFILE = Profile(
    family="openai-responses",
    # OpenAI Responses: call_id up to 64, call_id|fc_... pairs kept; reasoning items
    # replayed to the same model only.
    policy=Policy(
        family="openai-responses",
        reasoning_needs_answer=True,
        tool_ids=IdRule(max_length=64, keep_responses_pairs=True),
        strip_fields=frozenset({"thinking_blocks", "provider_specific_fields"}),
    ),
    paths={
        "call_id": "input[{c}].call_id",
        "item_id": "input[{c}].id",
        "result_id": "input[{m}].call_id",
    },
    layout=Layout("responses_items", {}),
    extra_field=None,
    apis=frozenset({"openai-responses"}),
    call_id_prefixes=("fc_", "call_"),
    wording={
        "null_content": {
            "null_content": "Invalid value for 'content': expected a string, got null.",
        },
        "foreign_reasoning": {
            "foreign_thinking": "The encrypted content for item {item} could not be verified.",
            "foreign_reasoning_item": (
                "The encrypted content for item {item} could not be verified."
            ),
        },
        "lone_reasoning": {
            "lone_reasoning_item": (
                "Item '{item}' of type 'reasoning' was provided without its "
                "required following item."
            ),
        },
        "tool_pairing": {
            "call_without_result": "No tool output found for function call {id}.",
            "result_without_call": "No tool call found for function call output with call_id {id}.",
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
            "item_id_chars": (
                "Invalid '{where}': '{id}'. Expected an ID that contains letters, "
                "numbers, underscores, or dashes, but this value contained "
                "additional characters."
            ),
            "item_id_prefix": "Invalid '{where}': '{id}'. Expected an ID that begins with 'fc'.",
        },
    },
)
