"""An Anthropic Messages request as chat messages, for the rules, and back.

The rules read chat messages (``_openai``). A ``/v1/messages`` request is read into the
neutral model, each neutral message handed to the rules in its chat form, and what the
rules send back written in Anthropic's form again. A chat message the rules leave as it
is comes back as the very neutral message it was read as (its ``joined`` included), so
a request nothing changes is written exactly as the caller sent it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from .._errors import InvalidMessageError
from .._messages import Context, Message
from .._openai._decode import decode_message
from .._openai._encode import encode_message
from .._recall import Seen, resumed, walked
from .._target import TargetModel
from ._decode import ABSENT, SYSTEM_INDEX, decode_system, decode_turn, read_turn
from ._encode import to_anthropic
from ._quick import quick_chat, quick_message, quick_system

__all__ = ["AnthropicChat", "native_model", "read_as_chat"]


@dataclass(frozen=True)
class AnthropicChat:
    """An Anthropic Messages request's conversation as chat messages.

    Attributes:
        messages: Each neutral message's chat form, ``system`` first when given.
        read: The neutral message of each chat message read the long way, by the chat
            message's identity.
        origin: Where each chat message written straight from the wire came from, by
            its identity: the wire message's index (``SYSTEM_INDEX`` for ``system``) and
            its place among that message's neutral messages. Decoded only if written.
        wire: The request's ``messages`` and ``system``.
        unread: Why each message that could not be read could not; each is kept as it
            came, at its place (its chat form ``{"role": OPAQUE_ROLE}``).
        lifted: The places in ``messages`` of the system messages before the first
            turn, which Claude takes only in ``system``: the chat form cannot tell them
            from it, and the writer puts them there (the request must be written).
        seen: What a recall remembers of each chat message (``_recall``): a part of
            its Anthropic message's ``Seen`` (``Seen.parts``), a new one for the system
            prompt's; ``None`` without a recall.
    """

    messages: list[dict[str, Any]]
    read: Mapping[int, Message]
    origin: Mapping[int, tuple[int, int]]
    wire: tuple[Sequence[Any], Any]
    unread: tuple[InvalidMessageError, ...] = ()
    lifted: tuple[int, ...] = ()
    seen: Sequence[Seen] | None = None

    def written(self, messages: Sequence[Any]) -> tuple[list[dict[str, Any]], Any]:
        """``(messages, system)`` in Anthropic's form for the chat messages to send.

        ``system`` is ``None`` when the messages hold no system message.
        """
        decoded: dict[int, list[Message]] = {}
        neutral = [self._neutral(message, index, decoded) for index, message in enumerate(messages)]
        return to_anthropic(Context(messages=tuple(neutral)))

    def _neutral(self, message: Any, index: int, decoded: dict[int, list[Message]]) -> Message:
        found = self.read.get(id(message))
        if found is not None:
            return found
        place = self.origin.get(id(message))
        if place is None:
            return decode_message(message, index)  # a message a rule wrote
        at, number = place
        turn = decoded.get(at)
        if turn is None:
            wire, system = self.wire
            turn = decoded[at] = (
                [decode_system(system)] if at == SYSTEM_INDEX else decode_turn(wire[at], at)
            )
        return turn[number]


def read_as_chat(
    messages: Sequence[Any], system: Any = ABSENT, seen: Sequence[Seen] | None = None
) -> AnthropicChat:
    """Read an Anthropic Messages request's ``messages`` and ``system`` as chat messages.

    The plain messages Claude Code sends are written in their chat form straight from the
    wire (``_quick``); the others are decoded, and their chat form encoded from that.
    ``seen``: what a recall remembers of each of ``messages`` (``_recall``): a plain
    message's chat form is written once, for every request holding it again.

    A message that cannot be read is kept as it came (see :attr:`AnthropicChat.unread`).

    Raises:
        InvalidMessageError: ``system`` cannot be read.
    """
    unread: list[InvalidMessageError] = []
    has_system = system is not ABSENT and system is not None
    chat: list[dict[str, Any]] = []
    read: dict[int, Message] = {}
    origin: dict[int, tuple[int, int]] = {}
    found = None if seen is None else _resumed(seen, len(messages))
    begin = 0 if found is None else found[0]
    places = ([SYSTEM_INDEX] if has_system else []) + list(range(begin, len(messages)))
    quicks = (
        quick_chat(messages, system, has_system)
        if seen is None
        else _remembered(messages, system, has_system, seen, begin)
    )
    parts: list[Seen] = []
    kept = begin  # the messages read the quick way from the first, as the recall keeps them
    first = 0  # the chat messages of the system prompt, before the messages'
    if found is not None and not has_system:
        _take(found[1], chat, origin, parts)
    for at, quick in zip(places, quicks, strict=True):
        before = len(chat)
        if quick is None:
            neutral: list[Message] = (
                [decode_system(system)]
                if at == SYSTEM_INDEX
                else read_turn(messages[at], at, unread)
            )
            for message in neutral:
                raw = encode_message(message)
                read[id(raw)] = message
                chat.append(raw)
        else:
            for number, raw in enumerate(quick if isinstance(quick, list) else [quick]):
                origin[id(raw)] = (at, number)
                chat.append(raw)
            if at == kept and seen is not None and seen[at].outcome(_CHAT_FORM) is not None:
                kept += 1
        if seen is not None:
            count = len(chat) - before
            parts += [Seen() for _ in range(count)] if at == SYSTEM_INDEX else seen[at].parts(count)
        if at == SYSTEM_INDEX:
            first = len(chat)
            if found is not None:  # the messages an earlier request read, after it
                _take(found[1], chat, origin, parts)
    if seen is not None and kept > begin:
        _remember_read(seen, parts[first:], kept, begin, found)
    lifted = _leading_systems(messages)
    known = None if seen is None else parts
    return AnthropicChat(chat, read, origin, (messages, system), tuple(unread), lifted, known)


_CHAT_FORM: Final = "anthropic chat form"
"""What a recall remembers of a ``/v1/messages`` message: its chat form (``Seen``)."""


def _remembered(
    messages: Sequence[Any], system: Any, has_system: bool, seen: Sequence[Seen], begin: int
) -> Iterator[Any]:
    """:func:`quick_chat` from message ``begin`` on, each chat form kept in its ``Seen``."""
    if has_system:
        yield quick_system(system)
    for index in range(begin, len(messages)):
        msg, known = messages[index], seen[index]
        kept = known.outcome(_CHAT_FORM)
        if kept is not None:
            # The recall's own copy, shared by every request holding the message: the
            # chat form is what the core reads and never hands on (the writer writes
            # Anthropic's form anew), and nothing reading it changes it.
            yield kept
            continue
        quick = quick_message(msg)
        if quick is not None:
            known.remember_copy(_CHAT_FORM, quick if isinstance(quick, list) else [quick])
        yield quick


_READ: Final = "anthropic read"
"""What a recall remembers with a request's last message read the quick way from the
first: the chat messages read up to it, where they came from, and their ``Seen``."""
_Read = tuple[list[dict[str, Any]], dict[int, tuple[int, int]], list[Seen]]
"""A remembered reading: the chat messages, where each came from, and their ``Seen``."""


def _resumed(seen: Sequence[Seen], count: int) -> tuple[int, _Read] | None:
    """Where the reading of an earlier request of the conversation ended, and what it read."""
    return resumed(lambda index: seen[index], count, _READ)


def _take(
    known: _Read,
    chat: list[dict[str, Any]],
    origin: dict[int, tuple[int, int]],
    parts: list[Seen],
) -> None:
    """Add a remembered reading to the one being made."""
    known_chat, known_origin, known_parts = known
    chat += known_chat
    origin.update(known_origin)
    parts += known_parts


def _remember_read(
    seen: Sequence[Seen],
    parts: list[Seen],
    kept: int,
    begin: int,
    known: tuple[int, _Read] | None,
) -> None:
    """Remember the reading of the first ``kept`` messages with the last of them.

    ``parts``: the ``Seen`` of the messages' chat forms (the system prompt's left out).
    Each chat form read anew is the recall's own copy, as the next request's reading
    takes it from its message's ``Seen``.
    """
    if known is not None:
        known_chat, known_origin, known_parts = known[1]
        copies, where, owned = list(known_chat), dict(known_origin), list(known_parts)
    else:
        copies, where, owned = [], {}, []
    position = len(copies)
    for at in range(begin, kept):
        forms: list[dict[str, Any]] = seen[at].outcome(_CHAT_FORM)
        for number, form in enumerate(forms):
            where[id(form)] = (at, number)
            copies.append(form)
        owned += parts[position : position + len(forms)]
        position += len(forms)
    walked(
        lambda index: seen[index],
        begin,
        kept,
        _READ,
        (copies, where, owned),
        64 + 120 * len(copies),
    )


def _leading_systems(messages: Sequence[Any]) -> tuple[int, ...]:
    """The places of the system messages in ``messages`` before its first turn."""
    count = 0
    for msg in messages:
        if type(msg) is not dict or msg.get("role") != "system":
            break
        count += 1
    return tuple(range(count))


def native_model(model: str, target: TargetModel) -> str:
    """The model string that resolves to ``target`` as a ``/v1/messages`` call reaches it.

    Claude on Bedrock is reached through Converse by chat calls, but a ``/v1/messages``
    call goes to Bedrock's invoke route, in Anthropic's own protocol
    (``bedrock/invoke/<model>``): its turns and signatures are Anthropic Messages ones.
    """
    if target.provider == "bedrock" and target.api == "bedrock-converse":
        return f"bedrock/invoke/{target.model_id}"
    return model
