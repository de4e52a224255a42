"""A transcript's tool exchanges: which messages must be kept or cut together.

Every provider rejects a tool result whose call is not in the request (OpenAI:
``Messages with role 'tool' must be a response to a preceding message with
'tool_calls'``; Anthropic: ``unexpected `tool_use_id` found in `tool_result` blocks``),
and a call whose results are missing (Anthropic: ``tool_use ids were found without
tool_result blocks immediately after``). So a trimmer never cuts between an assistant
turn and the results of its calls, parallel calls included: the turn and its results are
one *exchange*, kept or dropped whole. This module finds the exchanges in one pass over
OpenAI-shaped messages (dicts or pydantic objects such as LiteLLM's ``Message``),
reading only roles and ids; it never decodes content.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .._wire._ids import bare_id

__all__ = ["SYSTEM_ROLES", "Unit", "UnitKind", "role_of", "units_of"]

SYSTEM_ROLES = frozenset({"system", "developer"})
"""Instruction roles: OpenAI's ``developer`` is its newer name for ``system``."""

UnitKind = Literal["system", "user", "exchange", "orphan", "other"]
"""What a unit is: an instruction, a user turn, an assistant turn with the results of its
calls, a result answering no earlier call, or a message of an unknown role."""

"""LiteLLM keeps Gemini's thought signature in a call id after this separator; a result
may quote the id with or without it, and still answers that call."""


@dataclass
class Unit:
    """Messages kept or cut together, by index in the transcript.

    Attributes:
        kind: What the unit is.
        indices: Its messages' positions, ascending; the first is its head (the
            assistant turn of an exchange).
    """

    kind: UnitKind
    indices: list[int] = field(default_factory=list)

    @property
    def head(self) -> int:
        """The unit's first message."""
        return self.indices[0]


def _get(message: Any, key: str) -> Any:
    if isinstance(message, Mapping):
        return message.get(key)
    return getattr(message, key, None)


def role_of(message: Any) -> Any:
    """The message's ``role`` (a dict key or an attribute), ``None`` when absent."""
    return _get(message, "role")


def _call_ids(message: Any) -> list[str]:
    calls = _get(message, "tool_calls")
    if not isinstance(calls, Sequence) or isinstance(calls, str):
        return []
    ids = (_get(call, "id") for call in calls)
    return [i for i in ids if isinstance(i, str)]


def _keys(call_id: str) -> tuple[str, ...]:
    bare = bare_id(call_id)
    return (call_id,) if bare == call_id else (call_id, bare)


def _result_unit(
    message: Any, by_id: Mapping[str, Unit], last_function: Unit | None
) -> Unit | None:
    """The exchange a ``tool`` or legacy ``function`` result answers, if any."""
    call_id = _get(message, "tool_call_id")
    if isinstance(call_id, str):
        for key in _keys(call_id):
            if key in by_id:
                return by_id[key]
    if role_of(message) == "function":
        return last_function
    return None


def units_of(messages: Sequence[Any]) -> list[Unit]:
    """The transcript as units, ordered by head; every message is in exactly one.

    A result joins the latest earlier assistant turn that issued its id (also when the
    id differs only by LiteLLM's ``__thought__`` suffix); a legacy ``function`` message
    joins the latest earlier turn with a ``function_call``. Linear in the messages.
    """
    units: list[Unit] = []
    by_id: dict[str, Unit] = {}
    last_function: Unit | None = None
    for index, message in enumerate(messages):
        role = role_of(message)
        if role in SYSTEM_ROLES:
            units.append(Unit("system", [index]))
        elif role == "user":
            units.append(Unit("user", [index]))
        elif role == "assistant":
            unit = Unit("exchange", [index])
            units.append(unit)
            for call_id in _call_ids(message):
                by_id.update(dict.fromkeys(_keys(call_id), unit))
            if _get(message, "function_call") is not None:
                last_function = unit
        elif role in ("tool", "function"):
            owner = _result_unit(message, by_id, last_function)
            if owner is None:
                units.append(Unit("orphan", [index]))
            else:
                owner.indices.append(index)
        else:
            units.append(Unit("other", [index]))
    return units
