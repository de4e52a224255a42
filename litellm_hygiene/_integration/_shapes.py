"""The request shapes besides chat completions, seen by the integration as chat messages.

A ``/v1/messages`` call (Anthropic Messages) carries its conversation in ``messages`` of
content blocks and ``system``. The integration's core (:mod:`._request`: provenance
lookups, the rules, trimming, the report) reads chat messages: the call is read as chat
messages (:mod:`litellm_hygiene._anthropic._chat`) with the wire facts of its route, and
what the core sends is written back in the call's own shape.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._anthropic._chat import AnthropicChat, native_model, read_as_chat
from .._anthropic._decode import ABSENT, decode_assistant_turn
from .._anthropic._wire import ANTHROPIC_NATIVE
from .._openai._encode import encode_message
from .._rules._base import Wire
from .._target import TargetModel
from ._request import Prepared, target_of

__all__ = ["ChatView", "anthropic_answer", "anthropic_view", "messages_target"]


@dataclass(frozen=True)
class ChatView:
    """A call of another shape, with its conversation as chat messages.

    Attributes:
        kwargs: The call's kwargs, ``messages`` replaced by the chat messages.
        chat: The conversation read as chat messages.
        wire: The wire facts of the route the call is sent on.
    """

    kwargs: dict[str, Any]
    chat: AnthropicChat
    wire: Wire

    def apply(self, prepared: Prepared, kwargs: Mapping[str, Any]) -> dict[str, Any]:
        """New kwargs for the call: the prepared messages in Anthropic's form.

        ``system`` is written when the call had one or the messages now do; the
        parameters a rule removed are left out.
        """
        messages, system = self.chat.written(prepared.messages)
        out = {k: v for k, v in kwargs.items() if k not in prepared.drop_params}
        out["messages"] = messages
        if system is not None or out.get("system") is not None:
            out["system"] = system
        return out


def anthropic_view(kwargs: Mapping[str, Any]) -> ChatView:
    """The ``/v1/messages`` call ``kwargs`` as chat messages.

    The ``model`` the core resolves is the one of the route: see :func:`messages_model`.

    Raises:
        InvalidMessageError: A message, or ``system``, cannot be read.
    """
    chat = read_as_chat(kwargs["messages"], kwargs.get("system", ABSENT))
    call = {**kwargs, "messages": chat.messages, "model": messages_model(kwargs)}
    return ChatView(call, chat, ANTHROPIC_NATIVE)


def messages_model(kwargs: Mapping[str, Any]) -> str:
    """The model string of a ``/v1/messages`` call, as hygiene resolves it (``native_model``)."""
    return native_model(str(kwargs.get("model") or ""), target_of(kwargs))


def messages_target(kwargs: Mapping[str, Any]) -> TargetModel:
    """The target of a ``/v1/messages`` call sent natively (see :func:`messages_model`)."""
    return target_of({**kwargs, "model": messages_model(kwargs)})


def anthropic_answer(response: Mapping[str, Any]) -> dict[str, Any]:
    """The chat form of an Anthropic Messages answer, as its turn comes back next time.

    Its fingerprints are the ones the next request's copy of the turn is looked up by.

    Raises:
        InvalidMessageError: The answer's ``content`` cannot be read.
    """
    turn = {"role": "assistant", "content": response.get("content")}
    return encode_message(decode_assistant_turn(turn, 0))
