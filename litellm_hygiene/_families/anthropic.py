"""Anthropic's Messages API, as every route that speaks it.

Anthropic, Claude on Vertex AI and Azure, Bedrock's invoke route, and Anthropic-compatible
endpoints (DeepSeek's, for one).

Claude's mid-conversation system messages (``role: "system"`` inside ``messages``) came
with Claude Opus 4.8: that model and every later one take one right after a user turn,
never first (``messages.0: use the top-level 'system' parameter for the initial system
prompt``) and never between a call and its results. Older Claude models, and
Anthropic-compatible endpoints (``unknown variant `system`, expected `user` or
`assistant```), take system instructions in ``system`` only.
"""

from __future__ import annotations

import re
from typing import Final

from .._policy import IdRule, Policy
from .._target import TargetModel
from ._profile import MERGED_ANTHROPIC, SAFE_IDS, Layout, Profile

__all__ = ["PROFILE", "takes_inline_system"]

_CLAUDE: Final = re.compile(r"claude-(opus|sonnet|haiku)-(\d+)(?:[-.](\d{1,2})(?!\d))?")
"""A Claude model id of the 4 line and later (``claude-opus-4-8``, ``claude-sonnet-4-5-2025…``,
``us.anthropic.claude-opus-5-v1:0``): its tier, major and minor version."""


def takes_inline_system(model_id: str) -> bool:
    """Claude Opus 4.8 and later, and every Claude model of generation 5 on."""
    found = _CLAUDE.search(model_id.lower())
    if found is None:
        return False
    tier, major, minor = found.group(1), int(found.group(2)), int(found.group(3) or 0)
    return major >= 5 or (tier == "opus" and (major, minor) >= (4, 8))


def _variant(target: TargetModel) -> Policy | None:
    return _INLINE_SYSTEM if takes_inline_system(target.model_id) else None


PROFILE = Profile(
    family="anthropic",
    # Anthropic: ids ^[a-zA-Z0-9_-]+$ up to 64; strict user/assistant alternation;
    # signed thinking replayed byte-for-byte to the same model only. Its 5 MB per image
    # and 32 MB per request are measured on the base64 text ("image exceeds 5 MB
    # maximum: 6275800 bytes"), so the decoded budgets are 3/4 of those.
    policy=Policy(
        family="anthropic",
        parse_tool_arguments=True,
        tool_ids=IdRule(allowed=SAFE_IDS, max_length=64, unique_in_request=True),
        merge_user_turns=True,
        merge_assistant_turns=True,
        require_user_first=True,
        thinking_opens_tool_loop=True,
        max_image_bytes=5 * 1024 * 1024 * 3 // 4,
        many_images_count=20,
        many_images_max_side=2000,
        max_total_image_bytes=32 * 1024 * 1024 * 3 // 4,
        reject_empty_text=True,
        inline_system="none",
    ),
    paths={
        "call_id": "messages.{m}.content.{c}.tool_use.id",
        "result_id": "messages.{m}.content.{c}.tool_result.tool_use_id",
    },
    layout=Layout("merged_turns", MERGED_ANTHROPIC),
    extra_field=None,
    apis=frozenset({"anthropic-messages"}),
    call_id_prefixes=("toolu_", "srvtoolu_"),
    signed_thinking=True,
    signs_every_thinking=True,
    redacts_thinking=True,
    variant=_variant,
    wording={
        "image_payload": {
            "image_too_large": (
                "messages.{m}.content.{c}.image.source.base64: image exceeds "
                "{limit_b64_mb} MB maximum: {n_b64} bytes > {limit_b64} bytes"
            ),
            "image_side": (
                "messages.{m}.content.{c}.image.source.base64.data: At least one of "
                "the image dimensions exceed max allowed size: {limit} pixels"
            ),
            "image_side_many": (
                "messages.{m}.content.{c}.image.source.base64.data: At least one "
                "of the image dimensions exceed max allowed size for many-image "
                "requests: {limit} pixels"
            ),
            "images_total": "request_too_large: Request exceeds the maximum size",
            "image_media_type": (
                "messages.{m}.content.{c}.image.source.base64: The image was "
                "specified using the {declared} media type, but the image "
                "appears to be a {actual} image"
            ),
        },
        "foreign_reasoning": {
            "foreign_thinking": "messages.{m}.content.{c}: Invalid `signature` in `thinking` block",
            "foreign_redacted": (
                "messages.{m}.content.{c}: Invalid `data` in `redacted_thinking` block"
            ),
        },
        "empty_content": {
            "empty_text": "messages: text content blocks must be non-empty",
            "blank_text": "messages: text content blocks must contain non-whitespace text",
        },
        "tool_pairing": {
            "call_without_result": (
                "messages.{m}: `tool_use` ids were found without "
                "`tool_result` blocks immediately after: {id}. Each "
                "`tool_use` block must have a corresponding `tool_result` "
                "block in the next message."
            ),
            "result_without_call": (
                "messages.{m}.content.{c}: unexpected `tool_use_id` found in "
                "`tool_result` blocks: {id}. Each `tool_result` block must "
                "have a corresponding `tool_use` block in the previous "
                "message."
            ),
            "duplicate_result": (
                "each tool_use must have a single result. Found multiple "
                "tool_result blocks with id: {id}"
            ),
        },
        "tool_call_id": {
            "id_chars": "{where}: String should match pattern '^[a-zA-Z0-9_-]+$'",
            "id_empty": "{where}: String should match pattern '^[a-zA-Z0-9_-]+$'",
            "id_too_long": "{where}: String should have at most {limit} characters",
            "id_collision": "messages.{m}.content.{c}: `tool_use` ids must be unique",
        },
        "consecutive_turns": {
            "user_after_user": (
                'messages: roles must alternate between "user" and "assistant", '
                'but found multiple "{role}" roles in a row'
            ),
            "assistant_after_assistant": (
                'messages: roles must alternate between "user" and '
                '"assistant", but found multiple "{role}" roles in a '
                "row"
            ),
        },
        "assistant_first": {
            "assistant_first": 'messages: first message must use the "user" role',
        },
        "thinking_tool_loop": {
            "thinking_not_first": (
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

_INLINE_SYSTEM: Final = PROFILE.policy.model_copy(update={"inline_system": "after_user"})
"""Claude from Opus 4.8 on: a system message right after a user turn is its own."""
