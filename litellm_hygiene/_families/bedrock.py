"""Bedrock's Converse API.

Claude, Llama, Nova and the other models LiteLLM sends through ``bedrock/converse``.
"""

from __future__ import annotations

from .._policy import IdRule, Policy
from .._target import TargetModel
from ._profile import MERGED_ANTHROPIC, SAFE_IDS, Layout, Profile

__all__ = ["PROFILE"]


def _claude(target: TargetModel) -> Policy | None:
    """Claude on Bedrock: Bedrock's record, with Claude's thinking in a tool loop.

    LiteLLM maps ``thinking`` and ``reasoning_effort`` to Claude's thinking there, and
    Anthropic's model checks the turn; Bedrock's other models think, if at all, by other
    rules.
    """
    return _CLAUDE if "claude" in target.model_id.lower() else None


PROFILE = Profile(
    family="bedrock",
    # Bedrock Converse: ids [a-zA-Z0-9_-] up to 64; a conversation must start with a
    # user message and alternate. 3.75 MB per image.
    policy=Policy(
        family="bedrock",
        parse_tool_arguments=True,
        tool_ids=IdRule(allowed=SAFE_IDS, max_length=64),
        merge_user_turns=True,
        merge_assistant_turns=True,
        require_user_first=True,
        max_image_bytes=3_750_000,
        reject_empty_text=True,
    ),
    paths={
        "call_id": "messages.{m}.member.content.{c}.member.toolUse.toolUseId",
        "result_id": "messages.{m}.member.content.{c}.member.toolResult.toolUseId",
    },
    layout=Layout("merged_turns", MERGED_ANTHROPIC),
    extra_field=None,
    variant=_claude,
    apis=frozenset({"bedrock-converse"}),
    call_id_prefixes=("tooluse_",),
    signed_thinking=True,
    signs_every_thinking=True,
    redacts_thinking=True,
    wording={
        "foreign_reasoning": {
            "foreign_thinking": "messages.{m}.content.{c}: Invalid `signature` in `thinking` block",
            "foreign_redacted": (
                "messages.{m}.content.{c}: Invalid `data` in `redacted_thinking` block"
            ),
        },
        "empty_content": {
            "empty_text": (
                "The text field in the ContentBlock object at "
                "messages.{m}.content.{c} is blank. Add text to the text field, and "
                "try again."
            ),
            "blank_text": (
                "The text field in the ContentBlock object at "
                "messages.{m}.content.{c} is blank. Add text to the text field, and "
                "try again."
            ),
        },
        "tool_pairing": {
            "call_without_result": (
                "Expected toolResult blocks at messages.{next_m}.content for "
                "the following Ids: {id}"
            ),
            "result_without_call": (
                "The number of toolResult blocks at messages.{m}.content "
                "exceeds the number of toolUse blocks of previous turn."
            ),
            "duplicate_result": (
                "The number of toolResult blocks at messages.{m}.content "
                "exceeds the number of toolUse blocks of previous turn."
            ),
        },
        "tool_call_id": {
            "id_chars": (
                "Value at '{where}' failed to satisfy constraint: Member must satisfy "
                "regular expression pattern: [a-zA-Z0-9_-]+"
            ),
            "id_too_long": (
                "Value at '{where}' failed to satisfy constraint: Member must have "
                "length less than or equal to {limit}"
            ),
            "id_empty": (
                "Value at '{where}' failed to satisfy constraint: Member must have "
                "length greater than or equal to 1"
            ),
        },
        "consecutive_turns": {
            "user_after_user": (
                "A conversation must alternate between user and assistant roles. "
                "Make sure the conversation alternates between user and "
                "assistant roles and try again."
            ),
            "assistant_after_assistant": (
                "A conversation must alternate between user and "
                "assistant roles. Make sure the conversation "
                "alternates between user and assistant roles and try "
                "again."
            ),
        },
        "assistant_first": {
            "assistant_first": (
                "A conversation must start with a user message. Try again with a "
                "conversation that starts with a user message."
            ),
        },
        "thinking_tool_loop": {
            "thinking_not_first": (
                "The model returned the following errors: "
                "messages.{m}.content.0.type: Expected `thinking` or "
                "`redacted_thinking`, but found `{found}`. When `thinking` is "
                "enabled, a final `assistant` message must start with a "
                "thinking block (preceeding the lastmost set of `tool_use` "
                "and `tool_result` blocks). We recommend you include thinking "
                "blocks from previous turns. To avoid this requirement, "
                "disable `thinking`."
            ),
        },
    },
)

_CLAUDE = PROFILE.policy.model_copy(update={"thinking_opens_tool_loop": True})
