"""OpenAI Responses requests (``input`` and ``instructions``) to the neutral model.

What Codex and every ``/v1/responses`` client sends: ``input``, a string or a list of
items, and ``instructions`` apart. Every key the neutral model interprets is lifted into
a typed field; every other key, and every item the model does not interpret, is kept
verbatim, so :func:`~litellm_hygiene._responses._encode.to_responses` rebuilds the
request exactly. Where each item goes:

- ``message`` items (also the short form without ``type``, ``{"role", "content"}``):
  ``user`` → :class:`UserMessage`, ``system``/``developer`` → :class:`SystemMessage`,
  a ``cache_control`` object in ``cache_control``, the item's other keys (``type`` when
  given, ``id``, ``status``...) in the message's ``extra``. ``assistant`` → text blocks
  of an assistant turn (below).
- Consecutive assistant-side items make one :class:`AssistantMessage`, one or more
  blocks per item, in item order:

  - ``reasoning`` → :class:`ThinkingContent` (origin ``reasoning_items``) read as the
    chat decoder reads LiteLLM's ``reasoning_items``: the summary texts, a blank line
    apart, as the text; ``encrypted_content`` as the signature; every other key
    (``id``, ``summary``, ``content``, ``status``) in ``extra``. ``content``'s
    ``reasoning_text`` is kept there, not read as the text: the chat form the rules
    read writes an item's summary from the text, so the two shapes must agree on it;
  - an assistant ``message`` whose content is a string or ``output_text`` parts → one
    :class:`TextContent` per part, the first carrying the item's other keys in
    ``TextContent.item`` (a string content: ``item_as_string``); any other content
    (a ``refusal``, no parts) → the whole item as :class:`OpaqueContent`;
  - ``function_call`` → :class:`ToolCall`: ``call_id`` is the ``id`` (a Gemini
    signature LiteLLM keeps in it, ``<id>__thought__<signature>``, split as the chat
    decoder splits it), the item's ``id`` is ``item_id``, ``arguments`` decoded best
    effort beside the exact text, ``provider_specific_fields`` read as the chat decoder
    reads a call's (a signature in it lifted), other keys in ``item_extra``;
  - every other call (``custom_tool_call``, ``web_search_call``, ``computer_call``,
    ``mcp_call``... any type ending in ``_call``), ``mcp_list_tools`` and
    ``mcp_approval_request`` → the item as :class:`OpaqueContent`.

- ``function_call_output`` → :class:`ToolResultMessage` (``call_id`` split likewise;
  ``output`` a string or parts; ``id``, ``status`` and other keys in ``extra``).
- The outputs of the calls the model does not interpret (``custom_tool_call_output``,
  ``computer_call_output``... any type ending in ``_output``, ``mcp_approval_response``)
  → a :class:`UserMessage` holding the item as its one :class:`OpaqueContent`, the
  item's ``type`` in the message's ``extra``. Not a :class:`ToolResultMessage`: its call
  is opaque, and the rules drop a result whose call they cannot see.
- ``item_reference`` and item types not named above sit on the side of the item before
  them: inside an assistant turn they join it (as :class:`OpaqueContent`); elsewhere they
  are held by a :class:`UserMessage` as the outputs above are.
- ``input`` as a string → one :class:`UserMessage` with string content, and
  ``Context.input_as_string``.
- ``instructions`` as a string → ``Context.system_prompt``; as a list →
  ``Context.instruction_items``, verbatim. Never a message: a ``developer`` item stays
  a :class:`SystemMessage` at its place.

An item may be a dict or a pydantic object (read by its ``model_dump()``; written back as
that dict). Input that cannot be read raises :class:`InvalidMessageError` naming the
item's index in ``input`` and the field; given a list to note such errors in, the reader
keeps an unreadable item instead, as it came, as an :class:`OpaqueMessage` at its place
(an assistant turn open before it closes there).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from .._build import construct_unchecked, copy_unchecked
from .._content import OpaqueContent, TextContent
from .._errors import ConfigurationError, InvalidMessageError
from .._json import copy_dict, copy_json
from .._messages import (
    AssistantMessage,
    Context,
    Message,
    OpaqueMessage,
    SystemMessage,
    ToolResultMessage,
    UserMessage,
)
from .._openai._decode import _decode_reasoning_item, as_message_dict
from .._openai._tools import decode_tool_call
from .._wire._ids import result_fields
from .._wire._keys import PROVIDER_FIELDS
from ._parts import ABSENT, Side, decode_content, rest

__all__ = ["ASSISTANT_ITEMS", "RESULT_ITEMS", "from_responses", "held", "holds_items"]

_PSF: Final = PROVIDER_FIELDS

ASSISTANT_ITEMS: Final = frozenset({"mcp_list_tools", "mcp_approval_request"})
"""Item types the model produces that do not end in ``_call``."""

RESULT_ITEMS: Final = frozenset({"mcp_approval_response"})
"""Item types the client answers with that do not end in ``_output``."""

_ROLES: Final = ("assistant", "developer", "system", "user")
_CONTENT: Final = ("role", "content")

_Blocks = list[Any]
"""Blocks of the assistant turn being read."""


def _kind(value: Any) -> str:
    return type(value).__name__


def _id_of(item: dict[str, Any], index: int) -> str:
    """The item's ``call_id``, as given (a Gemini signature in it included)."""
    raw = item.get("call_id", ABSENT)
    if raw is ABSENT:
        raise InvalidMessageError(index, "call_id", "missing: the item must name its call")
    if not isinstance(raw, str):
        raise InvalidMessageError(index, "call_id", f"expected a string, got {_kind(raw)}")
    return raw


def _message(item: dict[str, Any], index: int) -> Message | _Blocks:
    role = item.get("role")
    if role == "assistant":
        return _assistant_message(item, index)
    if role not in _ROLES:
        # The role's value is the client's and reaches fail_closed errors: never echoed.
        raise InvalidMessageError(index, "role", f"unknown role; expected one of {list(_ROLES)}")
    side: Side = "user" if role == "user" else "system"
    blocks, form = decode_content(item.get("content", ABSENT), side, index, "content")
    cache = item.get("cache_control")
    lifted = ("role", "content", "cache_control") if isinstance(cache, dict) else _CONTENT
    fields: dict[str, Any] = {
        "content": blocks,
        "content_form": form,
        "cache_control": copy_dict(cache) if isinstance(cache, dict) else None,
        "extra": rest(item, lifted),
    }
    if side == "user":
        return construct_unchecked(UserMessage, **fields)
    return construct_unchecked(SystemMessage, role=role, **fields)


def _assistant_message(item: dict[str, Any], index: int) -> _Blocks:
    """An assistant ``message`` item: its text parts, or the whole item kept opaque."""
    blocks, form = decode_content(item.get("content", ABSENT), "assistant", index, "content")
    texts = [b for b in blocks if isinstance(b, TextContent)]
    if not texts or len(texts) != len(blocks):
        return [construct_unchecked(OpaqueContent, part=copy_json(item))]
    first = copy_unchecked(texts[0], item=rest(item, _CONTENT), item_as_string=form == "string")
    return [first, *texts[1:]]


def _reasoning(item: dict[str, Any], index: int) -> _Blocks:
    if "summary" not in item:  # required by OpenAI, and written by the chat encoder
        raise InvalidMessageError(index, "summary", "missing")
    block = _decode_reasoning_item(item)
    if block is None:
        raise InvalidMessageError(
            index, "summary", "expected a list of summary parts, each with a 'text' string"
        )
    return [block]


def _function_call(item: dict[str, Any], index: int) -> _Blocks:
    raw_id = item.get("call_id")
    if not isinstance(raw_id, str):
        raise InvalidMessageError(index, "call_id", "expected the call's id")
    name = item.get("name")
    if not isinstance(name, str):
        raise InvalidMessageError(index, "name", "expected the tool's name")
    text = item.get("arguments", ABSENT)
    if text is ABSENT:
        raise InvalidMessageError(index, "arguments", "missing")
    if not isinstance(text, str):
        raise InvalidMessageError(index, "arguments", f"expected a JSON string, got {_kind(text)}")
    # Read as the chat decoder reads a call, so a signature LiteLLM left in the item's
    # ``provider_specific_fields`` (after a Gemini session) is the rules' to judge.
    chat: dict[str, Any] = {
        "id": raw_id,
        "type": "function",
        "function": {"name": name, "arguments": text},
    }
    lifted: tuple[str, ...] = ("type", "call_id", "name", "arguments")
    if _PSF in item:
        chat[_PSF] = item[_PSF]
        lifted += (_PSF,)
    item_id = item.get("id")
    if isinstance(item_id, str):
        lifted += ("id",)
    call = decode_tool_call(chat, index, "")
    return [
        copy_unchecked(
            call,
            item_id=item_id if isinstance(item_id, str) else None,
            item_extra=rest(item, lifted),
        )
    ]


def _function_call_output(item: dict[str, Any], index: int) -> ToolResultMessage:
    raw_id = _id_of(item, index)
    blocks, form = decode_content(item.get("output", ABSENT), "user", index, "output")
    cache = item.get("cache_control")
    lifted: tuple[str, ...] = ("type", "call_id", "output")
    if isinstance(cache, dict):
        lifted += ("cache_control",)
    return construct_unchecked(
        ToolResultMessage,
        **result_fields(raw_id),
        content=blocks,
        content_form=form,
        cache_control=copy_dict(cache) if isinstance(cache, dict) else None,
        extra=rest(item, lifted),
    )


def held(item: OpaqueContent) -> UserMessage:
    """A user message holding an item the model does not interpret, as its one block.

    Its ``extra`` is ``{"type": <the item's type>}``, which :func:`holds_items` reads:
    the encoder then writes the block as the item it is, not as a part of a message's
    content. A message's unknown keys survive its chat form, so this does too.
    """
    return construct_unchecked(
        UserMessage, content=(item,), content_form="list", extra={"type": item.part["type"]}
    )


def holds_items(message: UserMessage) -> bool:
    """Whether ``message`` holds items (see :func:`held`) rather than a message's content."""
    kind = message.extra.get("type")
    return isinstance(kind, str) and kind != "message"


_READERS: Final[dict[str, Callable[[dict[str, Any], int], Message | _Blocks]]] = {
    "message": _message,
    "reasoning": _reasoning,
    "function_call": _function_call,
    "function_call_output": _function_call_output,
}


def _read_item(item: dict[str, Any], index: int) -> Message | _Blocks | OpaqueContent:
    """One item: a message of its own, assistant-side blocks, or an item of either side."""
    kind = item.get("type")
    if kind is None and "role" in item:
        return _message(item, index)
    if not isinstance(kind, str):
        raise InvalidMessageError(index, "type", "expected the item's type string")
    if kind == "message" and "role" not in item:
        raise InvalidMessageError(index, "role", "missing")
    reader = _READERS.get(kind)
    if reader is not None:
        return reader(item, index)
    opaque = construct_unchecked(OpaqueContent, part=copy_json(item))
    if kind.endswith("_call") or kind in ASSISTANT_ITEMS:
        return [opaque]
    if kind.endswith("_output") or kind in RESULT_ITEMS:
        return held(opaque)
    return opaque


def _turn(blocks: _Blocks) -> AssistantMessage:
    """The assistant message of consecutive assistant-side items.

    Its ``content_form`` only shapes the chat form the rules read: ``null`` beside
    calls and reasoning alone (as LiteLLM writes a turn of calls), ``list`` otherwise.
    """
    parts = any(isinstance(b, TextContent) or isinstance(b, OpaqueContent) for b in blocks)
    return construct_unchecked(
        AssistantMessage, content=tuple(blocks), content_form="list" if parts else "null"
    )


def _kept_item(
    raw: Any, index: int, unread: list[InvalidMessageError] | None
) -> Message | _Blocks | OpaqueContent:
    """One item read, or kept as it came when it cannot be (noted in ``unread``)."""
    if unread is None:
        return _read_item(as_message_dict(raw, index), index)
    try:
        return _read_item(as_message_dict(raw, index), index)
    except InvalidMessageError as err:
        unread.append(err)
        return construct_unchecked(
            OpaqueMessage, raw=raw, shape="responses", field=err.field, reason=err.reason
        )


def _read_items(
    items: Sequence[Any], unread: list[InvalidMessageError] | None = None
) -> tuple[Message, ...]:
    out: list[Message] = []
    turn: _Blocks = []
    for index, raw in enumerate(items):
        read = _kept_item(raw, index, unread)
        if isinstance(read, list):
            turn += read
        elif isinstance(read, OpaqueContent):
            if turn:
                turn.append(read)
            else:
                out.append(held(read))
        else:
            if turn:
                out.append(_turn(turn))
                turn = []
            out.append(read)
    if turn:
        out.append(_turn(turn))
    return tuple(out)


def from_responses(
    input: str | Sequence[Any],
    instructions: Any = None,
    unread: list[InvalidMessageError] | None = None,
) -> Context:
    """Decode a Responses request's ``input`` and ``instructions``.

    Args:
        input: A string, or a list of input items (a tuple is read as a list, and
            written back as one).
        instructions: A string, a list of input items, or ``None`` (not given).
        unread: Where to note the items that cannot be read, which are then kept as
            they came; without it, the first such error is raised.

    Returns:
        The conversation; ``to_responses`` of it gives ``(input, instructions)`` back.

    Raises:
        InvalidMessageError: An item cannot be read (``unread`` not given; names its
            index and field).
        ConfigurationError: ``input`` or ``instructions`` is of no form this shape has.
    """
    if isinstance(input, str):
        text = construct_unchecked(TextContent, text=input)
        messages: tuple[Message, ...] = (
            construct_unchecked(UserMessage, content=(text,), content_form="string"),
        )
    elif isinstance(input, list) or isinstance(input, tuple):
        messages = _read_items(input, unread)
    else:
        raise ConfigurationError(f"input must be a string or a list, got {_kind(input)}")
    fields: dict[str, Any] = {"messages": messages, "input_as_string": isinstance(input, str)}
    if isinstance(instructions, str):
        fields["system_prompt"] = instructions
    elif isinstance(instructions, list):
        fields["instruction_items"] = copy_json(instructions)
    elif instructions is not None:
        raise ConfigurationError(
            f"instructions must be a string, a list or None, got {_kind(instructions)}"
        )
    return construct_unchecked(Context, **fields)
