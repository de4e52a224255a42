"""What a provider family's module states: its :class:`Profile`."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Final, Literal

from .._messages import Api
from .._policy import Policy
from .._rules._codes import Code
from .._rules._wording import ErrorKind, PathKind
from .._target import TargetModel

__all__ = [
    "CHAT_PATHS",
    "MERGED_ANTHROPIC",
    "MERGED_GEMINI",
    "SAFE_IDS",
    "STRICT_EXTRA_FIELD",
    "Layout",
    "Profile",
    "WireStyle",
]

SAFE_IDS: Final = "a-zA-Z0-9_-"
"""The id characters most providers accept (``^[a-zA-Z0-9_-]+$``)."""

CHAT_PATHS: Final[Mapping[PathKind, str]] = {
    "call_id": "messages[{i}].tool_calls[{j}].id",
    "result_id": "messages[{i}].tool_call_id",
}
"""Where an API that takes OpenAI Chat's messages points at a call's and a result's id."""

STRICT_EXTRA_FIELD: Final = "Extra inputs are not permitted, field: 'messages[{i}].{key}'"
"""What a strict OpenAI-compatible server (a pydantic request model forbidding extra keys:
Mistral's, Fireworks', vLLM's) says of a message key it does not know."""

WireStyle = Literal["one_to_one", "merged_turns", "responses_items"]
"""How LiteLLM lays a family's messages out: one wire message per caller message,
consecutive messages of one wire role merged into one turn, or Responses input items."""

MERGED_ANTHROPIC: Final[Mapping[str, str]] = {
    "user": "user",
    "tool": "user",
    "function": "user",
    "assistant": "assistant",
}
"""Anthropic's (and Converse's) turns: tool results ride in the user turn."""

MERGED_GEMINI: Final[Mapping[str, str]] = {
    "user": "user",
    "system": "user",
    "developer": "user",
    "tool": "function",
    "function": "function",
    "assistant": "model",
}
"""Gemini's turns: system text joins the user turn, results are function turns."""


@dataclass(frozen=True)
class Layout:
    """How LiteLLM lays the caller's messages out on a family's wire.

    Attributes:
        style: See :data:`WireStyle`.
        groups: For merged turns, the wire turn each caller role joins (a role not
            listed is its own turn).
    """

    style: WireStyle
    groups: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Profile:
    """Everything hygiene knows of one provider family, stated in its own module.

    Attributes:
        family: The family's name (:data:`~litellm_hygiene._target.Family`).
        policy: Its policy record: the capabilities the rules read.
        paths: Where its errors point, per kind of id (``{where}`` in its wording).
        layout: How LiteLLM lays the caller's messages out on its wire (for the wire
            positions its errors name).
        extra_field: What it says of a message key it does not know, when it is strict
            about them (OpenAI-shaped APIs); ``None`` when unknown keys never reach it
            or it ignores them.
        wording: Its error text for each rule it enforces, per kind of breakage. A rule
            it does not enforce, or a breakage it answers without an error of its own,
            has no entry.
        apis: The wire protocols it is the family of (``_providers.api_for`` gives a
            target's protocol).
        claims: Models it claims whatever protocol serves them (Mistral's behind any
            OpenAI-compatible router): given the protocol and the model id.
        variant: The policy for those of its models that differ from the family's
            record (``None`` for the others); ``None`` when none do.
        call_id_prefixes: The prefixes (up to and including the first ``_``) of the
            tool-call ids its protocols write: an id with one is evidence that a turn
            came from one of its ``apis`` (``_openai._evidence``).
        call_id_shape: The whole shape of the ids its protocols write, where that is
            evidence on its own (Mistral's 9 alphanumerics).
        signed_thinking: Its thinking blocks may come signed (a signed block is
            evidence of its protocols, or of another's that signs).
        signs_every_thinking: It signs every thinking block it writes (Claude): an
            unsigned block is never its own.
        redacts_thinking: It writes redacted thinking blocks.
    """

    family: str
    policy: Policy
    paths: Mapping[PathKind, str]
    layout: Layout
    extra_field: str | None
    wording: Mapping[Code, Mapping[ErrorKind, str]]
    apis: frozenset[Api] = frozenset()
    claims: Callable[[Api, str], bool] | None = None
    variant: Callable[[TargetModel], Policy | None] | None = None
    call_id_prefixes: tuple[str, ...] = ()
    call_id_shape: re.Pattern[str] | None = None
    signed_thinking: bool = False
    signs_every_thinking: bool = False
    redacts_thinking: bool = False

    def policy_for(self, target: TargetModel) -> Policy:
        """The policy for ``target``, one of this family's models."""
        found = self.variant(target) if self.variant is not None else None
        return self.policy if found is None else found

    def words(self, code: Code) -> Mapping[ErrorKind, str]:
        """Its wordings for the rule ``code`` (a strict key's words for ``extra_field``)."""
        own = self.wording.get(code, {})
        if self.extra_field is None:
            return own
        return {"extra_field": self.extra_field, **own}
