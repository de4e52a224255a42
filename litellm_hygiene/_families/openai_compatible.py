"""Every other OpenAI-compatible provider.

Groq, Fireworks, xAI, Kimi and the like, and routes hygiene does not know. Two kinds of
their models differ from the rest: Kimi's thinking models (they want their reasoning
back, as DeepSeek's do), and Gemini behind a router (OpenRouter's ``google/gemini-*``,
Vertex AI's OpenAI-compatible endpoint, LiteLLM proxies): the router hands the history
to Gemini, whose turn rule holds there too (the first turn after the system messages is
the user's; Gemini: ``Please ensure that function call turn comes immediately after a
user turn or after a function response turn``).
"""

from __future__ import annotations

import re
from typing import Final

from .._policy import ALL_RESPONSE_FIELDS, IdRule, Policy
from .._target import TargetModel
from . import gemini, openai
from ._profile import CHAT_PATHS, SAFE_IDS, STRICT_EXTRA_FIELD, Layout, Profile

__all__ = ["GEMINI_MODEL", "PROFILE", "behind_router_gemini", "thinking_mode"]

GEMINI_MODEL: Final = re.compile(r"(?:^|[/:])gemini-", re.IGNORECASE)
"""A Gemini model id as routers name it: ``google/gemini-2.5-pro``, ``gemini-3-flash``."""


def thinking_mode(target: TargetModel) -> bool:
    """The target thinks by default and wants its reasoning passed back (Kimi).

    Kimi's ``-thinking`` models, behind any OpenAI-compatible route (DeepSeek's have their
    own family). They require ``reasoning_content`` on tool-call turns, as DeepSeek does.
    """
    if target.family != "openai-compatible":
        return False
    model = target.model_id.lower()
    return "kimi" in model and "thinking" in model


def behind_router_gemini(target: TargetModel) -> bool:
    """A Gemini model reached through an OpenAI-compatible router."""
    return target.family == "openai-compatible" and GEMINI_MODEL.search(target.model_id) is not None


def _variant(target: TargetModel) -> Policy | None:
    if thinking_mode(target):
        return _THINKING_MODE
    return _GEMINI_TURNS if behind_router_gemini(target) else None


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
    variant=_variant,
    apis=frozenset({"openai-compatible", "unknown"}),
    call_id_prefixes=("call_",),
    wording={
        "null_content": {
            "null_content": "Invalid value for 'content': expected a string, got null.",
        },
        "missing_reasoning": {
            "missing_reasoning": (
                "The reasoning_content in the thinking mode must be passed back to the API."
            ),
        },
        # Gemini behind a router relays Gemini's own words.
        "assistant_first": gemini.PROFILE.wording["assistant_first"],
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

_GEMINI_TURNS = PROFILE.policy.model_copy(update={"require_user_first": True})
"""Gemini behind an OpenAI-compatible router: the router's ids and fields, Gemini's
rule that the first turn after the system messages is the user's."""
