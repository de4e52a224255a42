"""What every pass shares: its inputs, and the record of what it changed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeAlias

from pydantic import BaseModel, ConfigDict

from .._build import trusted
from .._messages import AssistantMessage, Message
from .._policy import Policy
from .._provenance import is_replayable
from .._target import TargetModel

__all__ = ["Change", "Messages", "Pass", "PassContext", "PassResult", "change"]

Messages: TypeAlias = tuple[Message, ...]


class Change(BaseModel):
    """One thing a pass changed, without message content.

    Attributes:
        step: The pass that made it (``normalize_tool_call_ids``).
        kind: What happened (``tool_call_id_renamed``, ``thinking_to_text``...).
        index: Position of the affected message in that pass's input, when there is one.
        detail: A short description; never message text, keys or signatures.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    step: str
    kind: str
    index: int | None = None
    detail: str = ""


def change(step: str, kind: str, index: int | None = None, detail: str = "") -> Change:
    """A :class:`Change`, built without re-validating arguments the type checker checks.

    Passes record one per thing they change, so on a long transcript these are many.
    """
    return trusted(Change, step=step, kind=kind, index=index, detail=detail)


@dataclass(frozen=True)
class PassContext:
    """The target a pass transforms for, and the policy that says how."""

    target: TargetModel
    policy: Policy

    def replayable(self, message: AssistantMessage) -> bool:
        """May this turn's opaque provider data be replayed to the target?"""
        return is_replayable(message, self.target, self.policy)


PassResult: TypeAlias = tuple[Messages, list[Change]]
"""The new messages (the input object itself when nothing changed) and the changes."""

Pass: TypeAlias = Callable[[Messages, PassContext], PassResult]
"""A pure function over the neutral messages; it never mutates its input."""
