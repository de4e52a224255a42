"""Every other OpenAI-compatible provider.

Groq, Fireworks, xAI, Kimi and the like, and routes hygiene does not know.
"""

from __future__ import annotations

from .._policy import ALL_RESPONSE_FIELDS, IdRule, Policy
from .._target import TargetModel
from . import openai
from ._profile import CHAT_PATHS, SAFE_IDS, STRICT_EXTRA_FIELD, Layout, Profile

__all__ = ["PROFILE", "thinking_mode"]


def thinking_mode(target: TargetModel) -> bool:
    """The target thinks by default and wants its reasoning passed back (Kimi).

    Kimi's ``-thinking`` models, behind any OpenAI-compatible route (DeepSeek's have their
    own family). They require ``reasoning_content`` on tool-call turns, as DeepSeek does.
    """
    if target.family != "openai-compatible":
        return False
    model = target.model_id.lower()
    return "kimi" in model and "thinking" in model


def _thinking(target: TargetModel) -> Policy | None:
    return _THINKING_MODE if thinking_mode(target) else None


PROFILE = Profile(
    family="openai-compatible",
    # Other OpenAI-compatible providers: ids up to 40 of [a-zA-Z0-9_-]; strict ones
    # reject thinking_blocks (Fireworks); Kimi's thinking models need their own
    # reasoning_content back.
    policy=Policy(
        family="openai-compatible",
        tool_ids=IdRule(allowed=SAFE_IDS, max_length=40),
        strip_fields=ALL_RESPONSE_FIELDS,
    ),
    paths=CHAT_PATHS,
    layout=Layout("one_to_one", {}),
    extra_field=STRICT_EXTRA_FIELD,
    variant=_thinking,
    apis=frozenset({"openai-compatible", "unknown"}),
    wording={
        "null_content": {
            "null_content": "Invalid value for 'content': expected a string, got null.",
        },
        "missing_reasoning": {
            "missing_reasoning": (
                "The reasoning_content in the thinking mode must be passed back to the API."
            ),
        },
        # They copy OpenAI's API, and answer with its words.
        "tool_pairing": openai.PROFILE.wording["tool_pairing"],
        "tool_call_id": openai.PROFILE.wording["tool_call_id"],
    },
)

_THINKING_MODE = PROFILE.policy.model_copy(
    update={
        "reasoning_on_calls": True,
        "strip_fields": frozenset(
            {"thinking_blocks", "provider_specific_fields", "reasoning_items"}
        ),
        "strip_foreign_fields": ALL_RESPONSE_FIELDS - {"reasoning_content"},
    }
)
"""OpenAI-compatible targets in thinking mode (Kimi's thinking models):
``reasoning_content`` is required on tool-call turns, so it is kept."""
