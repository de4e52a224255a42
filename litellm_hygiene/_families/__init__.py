"""Provider families: one module each, holding all hygiene knows of the family.

Each module states its family's :class:`~._profile.Profile`: its policy (the
capabilities the rules read), where its errors point, how LiteLLM lays the caller's
messages out on its wire, and its words for every rule it enforces. The rest of the code
reads these through :data:`PROFILES` and :func:`policy_for`, never by a family's name;
adding a family is one new module listed here, plus its tests
(``tests/rules/test_families.py`` holds every family complete).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, get_args

from .._messages import Api
from .._policy import Policy
from .._target import Family, TargetModel
from . import (
    anthropic,
    bedrock,
    deepseek,
    gemini,
    mistral,
    openai,
    openai_compatible,
    openai_responses,
)
from ._profile import Layout, Profile
from .openai_compatible import thinking_mode

__all__ = [
    "CALL_ID_EVIDENCE",
    "CALL_ID_SHAPES",
    "POLICIES",
    "PROFILES",
    "REDACTED_THINKING_APIS",
    "SIGNED_THINKING_APIS",
    "UNSIGNED_THINKING_APIS",
    "Layout",
    "Profile",
    "family_of",
    "policy_for",
    "thinking_mode",
]


def _profiles(*profiles: Profile) -> Mapping[Family, Profile]:
    found = {profile.family: profile for profile in profiles}
    missing = set(get_args(Family)) - set(found)
    assert not missing and len(found) == len(profiles), f"families without one profile: {missing}"
    for family, profile in found.items():
        assert profile.policy.family == family, f"{family}'s policy names {profile.policy.family}"
    served = [api for profile in profiles for api in profile.apis]
    assert len(served) == len(set(served)), "a protocol is the family of one profile only"
    return MappingProxyType(found)  # type: ignore[arg-type]


PROFILES: Final[Mapping[Family, Profile]] = _profiles(
    anthropic.PROFILE,
    bedrock.PROFILE,
    gemini.PROFILE,
    openai.PROFILE,
    openai_responses.PROFILE,
    mistral.PROFILE,
    deepseek.PROFILE,
    openai_compatible.PROFILE,
)
"""Every family's profile, by family."""

POLICIES: Final[Mapping[Family, Policy]] = MappingProxyType(
    {family: profile.policy for family, profile in PROFILES.items()}
)
"""The policy of each provider family."""


def policy_for(target: TargetModel) -> Policy:
    """The policy for ``target``: its family's record, or its family's variant for it.

    DeepSeek and Kimi in thinking mode get the OpenAI-compatible record that keeps
    ``reasoning_content`` and requires it on tool-call turns; Claude on Bedrock gets
    Bedrock's record with Claude's thinking rule.
    """
    return PROFILES[target.family].policy_for(target)


def _evidenced(profile: Profile) -> frozenset[Api]:
    """The protocols a trace of ``profile``'s family is evidence of (``unknown`` is none)."""
    return profile.apis - {"unknown"}


def _apis(*profiles: Profile) -> frozenset[Api]:
    found: frozenset[Api] = frozenset()
    for profile in profiles:
        found |= profile.apis
    return found


def _by_prefix() -> dict[str, frozenset[Api]]:
    found: dict[str, frozenset[Api]] = {}
    for profile in PROFILES.values():
        for prefix in profile.call_id_prefixes:
            found[prefix] = found.get(prefix, frozenset()) | _evidenced(profile)
    return found


CALL_ID_EVIDENCE: Final[Mapping[str, frozenset[Api]]] = MappingProxyType(_by_prefix())
"""The protocols a tool-call id's prefix (up to and including its first ``_``) says a
turn came from: each family's ``call_id_prefixes``."""
CALL_ID_SHAPES: Final[tuple[tuple[re.Pattern[str], frozenset[Api]], ...]] = tuple(
    (profile.call_id_shape, _evidenced(profile))
    for profile in PROFILES.values()
    if profile.call_id_shape is not None
)
"""Whole id shapes that say which protocols wrote them: each family's ``call_id_shape``."""
SIGNED_THINKING_APIS: Final = _apis(*(p for p in PROFILES.values() if p.signed_thinking))
"""The protocols a signed thinking block may come from."""
UNSIGNED_THINKING_APIS: Final = _apis(*(p for p in PROFILES.values() if not p.signs_every_thinking))
"""The protocols an unsigned thinking block may come from: any that does not sign each."""
REDACTED_THINKING_APIS: Final = _apis(*(p for p in PROFILES.values() if p.redacts_thinking))
"""The protocols that write redacted thinking."""

_BY_API: Final[Mapping[Api, Family]] = MappingProxyType(
    {api: family for family, profile in PROFILES.items() for api in profile.apis}
)
_CLAIMING: Final = tuple(
    (family, profile.claims) for family, profile in PROFILES.items() if profile.claims
)


def family_of(api: Api, model_id: str) -> Family:
    """The family of a model served by ``api``.

    A family that claims the model, else the protocol's own (``resolve_target`` asks
    this once per target).
    """
    for family, claims in _CLAIMING:
        if claims(api, model_id):
            return family
    return _BY_API[api]
