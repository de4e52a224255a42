"""The OpenAI-shaped wire, as the rules read and write it (see ``_rules._base.Wire``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from .._content import TextContent
from .._messages import Api, Message
from ._decode import STAMP_KEY, as_message_dict, decode_message
from ._edits import PlainTurn, plain_fields, plain_turn, with_keys_removed, with_reasoning
from ._encode import encode_message
from ._facts import Facts, WirePlan, arguments, evidence, read_facts, signatures, stamp_of

__all__ = ["OPENAI", "OpenAIWire"]

_STAMP: Final = frozenset({STAMP_KEY})


class OpenAIWire:
    """OpenAI-shaped message dicts (and pydantic messages) as LiteLLM accepts them."""

    def facts(self, raw: Any, index: int, plan: WirePlan) -> Facts:
        """What the rules read of one message (see :func:`read_facts`)."""
        return read_facts(raw, index, plan)

    def decode(self, raw: Any, index: int) -> Message:
        """The neutral message."""
        return decode_message(raw, index)

    def encode(self, message: Message) -> Any:
        """The wire dict of a neutral message."""
        return encode_message(message)

    def stamp(self, raw: Any) -> dict[str, Any] | None:
        """The well-formed provenance stamp, if any."""
        return stamp_of(raw)

    def unstamped(self, raw: Any) -> Any:
        """A shallow copy without the stamp key; its values are the caller's own."""
        return with_keys_removed(as_message_dict(raw, 0), _STAMP)

    def with_ids(self, raw: Any, calls: Mapping[int, str], result: str | None) -> Any:
        """A shallow copy with new call ids (by position) and result id.

        Only the ids change: every other value is the caller's own, as in a message no
        rule touched.
        """
        out = dict(as_message_dict(raw, 0))
        if calls:
            entries = list(out["tool_calls"])
            for position, new_id in calls.items():
                entries[position] = {**entries[position], "id": new_id}
            out["tool_calls"] = entries
        if result is not None:
            out["tool_call_id"] = result
        return out

    def arguments(self, raw: Any) -> list[Any]:
        """Each call's arguments as given (see :func:`arguments`)."""
        return arguments(raw)

    def signatures(self, raw: Any) -> list[Any]:
        """Every value held where a signature travels (see :func:`signatures`)."""
        return signatures(raw)

    def evidence(self, raw: Any) -> frozenset[Api]:
        """Protocols the message's content says it came from (see :func:`evidence`)."""
        return evidence(raw)

    def plain_turn(self, raw: Any) -> PlainTurn | None:
        """A plain turn's pieces (see :func:`plain_turn`)."""
        return plain_turn(raw)

    def with_reasoning(
        self, raw: Any, texts: Sequence[TextContent], form: str, unsign: Sequence[bool]
    ) -> Any:
        """A plain turn rewritten (see :func:`with_reasoning`)."""
        return with_reasoning(raw, texts, form, unsign)

    def plain_fields(self, raw: Any) -> frozenset[str] | None:
        """Response-only keys that are only keys (see :func:`plain_fields`)."""
        return plain_fields(raw)

    def with_keys_removed(self, raw: Any, keys: frozenset[str]) -> Any:
        """A shallow copy without ``keys``."""
        return with_keys_removed(raw, keys)


OPENAI: Final = OpenAIWire()
"""The OpenAI wire shape."""
