"""The request shapes hygiene serves, one entry each (:data:`SHAPES`).

How the integration sees the shapes besides chat completions: as chat messages.

A ``/v1/messages`` call (Anthropic Messages: ``messages`` of content blocks and
``system``) and a ``/v1/responses`` call (``input`` items and ``instructions``) that
LiteLLM sends as they are reach the integration's core (:mod:`._request`: provenance
lookups, the rules, trimming, the report) as chat messages: each is read by its shape's
``_chat`` module, handed to the core with the wire facts of its route and the model its
route resolves to, and what the core sends is written back in the call's own shape.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from .._anthropic import _chat as anthropic_chat
from .._anthropic._decode import ABSENT, decode_assistant_turn
from .._anthropic._wire import ANTHROPIC_NATIVE
from .._errors import InvalidMessageError
from .._openai._encode import encode_message
from .._openai._wire import OPENAI
from .._recall import Recall, Seen
from .._resolve import target_of
from .._responses import _chat as responses_chat
from .._rules import Change
from .._rules.system_placement import lifted
from .._target import TargetModel
from .._view import Wire
from ._prepared import Prepared
from ._routes import messages_route, responses_route

__all__ = [
    "SHAPES",
    "ChatView",
    "RequestShape",
    "answered_inside",
    "anthropic_answer",
    "anthropic_view",
    "call_type_name",
    "messages_target",
    "responses_answer",
    "responses_target",
    "responses_view",
    "shape_named",
    "shape_of",
]

Writer = Callable[[Prepared], dict[str, Any]]
"""The call's conversation fields (``messages`` and ``system``, or ``input``) for the chat
messages a prepared request sends (and what a recall remembers of each,
``Prepared.seen``)."""


@dataclass(frozen=True)
class ChatView:
    """A call of another shape, with its conversation as chat messages.

    Attributes:
        kwargs: The call's kwargs for the core: ``messages`` the chat messages, ``model``
            the one its route resolves to.
        write: Writes the chat messages to send back into the call's own shape.
        wire: The wire facts of the route the call is sent on.
        unread: Why each message of the call that could not be read could not (each
            is kept as it came, at its place).
        lifted: The changes the call's writer makes whatever the rules do (a system
            message before the first turn of a ``/v1/messages`` call goes into
            ``system``).
        seen: What a recall remembers of each chat message, where the call's reader
            aligned the call in its own shape (``_recall``); ``None``: the core aligns
            the chat messages, if it remembers at all.
    """

    kwargs: dict[str, Any]
    write: Writer
    wire: Wire
    unread: tuple[InvalidMessageError, ...] = ()
    lifted: tuple[Change, ...] = ()
    seen: Sequence[Seen] | None = None

    def written(self, prepared: Prepared) -> Prepared:
        """``prepared``, its messages written in the call's own shape now.

        Done where a failure can still fail open (``HygieneEngine.prepare``): writing may
        raise, and applying it later must not. The messages kept unread are reported
        as the call's own reader found them (their chat forms only say they are kept).
        """
        if self.unread:
            prepared = replace(prepared, unread=tuple(str(err) for err in self.unread))
        if self.lifted:
            changes = dict(prepared.changes)
            for change in self.lifted:
                changes[change.kind] = changes.get(change.kind, 0) + 1
            prepared = replace(prepared, changes=changes, changed=True)
        if not prepared.changed:
            return prepared
        fields = self.write(prepared)

        def apply(done: Prepared, kwargs: Mapping[str, Any]) -> dict[str, Any]:
            kept = {k: v for k, v in kwargs.items() if k not in done.drop_params}
            return {**kept, **fields}

        return replace(prepared, writer=apply)


def anthropic_view(kwargs: Mapping[str, Any], recall: Recall | None = None) -> ChatView:
    """The ``/v1/messages`` call ``kwargs`` as chat messages.

    A message that cannot be read is kept as it came (``ChatView.unread``). With a
    ``recall``, each message's chat form is remembered (``_recall``): a request that
    continues a conversation writes only its new messages' anew.

    Raises:
        InvalidMessageError: ``system`` cannot be read.
    """
    messages = kwargs["messages"]
    seen = None
    if recall is not None and isinstance(messages, list) and messages:
        aligned = recall.align("anthropic messages", messages)
        if aligned.seen is not None:
            recall.keep(aligned, messages)
            seen = aligned.seen
    chat = anthropic_chat.read_as_chat(messages, kwargs.get("system", ABSENT), seen)
    had_system = kwargs.get("system") is not None

    def write(prepared: Prepared) -> dict[str, Any]:
        out: dict[str, Any] = {}
        out["messages"], system = chat.written(prepared.messages)
        if system is not None or had_system:
            out["system"] = system
        return out

    call = {**kwargs, "messages": chat.messages, "model": _messages_model(kwargs)}
    return ChatView(
        call, write, ANTHROPIC_NATIVE, chat.unread, tuple(lifted(chat.lifted)), chat.seen
    )


def _messages_model(kwargs: Mapping[str, Any]) -> str:
    return anthropic_chat.native_model(str(kwargs.get("model") or ""), target_of(kwargs))


def messages_target(kwargs: Mapping[str, Any]) -> TargetModel:
    """The target of a ``/v1/messages`` call sent natively (see ``native_model``)."""
    return target_of({**kwargs, "model": _messages_model(kwargs)})


def anthropic_answer(response: Any) -> list[dict[str, Any]]:
    """The chat form of an Anthropic Messages answer, as its turn comes back next time.

    Its fingerprints are the ones the next request's copy of the turn is looked up by. A
    streamed answer arrives as LiteLLM assembled it, a ``ModelResponse``: its messages are
    chat messages already.

    Raises:
        InvalidMessageError: The answer's ``content`` cannot be read.
    """
    if isinstance(response, Mapping):
        turn = {"role": "assistant", "content": response.get("content")}
        return [encode_message(decode_assistant_turn(turn, 0))]
    return _chat_messages(response)


def _chat_messages(response: Any) -> list[Any]:
    found = (getattr(choice, "message", None) for choice in getattr(response, "choices", ()))
    return [message for message in found if message is not None]


def responses_view(kwargs: Mapping[str, Any], recall: Recall | None = None) -> ChatView:
    """The ``/v1/responses`` call ``kwargs`` as chat messages.

    An item that cannot be read is kept as it came (``ChatView.unread``). With a
    ``recall``, the call's items are aligned with the conversation they continue, and
    the chat form of each message (``quick_items``) and the items of each message a
    rule wrote are remembered (``_recall``): a request that continues a conversation
    reads and writes only its new messages anew.

    Raises:
        ConfigurationError: ``input`` or ``instructions`` is of no form the shape has.
    """
    items = kwargs["input"]
    seen: Sequence[Seen] | None = None
    matched = 0
    if recall is not None and isinstance(items, list) and items:
        aligned = recall.align("responses input", items)
        if aligned.seen is not None:
            recall.keep(aligned, items)
            seen, matched = aligned.seen, aligned.matched
    chat = responses_chat.read_as_chat(items, kwargs.get("instructions"), seen, matched)

    def write(prepared: Prepared) -> dict[str, Any]:
        return {"input": chat.written(prepared.messages, prepared.seen)[0]}

    call = {**kwargs, "messages": chat.messages, "model": _responses_model(kwargs)}
    return ChatView(call, write, OPENAI, chat.unread, seen=chat.seen)


def _responses_model(kwargs: Mapping[str, Any]) -> str:
    return responses_chat.native_model(str(kwargs.get("model") or ""), target_of(kwargs))


def responses_target(kwargs: Mapping[str, Any]) -> TargetModel:
    """The target of a ``/v1/responses`` call sent natively (see ``native_model``)."""
    return target_of({**kwargs, "model": _responses_model(kwargs)})


def responses_answer(response: Any) -> list[Any]:
    """The chat form of a Responses answer's turn (its ``output`` items), as it comes back.

    A streamed answer's closing event carries the answer in ``response``; one LiteLLM
    bridged is a ``ModelResponse``, its messages chat messages already.

    Raises:
        InvalidMessageError: An output item cannot be read.
    """
    response = getattr(response, "response", None) or response
    output = response.get("output") if isinstance(response, Mapping) else None
    output = getattr(response, "output", output)
    if not isinstance(output, list):
        return _chat_messages(response)
    chat = responses_chat.read_as_chat(output).messages
    return [message for message in chat if message.get("role") == "assistant"]


class View(Protocol):
    """Reads a call of a shape as chat messages (with what the engine remembers)."""

    def __call__(self, kwargs: Mapping[str, Any], recall: Recall | None = None) -> ChatView:
        """The call as chat messages."""


@dataclass(frozen=True)
class RequestShape:
    """One request shape hygiene serves: all the integration does differently for it.

    Adding a shape is its package (reader, writer: ``_anthropic/``, ``_responses/``) and
    one entry in :data:`SHAPES`.

    Attributes:
        name: The shape's name (its report's ``shape``; ``chat`` reports none).
        call_types: LiteLLM's call types that carry it.
        conversation: The call's field holding the conversation.
        sent_as_is: Whether LiteLLM sends a call as it is in this shape (its route
            decision, see :mod:`._routes`); a call it bridges is served as the inner call,
            one it cannot tell goes out as it is.
        view: Reads the call as chat messages and writes them back (``None``: chat,
            read as it is).
        target: The deployment a call of the shape reaches (``None``: chat's own).
        answer: The chat forms of its answer's turns, for their fingerprints (``None``:
            chat's ``ModelResponse`` is stamped instead).
        metadata: Where LiteLLM keeps its metadata on the call (``metadata`` is a field
            of Anthropic's and OpenAI's own in their shapes, sent to the provider);
            ``None``: wherever the call has it (``_metadata``).
        answered_inside: Whether LiteLLM bridges a call of the shape to a call of
            another shape (``/v1/messages`` to ``/v1/responses``), whose own hooks see and
            remember the answer (``None``: it never does).
    """

    name: str
    call_types: frozenset[str]
    conversation: str
    sent_as_is: Callable[[Mapping[str, Any]], bool]
    view: View | None = None
    target: Callable[[Mapping[str, Any]], TargetModel] | None = None
    answer: Callable[[Any], list[Any]] | None = None
    metadata: str | None = None
    answered_inside: Callable[[Mapping[str, Any]], bool] | None = None

    @property
    def is_chat(self) -> bool:
        """Whether calls of this shape are chat completions, read as they are."""
        return self.view is None


_STORED_HISTORY = ("previous_response_id", "conversation")
"""Responses parameters that continue a history OpenAI stores."""


def _responses_sent_as_is(kwargs: Mapping[str, Any]) -> bool:
    """Sent as it is, and holding its whole history.

    A call continuing a stored response or conversation holds only the rest of its
    history: its first outputs answer calls hygiene cannot see. OpenAI has it all.
    """
    if responses_route(kwargs) != "responses":
        return False
    extra = kwargs.get("extra_body")
    return not any(
        kwargs.get(name) or (isinstance(extra, Mapping) and extra.get(name))
        for name in _STORED_HISTORY
    )


CHAT = RequestShape(
    "chat", frozenset({"completion", "acompletion"}), "messages", lambda kwargs: True
)
ANTHROPIC_MESSAGES = RequestShape(
    "anthropic_messages",
    frozenset({"anthropic_messages"}),
    "messages",
    lambda kwargs: messages_route(kwargs) == "anthropic",
    anthropic_view,
    messages_target,
    anthropic_answer,
    "litellm_metadata",
    lambda kwargs: messages_route(kwargs) == "responses",
)
RESPONSES = RequestShape(
    "responses",
    # ``responses``: the sync native handler's call type.
    frozenset({"aresponses", "responses"}),
    "input",
    _responses_sent_as_is,
    responses_view,
    responses_target,
    responses_answer,
    "litellm_metadata",
)

SHAPES: tuple[RequestShape, ...] = (CHAT, ANTHROPIC_MESSAGES, RESPONSES)
"""Every request shape hygiene serves: chat completions, ``/v1/messages``,
``/v1/responses``."""

_NAMED = {shape.name: shape for shape in SHAPES}


def shape_named(name: str | None) -> RequestShape:
    """The shape of that name (``None``: chat).

    Raises:
        KeyError: No shape has that name.
    """
    return CHAT if name is None else _NAMED[name]


def call_type_name(call_type: Any) -> str | None:
    """LiteLLM's call type (a ``CallTypes`` member or its value) as its name."""
    value = getattr(call_type, "value", call_type)
    return value if isinstance(value, str) else None


def answered_inside(kwargs: Mapping[str, Any], call_type: str | None) -> bool:
    """Whether LiteLLM bridged the call to one of another shape that sees its answer."""
    shape = _carrying(call_type)
    return shape is not None and shape.answered_inside is not None and shape.answered_inside(kwargs)


def shape_of(kwargs: Mapping[str, Any], call_type: str | None) -> RequestShape | None:
    """The shape hygiene reads a call of ``call_type`` in; ``None``: it leaves the call alone.

    A ``/v1/messages`` call is read in its own shape only when LiteLLM sends it in that
    shape; when LiteLLM bridges it to another call, hygiene acts on that inner call, and
    when the route cannot be told, the call goes out as it is (see :mod:`._routes`).
    """
    shape = _carrying(call_type)
    return shape if shape is not None and shape.sent_as_is(kwargs) else None


def _carrying(call_type: str | None) -> RequestShape | None:
    """The shape LiteLLM's calls of ``call_type`` carry; ``None``: none hygiene serves."""
    for shape in SHAPES:
        if call_type in shape.call_types:
            return shape
    return None
