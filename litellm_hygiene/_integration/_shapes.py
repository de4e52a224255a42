"""The request shapes besides chat completions, seen by the integration as chat messages.

A ``/v1/messages`` call (Anthropic Messages) carries its conversation in ``messages`` of
content blocks and ``system``. The integration's core (:mod:`._request`: provenance
lookups, the rules, trimming, the report) reads chat messages; a shape reads its
request into the neutral model, hands the core the neutral messages in their chat form,
and writes what the core sends back in its own form. A message the core leaves as it
is comes back as the very neutral message it was read as, so a request nothing changes
goes out as the caller sent it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._anthropic import from_anthropic, to_anthropic
from .._anthropic._decode import ABSENT, decode_assistant_turn
from .._anthropic._wire import ANTHROPIC_NATIVE
from .._messages import Context, Message
from .._openai._decode import decode_message
from .._openai._encode import encode_message
from .._rules._base import Wire
from ._request import Prepared

__all__ = ["ChatView", "anthropic_answer", "anthropic_view"]


@dataclass(frozen=True)
class ChatView:
    """A request of another shape, with its conversation as chat messages.

    Attributes:
        kwargs: The call's kwargs, ``messages`` replaced by the chat messages.
        read: Each chat message's neutral message, by the chat message's identity.
        wire: The wire facts of the route the call is sent on.
    """

    kwargs: dict[str, Any]
    read: Mapping[int, Message]
    wire: Wire

    def neutral(self, messages: Sequence[Any]) -> list[Message]:
        """The neutral messages of the chat messages the core sends."""
        return [
            self.read.get(id(message)) or decode_message(message, index)
            for index, message in enumerate(messages)
        ]

    def apply(self, prepared: Prepared, kwargs: Mapping[str, Any]) -> dict[str, Any]:
        """New kwargs for the call: the prepared messages in Anthropic's form.

        ``system`` is written when the call had one or the messages now do; the
        parameters a rule removed are left out.
        """
        context = Context(messages=tuple(self.neutral(prepared.messages)))
        messages, system = to_anthropic(context)
        out = {k: v for k, v in kwargs.items() if k not in prepared.drop_params}
        out["messages"] = messages
        if system is not None or out.get("system") is not None:
            out["system"] = system
        return out


def anthropic_view(kwargs: Mapping[str, Any]) -> ChatView:
    """The ``/v1/messages`` call ``kwargs`` as chat messages.

    Raises:
        InvalidMessageError: A message, or ``system``, cannot be read.
    """
    context = from_anthropic(kwargs["messages"], kwargs.get("system", ABSENT))
    chat = [encode_message(message) for message in context.messages]
    read = {id(raw): message for raw, message in zip(chat, context.messages, strict=True)}
    return ChatView({**kwargs, "messages": chat}, read, ANTHROPIC_NATIVE)


def anthropic_answer(response: Mapping[str, Any]) -> dict[str, Any]:
    """The chat form of an Anthropic Messages answer, as its turn comes back next time.

    Its fingerprints are the ones the next request's copy of the turn is looked up by.

    Raises:
        InvalidMessageError: The answer's ``content`` cannot be read.
    """
    turn = {"role": "assistant", "content": response.get("content")}
    return encode_message(decode_assistant_turn(turn, 0))
