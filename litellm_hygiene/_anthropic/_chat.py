"""An Anthropic Messages request as chat messages, for the rules, and back.

The rules read chat messages (``_openai``). A ``/v1/messages`` request is read into the
neutral model, each neutral message handed to the rules in its chat form, and what the
rules send back written in Anthropic's form again. A chat message the rules leave as it
is comes back as the very neutral message it was read as (its ``joined`` included), so
a request nothing changes is written exactly as the caller sent it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._messages import Context, Message
from .._openai._decode import decode_message
from .._openai._encode import encode_message
from .._target import TargetModel
from ._decode import ABSENT, from_anthropic
from ._encode import to_anthropic

__all__ = ["AnthropicChat", "native_model", "read_as_chat"]


@dataclass(frozen=True)
class AnthropicChat:
    """An Anthropic Messages request's conversation as chat messages.

    Attributes:
        messages: Each neutral message's chat form, ``system`` first when given.
        read: Each chat message's neutral message, by the chat message's identity.
    """

    messages: list[dict[str, Any]]
    read: Mapping[int, Message]

    def written(self, messages: Sequence[Any]) -> tuple[list[dict[str, Any]], Any]:
        """``(messages, system)`` in Anthropic's form for the chat messages to send.

        ``system`` is ``None`` when the messages open with no system message.

        Raises:
            HygieneError: A system message after the first message.
        """
        neutral = [
            self.read.get(id(message)) or decode_message(message, index)
            for index, message in enumerate(messages)
        ]
        return to_anthropic(Context(messages=tuple(neutral)))


def read_as_chat(messages: Sequence[Any], system: Any = ABSENT) -> AnthropicChat:
    """Read an Anthropic Messages request's ``messages`` and ``system`` as chat messages.

    Raises:
        InvalidMessageError: A message, or ``system``, cannot be read.
    """
    context = from_anthropic(messages, system)
    chat = [encode_message(message) for message in context.messages]
    read = {id(raw): message for raw, message in zip(chat, context.messages, strict=True)}
    return AnthropicChat(chat, read)


def native_model(model: str, target: TargetModel) -> str:
    """The model string that resolves to ``target`` as a ``/v1/messages`` call reaches it.

    Claude on Bedrock is reached through Converse by chat calls, but a ``/v1/messages``
    call goes to Bedrock's invoke route, in Anthropic's own protocol
    (``bedrock/invoke/<model>``): its turns and signatures are Anthropic Messages ones.
    """
    if target.provider == "bedrock" and target.api == "bedrock-converse":
        return f"bedrock/invoke/{target.model_id}"
    return model
