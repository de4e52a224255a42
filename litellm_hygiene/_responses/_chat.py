"""A Responses request as chat messages, for the rules, and back.

As for Anthropic Messages (``_anthropic._chat``): the request is read into the neutral
model, each neutral message handed to the rules in its chat form, and what the rules
send back written as Responses items again. A chat message the rules leave as it is
comes back as the very neutral message it was read as (item ids, item boundaries and
all). ``instructions`` is not a message the rules read: it is written back as it came.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from .._content import ThinkingContent
from .._errors import InvalidMessageError
from .._json import copy_dict
from .._messages import AssistantMessage, Context, Message
from .._openai._decode import decode_message
from .._openai._encode import encode_message
from .._recall import Seen, build, patchable
from .._target import TargetModel
from ._decode import from_responses
from ._encode import encode_items, with_items
from ._quick import quick_items

__all__ = ["ResponsesChat", "native_model", "read_as_chat"]


@dataclass(frozen=True)
class ResponsesChat:
    """A Responses request's conversation as chat messages.

    Attributes:
        messages: Each neutral message's chat form.
        read: Each chat message's neutral message, by the chat message's identity
            (a request read the long way).
        spans: The items each chat message was written from, by its identity (a
            request read the quick way: decoded only if written back); left out where
            :attr:`seen` finds them (:attr:`roots`), worked out from :attr:`order` when
            a message to write has no ``Seen``.
        context: The request as read, its messages left out when read the quick way
            (its ``instructions`` and ``input`` form).
        items: The request's ``input``.
        unread: Why each item that could not be read could not; each is kept as it
            came, at its place (its chat form ``{"role": OPAQUE_ROLE}``).
        seen: What a recall remembers of each chat message (``_recall``): the ``Seen``
            of the last item it was read from; ``None`` without a recall, or for a
            request read the long way.
        roots: The items each of :attr:`seen` was read from, by ``Seen`` (by identity).
        order: The items each chat message was written from, in order (read the quick
            way).
    """

    messages: list[dict[str, Any]]
    read: dict[int, Message]
    spans: dict[int, tuple[int, int]]
    context: Context
    items: Any
    unread: tuple[InvalidMessageError, ...] = ()
    seen: Sequence[Seen] | None = None
    roots: dict[Seen, tuple[int, int]] = field(default_factory=dict)
    order: Sequence[Any] = ()

    def written(
        self, messages: Sequence[Any], seen: Sequence[Seen | None] | None = None
    ) -> tuple[str | list[dict[str, Any]], Any]:
        """``(input, instructions)`` for the chat messages to send.

        A message read the quick way and left as it was goes back as the items it was
        read from, the caller's own (what decoding and writing them would give again).
        ``seen``: what a recall remembers of each of ``messages`` (``_recall``; ``None``
        for a message it holds nothing for): the items of a message a rule wrote are
        worked out once for every request sending it (:meth:`_remembered`).
        """
        items: list[dict[str, Any]] = []
        # Typed locals: compiled, a list is read directly, not through the protocol.
        # Only a list is read the quick way (spans): other input gives no items of its own.
        given: list[Any] = self.items if isinstance(self.items, list) else []
        known_of: list[Seen | None] | None = (
            None if seen is None else seen if isinstance(seen, list) else list(seen)
        )
        # Read with a recall, a message with the Seen of a chat message read is that chat
        # message (no rule's slot carries the Seen of a caller's message): its items are
        # found by its Seen. (Read without one, the chat messages may have Seen of their
        # own, from their alignment as chat messages: they are found by identity.)
        roots = self.roots
        by_seen = known_of if self.seen is not None else None
        spans = None if by_seen is not None else self._spans()
        start = stop = 0  # the caller's items read last, not yet taken: one slice for a run
        for index, message in enumerate(messages):
            key = id(message)
            if by_seen is not None and (found := by_seen[index]) is not None:
                span = roots.get(found)
            else:
                if spans is None:
                    spans = self._spans()
                span = spans.get(key)
            if span is not None:
                if span[0] != stop:
                    items.extend(given[start:stop])
                    start = span[0]
                stop = span[1]
                continue
            items.extend(given[start:stop])
            start = stop = 0
            known = None if known_of is None or key in self.read else known_of[index]
            if known is None:
                items.extend(encode_items(self._neutral(message, index)))
            else:
                items.extend(self._remembered(message, index, known, given))
        items.extend(given[start:stop])
        return with_items(self.context, items)

    def _spans(self) -> dict[int, tuple[int, int]]:
        """:attr:`spans`, where :func:`read_as_chat` left it to the ``Seen``."""
        if self.spans or not self.order:
            return self.spans
        return {id(raw): span for raw, span in zip(self.messages, self.order, strict=True)}

    def _remembered(
        self, message: Any, index: int, known: Seen, items: list[Any]
    ) -> list[dict[str, Any]]:
        """The items of a message a rule wrote, worked out once for every request sending it.

        A message read the quick way is written from the request's own items it was read
        from, as a patch (``_recall.patch``): the items written take the caller's, where
        equal, and copy the rest. Else the items are remembered whole, and copied.
        ``items``: the request's ``input``, a list.
        """
        span = self._root(known)
        if span is not None:
            recipes: tuple[tuple[int, Any], ...] | None = known.outcome(_PATCHED)
            if recipes is not None:
                first: int = span[0]
                return [
                    build(recipe, items[first + at] if at >= 0 else None) for at, recipe in recipes
                ]
            given = items[span[0] : span[1]]
            written = encode_items(self._neutral(message, index))
            made = _patched(written, given)
            if made is not None:
                known.remember(_PATCHED, made[0], made[1])
            return written  # a patch holds its own copies: none of these is the recall's
        kept = known.outcome(_ITEMS)
        if kept is not None:
            return [copy_dict(item) for item in kept]
        written = encode_items(self._neutral(message, index))
        known.remember_copy(_ITEMS, written)
        # The items handed on are the request's own: what they share with the message
        # (its strings aside) may be the recall's, which nothing it hands on shares.
        return [copy_dict(item) for item in written]

    def _root(self, known: Seen) -> tuple[int, int] | None:
        """The items of this request the message ``known`` is remembered for was read from.

        A rule's edit of a message has a ``Seen`` of its own, kept with the message's
        (``Seen.child``): followed back to the one this request read its items into.
        """
        roots = self.roots
        at: Seen | None = known
        while at is not None:
            span = roots.get(at)
            if span is not None:
                return span
            at = at.owner
        return None

    def _neutral(self, message: Any, index: int) -> Message:
        found = self.read.get(id(message))
        if found is not None:
            return found
        return _reasoning_before_each(decode_message(message, index))


_ITEMS: Final = "responses items"
"""What a recall remembers of a chat message a rule wrote: its Responses items."""
_PATCHED: Final = "responses items patched"
"""... or, for a message read the quick way, how to write them from the items it was
read from: for each item, the item it patches (``-1``: none) and the patch."""


def _patched(
    written: Sequence[dict[str, Any]], given: Sequence[Any]
) -> tuple[tuple[tuple[int, Any], ...], int] | None:
    """How to write ``written`` from the request's ``given`` items (``None``: not JSON).

    Each item written patches the item read of its type at its place, or else the first
    of its type: a turn a rule changed is written with its items in the order read.
    """
    recipes: list[tuple[int, Any]] = []
    used: set[int] = set()
    total = 64
    for number, item in enumerate(written):
        at = _counterpart(item, given, number, used)
        made = patchable(item, given[at] if at >= 0 else None, equal=True)
        if made is None:
            return None
        used.add(at)
        recipes.append((at, made[0]))
        total += made[1] + 32
    return tuple(recipes), total


def _counterpart(item: dict[str, Any], given: Sequence[Any], number: int, used: set[int]) -> int:
    """The item read that ``item`` (the ``number``-th written) patches; ``-1``: none.

    Each item read is patched by one item written at most: none is handed on twice.
    """
    kind = item.get("type")
    if number < len(given) and number not in used and _kind(given[number]) == kind:
        return number
    for at, other in enumerate(given):
        if at not in used and _kind(other) == kind:
            return at
    return -1


def _kind(item: Any) -> Any:
    return item.get("type", None) if type(item) is dict else _NO_KIND


_NO_KIND: Final[Any] = object()


def _reasoning_before_each(message: Message) -> Message:
    """A turn read back from its chat form, each reasoning item before another item.

    The chat form holds a turn's reasoning apart, so a turn a rule changed comes back
    with all its reasoning first (``[rs, rs, message, call]``), and OpenAI refuses a
    reasoning item not followed by its item. Each goes before the next other item in
    turn, as a model writes them (``[rs, message, rs, call]``).
    """
    if not isinstance(message, AssistantMessage):
        return message
    blocks = message.content
    thinking = [b for b in blocks if isinstance(b, ThinkingContent)]
    others = [b for b in blocks if not isinstance(b, ThinkingContent)]
    if (
        len(thinking) < 2
        or len(others) < len(thinking)
        or blocks[: len(thinking)] != tuple(thinking)
    ):
        return message
    out: list[Any] = []
    for number, block in enumerate(others):
        if number < len(thinking):
            out.append(thinking[number])
        out.append(block)
    return message.model_copy(update={"content": tuple(out)})


def read_as_chat(
    input: Any, instructions: Any = None, seen: Sequence[Seen] | None = None, matched: int = 0
) -> ResponsesChat:
    """Read a Responses request's ``input`` and ``instructions`` as chat messages.

    The plain items Codex sends are written in their chat form straight from the wire
    (``_quick``); a request holding anything else is decoded, and its chat form encoded
    from that. An item that cannot be read is kept as it came (see
    :attr:`ResponsesChat.unread`). ``seen``: what a recall remembers of each item of
    ``input``, its first ``matched`` equal to the ones remembered (see ``quick_items``).

    Raises:
        ConfigurationError: ``input`` or ``instructions`` is of no form the shape has.
    """
    quick = quick_items(input, seen, matched) if isinstance(input, list) else None
    if quick is not None:
        shell = from_responses([], instructions)  # the request's own fields, no message
        # Compiled, each span stays the one object it was made (a typed span is boxed
        # again for each map it goes in).
        pairs: list[tuple[dict[str, Any], Any]] = quick
        chat: list[dict[str, Any]] = []
        spans: dict[int, Any] = {}  # without a recall (with one, ``roots``)
        order: list[Any] = []
        known: list[Seen] = []
        roots: dict[Seen, Any] = {}
        known_of: list[Seen] = (
            [] if seen is None else seen if isinstance(seen, list) else list(seen)
        )
        if seen is None:
            for raw, span in pairs:
                chat.append(raw)
                spans[id(raw)] = span
            return ResponsesChat(chat, {}, spans, shell, input)
        for raw, span in pairs:
            chat.append(raw)
            order.append(span)
            stop: int = span[1]
            last = known_of[stop - 1]
            known.append(last)
            roots[last] = span
        return ResponsesChat(chat, {}, spans, shell, input, (), known, roots, order)
    unread: list[InvalidMessageError] = []
    context = from_responses(input, instructions, unread)
    chat = [encode_message(message) for message in context.messages]
    read = {id(raw): message for raw, message in zip(chat, context.messages, strict=True)}
    return ResponsesChat(chat, read, {}, context, input, tuple(unread))


def native_model(model: str, target: TargetModel) -> str:
    """The model string that resolves to ``target`` as a ``/v1/responses`` call reaches it.

    OpenAI's and Azure's models are reached through chat completions by chat calls; a
    ``/v1/responses`` call LiteLLM sends as it is speaks the Responses protocol
    (``<provider>/responses/<model>``), whose reasoning items and ids are its own.
    """
    if target.provider in ("openai", "azure") and target.api == "openai-chat":
        return f"{target.provider}/responses/{target.model_id}"
    return model
