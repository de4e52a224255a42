"""What the validator reports: one :class:`Violation` per broken rule, per site.

A violation names the message (``index``), the field inside it, a stable ``code`` and,
where one is known, the error text the provider returns for that shape, so a test, a
command line or a log reader can match it against a real 400.
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import BaseModel, ConfigDict

__all__ = ["CODE_RULES", "Violation", "ViolationCode"]

ViolationCode = Literal[
    "malformed_request",
    "malformed_message",
    "tool_call_id_shape",
    "empty_tool_call_id",
    "tool_call_id_collision",
    "tool_call_without_result",
    "tool_result_without_call",
    "duplicate_tool_result",
    "consecutive_user_turns",
    "consecutive_assistant_turns",
    "assistant_first",
    "foreign_signature",
    "foreign_redacted_thinking",
    "non_base64_thought_signature",
    "response_only_field",
    "hygiene_stamp",
    "image_unsupported",
    "image_invalid_base64",
    "image_too_large",
    "image_side_too_large",
    "images_total_too_large",
    "empty_text",
    "null_content",
    "image_unreadable",
]
"""Stable names of the rules a request can break."""

CODE_RULES: Final[dict[ViolationCode, str]] = {
    "malformed_request": "messages is not a list: nothing can be checked.",
    "malformed_message": (
        "A message LiteLLM cannot convert: not an object, no or unknown role, or a field "
        "of the wrong type. LiteLLM raises or sends garbage."
    ),
    "tool_call_id_shape": (
        "Policy.tool_ids: an id, as LiteLLM sends it, breaks the target's allowed "
        "characters, maximum or exact length (for keep_responses_pairs targets, a "
        "'call_id|fc_...' id is checked as the pair)."
    ),
    "empty_tool_call_id": "Policy.tool_ids: an empty id cannot be paired or accepted.",
    "tool_call_id_collision": (
        "Two calls of one assistant message share an id as LiteLLM sends it; results "
        "cannot tell them apart."
    ),
    "tool_call_without_result": (
        "Policy.repair_tool_pairing: a call has no result before the next non-tool message."
    ),
    "tool_result_without_call": (
        "Policy.repair_tool_pairing: a result does not answer a call of the assistant "
        "message directly before it."
    ),
    "duplicate_tool_result": "Policy.repair_tool_pairing: a call is answered twice.",
    "consecutive_user_turns": "Policy.merge_user_turns: two user turns in a row.",
    "consecutive_assistant_turns": "Policy.merge_assistant_turns: two assistant turns in a row.",
    "assistant_first": "Policy.require_user_first: the first turn is the assistant's.",
    "foreign_signature": (
        "Provenance: a thinking signature, encrypted reasoning or thought signature in a "
        "turn that is not replayable to the target."
    ),
    "foreign_redacted_thinking": "Provenance: redacted thinking in a non-replayable turn.",
    "non_base64_thought_signature": (
        "Policy.require_base64_thought_signatures: a thought signature that is not "
        "canonical base64 (Google: 'Base64 decoding failed'), even from the same model."
    ),
    "response_only_field": (
        "Policy.strip_fields on every assistant turn (key present, whatever its value), "
        "Policy.strip_foreign_fields on non-replayable turns (key with a non-empty value)."
    ),
    "hygiene_stamp": "litellm_hygiene's provenance stamp must never reach a provider.",
    "image_unsupported": (
        "Policy.downgrade_images: an image part to a target whose capabilities say no images."
    ),
    "image_invalid_base64": "An inline data: URL whose payload is not valid base64.",
    "image_too_large": "Policy.max_image_bytes: a decoded inline image is too large.",
    "image_side_too_large": (
        "Policy.max_image_side (or many_images_max_side above many_images_count images)."
    ),
    "images_total_too_large": "Policy.max_total_image_bytes: inline images of the request.",
    "empty_text": (
        "Policy.reject_empty_text: an empty or whitespace-only text in a user or "
        "assistant message (an assistant message with tool calls is exempt)."
    ),
    "image_unreadable": (
        "An inline image that is valid base64 but not an image Pillow can read, or one "
        "with too many pixels to decode safely."
    ),
    "null_content": (
        "Every target: a user, system or tool message whose content is null "
        "(only an assistant message may have null content)."
    ),
}
"""The rule behind each code, and the Policy field that switches it on."""


class Violation(BaseModel):
    """One broken rule at one place in the request.

    Attributes:
        index: Position of the message in the caller's list; ``None`` for the request as
            a whole (``malformed_request``, ``images_total_too_large``).
        field: Path inside the message (``tool_calls[0].id``, ``content[2]``); empty when
            the whole message is meant.
        code: Which rule is broken (see :data:`CODE_RULES`).
        provider_error: The error the provider returns for this shape, in its own words
            with the wire positions filled in (positions in merged wire messages are
            computed the way LiteLLM merges turns, best effort). ``None`` when no
            provider is known to reject it: the rule is then litellm_hygiene policy only
            (the provider tolerates it, or LiteLLM's converter drops or patches it).
        message: A plain explanation for people.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    index: int | None
    field: str
    code: ViolationCode
    provider_error: str | None
    message: str
