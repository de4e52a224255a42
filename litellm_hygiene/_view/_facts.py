"""What the rules read of one message in any wire shape: its :class:`Facts`.

Every request shape reads each of its messages into a :class:`Facts` tuple once (the
chat shape in ``_openai._facts``), in one look at its keys; the rules ask the facts
whether they have anything to do and decode only the messages they fix. When a rule
edits a message in a way the facts can say (new ids, a flag gone), the new facts are
worked out here instead of read again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal, NamedTuple

from .._wire._ids import THOUGHT_SEPARATOR
from ._plan import Call, WirePlan

__all__ = [
    "BLANK",
    "CALLS",
    "IMAGES",
    "INLINE_IMAGES",
    "NULL_CONTENT",
    "OPAQUE",
    "SIGNED_ID",
    "STAMPED",
    "Facts",
    "Role",
    "plain_facts",
    "readdressed_facts",
    "renamed_facts",
    "with_flags",
]

Role = Literal["system", "user", "assistant", "tool", "opaque"]
"""A message's part in the conversation: ``developer`` is ``system``, ``function`` is
``tool`` (both answer a call); ``opaque`` is a message no reader could read, kept as it
came (no rule looks into it; it is no turn a rule may merge with or pair across)."""

# Bits of Facts.flags: each says "this message may hold X", never more than the decoder
# would find (a property test holds each bit to the decoded message).
NULL_CONTENT: Final = 1
"""A user, system or tool message whose ``content`` is ``null``."""
IMAGES: Final = 2
"""An ``image_url`` part in a user or tool message."""
INLINE_IMAGES: Final = 4
"""An image part whose URL is a ``data:`` URL the decoder splits."""
OPAQUE: Final = 8
"""Thinking of any kind, a signature anywhere, or a response-only key."""
BLANK: Final = 16
"""Empty or whitespace-only text, empty content (but not no content beside calls), or
empty unsigned thinking."""
STAMPED: Final = 32
"""litellm_hygiene's provenance stamp key."""
SIGNED_ID: Final = 64
"""A tool-call or tool-result id carrying a ``__thought__`` signature."""
CALLS: Final = 128
"""An assistant message with tool calls (or a legacy ``function_call``)."""


class Facts(NamedTuple):
    """What the rules read of one message (a tuple: cheap to build, never changed).

    Attributes:
        role: The message's part in the conversation.
        flags: The bits above that hold for it.
        calls: An assistant message's calls, in wire order.
        result: A result's pairing key.
        result_id: A ``tool`` result's id as sent (``None`` for ``function`` results).
        result_raw: A ``tool`` result's id as given.
    """

    role: Role
    flags: int = 0
    calls: tuple[Call, ...] = ()
    result: str | None = None
    result_id: str | None = None
    result_raw: str | None = None


_PLAIN: Final[dict[tuple[str, int], Facts]] = {}


def plain_facts(role: Role, flags: int) -> Facts:
    """The facts of a message with no calls and no result id (one shared tuple each)."""
    found = _PLAIN.get((role, flags))
    if found is None:
        found = _PLAIN[(role, flags)] = Facts(role, flags)
    return found


_NEW: Final = tuple.__new__
"""Builds a :class:`Facts` from all six fields without the named tuple's Python layer
(a third of the cost of reading a tool result)."""


def with_flags(facts: Facts, flags: int) -> Facts:
    """``facts`` with other flags (a message edited in a way only its flags show)."""
    role, _, calls, result, result_id, result_raw = facts
    return _NEW(Facts, (role, flags, calls, result, result_id, result_raw))


def renamed_facts(facts: Facts, calls: Mapping[int, str], result: str | None) -> Facts | None:
    """The facts of a message after its ids are renamed (see ``Wire.with_ids``).

    Worked out from the facts, not read again: only the ids change, so only the calls
    and the result do. ``None`` when an old or new id holds a ``__thought__`` signature
    (its flags may change with it: read the message again), or for a legacy
    ``function`` result.
    """
    new_calls = facts.calls
    if calls:
        listed = list(new_calls)
        for position, new_id in calls.items():
            if THOUGHT_SEPARATOR in new_id or THOUGHT_SEPARATOR in listed[position][2]:
                return None
            listed[position] = (new_id, new_id, new_id)
        new_calls = tuple(listed)
    key, sent, given = facts.result, facts.result_id, facts.result_raw
    if result is not None:
        if given is None or THOUGHT_SEPARATOR in given or THOUGHT_SEPARATOR in result:
            return None
        key = sent = given = result  # without a signature: sent and paired as it is
    return _NEW(Facts, (facts.role, facts.flags, new_calls, key, sent, given))


def readdressed_facts(facts: Facts, result: str, plan: WirePlan) -> Facts:
    """The facts of a ``tool`` result after its id becomes ``result`` (``Wire.with_ids``).

    Worked out from the facts, not read again: the id, and the flag of a signature in
    it, are all that change (as :func:`_result` reads them).
    """
    cut = result.find(THOUGHT_SEPARATOR)
    key, sent, given = plan.call(result, cut)
    flags = (facts.flags & ~SIGNED_ID) | (SIGNED_ID if cut >= 0 else 0)
    return _NEW(Facts, (facts.role, flags, facts.calls, key, sent, given))
