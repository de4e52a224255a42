"""Provider policy: one frozen, documented record per provider family.

Passes read these fields and never test provider names themselves. A policy is
resolved by :func:`policy_for`, a pure function of the target; a caller may pass a
modified copy (``policy.model_copy(update=...)``) to any entry point.
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import BaseModel, ConfigDict

from ._target import Family

__all__ = [
    "ALL_RESPONSE_FIELDS",
    "IdRule",
    "InlineSystem",
    "Policy",
    "ResponseField",
    "UnknownProvenance",
]

ResponseField = Literal[
    "thinking_blocks", "reasoning_content", "provider_specific_fields", "reasoning_items"
]
"""LiteLLM's response-only message fields that it may forward verbatim to a provider."""

ALL_RESPONSE_FIELDS: Final[frozenset[ResponseField]] = frozenset(
    {"thinking_blocks", "reasoning_content", "provider_specific_fields", "reasoning_items"}
)

InlineSystem = Literal["anywhere", "after_user", "none"]
"""Where the provider's own API takes a system message inside the conversation:

- ``anywhere``: at any place (OpenAI's APIs);
- ``after_user``: only right after a user turn (a tool result is one), never between a
  call's results (Claude from Opus 4.8 on: mid-conversation system messages);
- ``none``: nowhere but the top-level system prompt (older Claude models, and
  Anthropic-compatible endpoints: ``unknown variant `system`, expected `user` or
  `assistant```).
"""

UnknownProvenance = Literal["match_evidence", "foreign", "same"]
"""How to treat an assistant turn whose producing model is unknown (no stamp, no
declared source model):

- ``match_evidence`` (default): evidence in the message (id shapes, signature sites,
  reasoning items) that points at the target's provider and protocol makes it
  same-model; any other evidence, or none with signatures present, makes it foreign.
- ``foreign``: always foreign: signatures dropped, thinking turned into text.
- ``same``: always same-model: everything replayed as is.
"""


class IdRule(BaseModel):
    """The tool-call id shape a target accepts.

    Attributes:
        allowed: A regex character class body of allowed characters, or ``None`` for any.
        max_length: Longest accepted id, or ``None``.
        exact_length: Required length (Mistral: 9), or ``None``.
        keep_responses_pairs: Keep OpenAI Responses ``call_id|fc_...`` pairs intact.
        unique_in_request: An id may be issued by one call of the whole request only
            (Anthropic: ``tool_use ids must be unique``); elsewhere, by one call of a
            turn.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    allowed: str | None = None
    max_length: int | None = None
    exact_length: int | None = None
    keep_responses_pairs: bool = False
    unique_in_request: bool = False


class Policy(BaseModel):
    """What hygiene does for one provider family.

    Attributes:
        family: The family this record describes.
        tool_ids: Accepted tool-call id shape; ids that break it are renamed.
        repair_tool_pairing: Move, deduplicate, drop and synthesize tool results so every
            call has exactly one result before the next turn.
        merge_user_turns: Merge consecutive user turns (strict alternation).
        merge_assistant_turns: Merge consecutive assistant turns.
        reasoning_on_calls: Thinking mode of DeepSeek and Kimi: every assistant turn with
            tool calls carries ``reasoning_content`` (``The reasoning_content in the
            thinking mode must be passed back to the API``), and another model's
            readable thinking is passed back there rather than as text.
        reasoning_needs_answer: A reasoning item is replayed only with a text or call
            item after it (OpenAI Responses).
        parse_tool_arguments: LiteLLM's converter parses tool-call arguments: ones that
            are not a JSON object are sent as their best-effort decoded object.
        strict_turn_order: A strict chat template's turn order (Mistral's): no user
            turn right after a tool result, no system message after the first turn, no
            assistant turn last unless it is a prefix.
        require_user_first: Prepend a minimal user turn when history starts with an
            assistant turn.
        thinking_opens_tool_loop: With thinking requested, the last assistant turn of an
            unfinished tool loop must start with the model's own signed thinking (Claude:
            ``Expected `thinking` or `redacted_thinking`, but found `tool_use```); when it
            cannot, the request goes without thinking.
        strip_fields: Response-only fields removed from every assistant turn, even
            same-model ones (the target rejects or misuses them).
        strip_foreign_fields: Response-only fields removed from foreign turns.
        require_base64_thought_signatures: Remove thought signatures that are not
            canonical base64 (Google rejects them: ``Base64 decoding failed``).
        downgrade_images: Replace images by placeholders when the target is known not
            to accept images.
        max_image_bytes: Largest decoded inline image the target accepts.
        max_image_side: Largest image side in pixels.
        many_images_count: Above this many images in one request, ``many_images_max_side``
            applies instead (Anthropic: more than 20 images, 2000 px per side).
        many_images_max_side: The per-side limit for many-image requests.
        max_total_image_bytes: Largest total of decoded inline image bytes per request.
        reject_empty_text: The target rejects empty text blocks (Anthropic: ``text
            content blocks must be non-empty``).
        keep_signed_empty_text: An empty text part carrying a thought signature is kept:
            the target replays text signatures (Gemini returns such parts itself).
        inline_system: Where the provider's API takes a system message inside the
            conversation (:data:`InlineSystem`); read only where the request's shape
            sends such a message at its place (``/v1/messages``): on chat calls
            LiteLLM's converters lift it into the system prompt for Claude, and
            ``strict_turn_order`` moves it to the start for Mistral.
        own_evidence: Protocols whose shapes in a turn's own content (ids, signatures)
            do not make it another model's for this family: a Mistral model keeps
            Mistral's id shape behind any router, and the ids hygiene gives a Mistral
            target have it too, so its output is judged alike on the next request.
        unknown_provenance: How to treat assistant turns of unknown origin.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    family: Family
    tool_ids: IdRule
    repair_tool_pairing: bool = True
    merge_user_turns: bool = False
    merge_assistant_turns: bool = False
    reasoning_on_calls: bool = False
    reasoning_needs_answer: bool = False
    parse_tool_arguments: bool = False
    strict_turn_order: bool = False
    require_user_first: bool = False
    thinking_opens_tool_loop: bool = False
    strip_fields: frozenset[ResponseField] = frozenset()
    strip_foreign_fields: frozenset[ResponseField] = ALL_RESPONSE_FIELDS
    require_base64_thought_signatures: bool = False
    downgrade_images: bool = True
    max_image_bytes: int = 20 * 1024 * 1024
    max_image_side: int = 8000
    many_images_count: int | None = None
    many_images_max_side: int | None = None
    max_total_image_bytes: int | None = None
    reject_empty_text: bool = False
    keep_signed_empty_text: bool = False
    inline_system: InlineSystem = "anywhere"
    own_evidence: frozenset[str] = frozenset()
    unknown_provenance: UnknownProvenance = "match_evidence"
