"""Mistral's chat templates.

Mistral's own API, and Mistral models behind any OpenAI-compatible route (OpenRouter,
Together, vLLM).
"""

from __future__ import annotations

import re
from typing import Final

from .._messages import Api
from .._policy import ALL_RESPONSE_FIELDS, IdRule, Policy
from ._profile import CHAT_PATHS, STRICT_EXTRA_FIELD, Layout, Profile

__all__ = ["MISTRAL_MODEL", "PROFILE"]

MISTRAL_MODEL: Final = re.compile(
    r"mistral|mixtral|codestral|pixtral|devstral|ministral|magistral|mistralai", re.IGNORECASE
)
"""Model ids served by Mistral's own stack, whichever router serves them. Mistral
rejects tool-call ids that are not exactly 9 alphanumerics, also behind OpenRouter,
Together or vLLM."""


def _claims(api: Api, model_id: str) -> bool:
    """A Mistral model behind any OpenAI-compatible route is Mistral's."""
    return api in ("openai-compatible", "mistral") and MISTRAL_MODEL.search(model_id) is not None


PROFILE = Profile(
    family="mistral",
    # Mistral (also behind OpenRouter, Together, vLLM): ids exactly 9 alphanumerics;
    # strict templates reject extra fields and non-alternating roles.
    policy=Policy(
        family="mistral",
        tool_ids=IdRule(allowed="a-zA-Z0-9", exact_length=9),
        merge_user_turns=True,
        strict_turn_order=True,
        require_user_first=True,
        strip_fields=ALL_RESPONSE_FIELDS,
        own_evidence=frozenset({"mistral"}),
    ),
    paths=CHAT_PATHS,
    layout=Layout("one_to_one", {}),
    extra_field=STRICT_EXTRA_FIELD,
    claims=_claims,
    apis=frozenset({"mistral"}),
    call_id_shape=re.compile(r"[a-zA-Z0-9]{9}"),
    wording={
        "null_content": {
            "null_content": "Invalid value for 'content': expected a string, got null.",
        },
        "tool_pairing": {
            "call_without_result": "Not the same number of function calls and responses",
            "result_without_call": "Not the same number of function calls and responses",
            "duplicate_result": "Not the same number of function calls and responses",
        },
        "tool_call_id": {
            "id_chars": (
                "Tool call id was {id} but must be a-z, A-Z, 0-9, with a length of {exact}."
            ),
            "id_too_long": (
                "Tool call id was {id} but must be a-z, A-Z, 0-9, with a length of {exact}."
            ),
            "id_length": (
                "Tool call id was {id} but must be a-z, A-Z, 0-9, with a length of {exact}."
            ),
            "id_empty": (
                "Tool call id was {id} but must be a-z, A-Z, 0-9, with a length of {exact}."
            ),
        },
        "turn_order": {
            "user_after_tool": "Unexpected role 'user' after role 'tool'",
            "system_after_turn": "Unexpected role 'system' after role '{role}'",
            "assistant_last": (
                "Expected last role User or Tool (or Assistant with prefix True) "
                "for serving but got assistant"
            ),
        },
        "consecutive_turns": {
            "user_after_user": (
                "Conversation roles must alternate user/assistant/user/assistant/..."
            ),
        },
    },
)
