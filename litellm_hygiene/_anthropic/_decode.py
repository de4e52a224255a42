"""Anthropic Messages requests (``messages`` and ``system``) to the neutral model.

What Claude Code and every ``/v1/messages`` client sends: ``user`` and ``assistant``
messages whose ``content`` is a string or a list of content blocks, and the system
prompt apart, in ``system``. Each block the neutral model interprets is lifted into a
typed block; every other key, and every block type it does not interpret (documents,
server tool use and its results, search results, anything new), is kept verbatim, so
:func:`~litellm_hygiene._anthropic._encode.to_anthropic` rebuilds the request exactly.

Where the shapes differ:

- One Anthropic user message may hold several ``tool_result`` blocks and text after
  them. The neutral model holds each result as its own :class:`ToolResultMessage`, and
  each message decoded from a wire message after its first is marked ``joined``.
- ``system`` becomes a leading :class:`SystemMessage` (``content_form`` ``string`` or
  ``list``, as given). A ``system`` message inside ``messages`` (Claude's
  mid-conversation system messages, which Claude Code sends) is a :class:`SystemMessage`
  at its place; where the target takes it there is ``system_placement``'s to decide.
- Thinking that opens a turn (every thinking block before any other block) is read as
  LiteLLM's ``thinking_blocks`` are; thinking placed after other blocks stays a
  ``content`` block, at its place. A turn of such thinking and calls only has ``null``
  content in chat, as LiteLLM writes it.
- A tool id in LiteLLM's Gemini form (``<id>__thought__<signature>``) is split as the
  OpenAI decoder splits it, so every shape gives the rules the same calls.

Input that cannot be read raises :class:`InvalidMessageError` naming the message index
(``-1`` for ``system``) and the field; given a list to note such errors in, the reader
keeps an unreadable message instead, as it came, as an :class:`OpaqueMessage` at its
place.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from .._build import construct_unchecked, copy_unchecked
from .._content import ImageContent, OpaqueContent, TextContent, ThinkingContent, ToolCall
from .._errors import InvalidMessageError
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
from .._openai._parts import rest
from .._wire._ids import result_fields, split_id

__all__ = [
    "MESSAGE_KEYS",
    "SYSTEM_INDEX",
    "decode_assistant_turn",
    "decode_system",
    "decode_turn",
    "from_anthropic",
    "read_turn",
]

SYSTEM_INDEX: Final = -1
"""The index :class:`InvalidMessageError` gives ``system``, which is not a message."""

ABSENT: Final[Any] = object()
"""``system`` not given (``None`` is read as not given too)."""

_TEXT_KEYS: Final = ("type", "text", "cache_control")
_IMAGE_KEYS: Final = ("type", "source", "cache_control")
_THINKING_KEYS: Final = ("type", "thinking", "signature", "cache_control")
_REDACTED_KEYS: Final = ("type", "data", "cache_control")
_TOOL_USE_KEYS: Final = ("type", "id", "name", "input")
_RESULT_KEYS: Final = ("type", "tool_use_id", "content", "cache_control")


def _cache(block: dict[str, Any]) -> dict[str, Any] | None:
    value = block.get("cache_control")
    return copy_dict(value) if isinstance(value, dict) else None


def _lifted(block: dict[str, Any], keys: Sequence[str]) -> Sequence[str]:
    """``keys``, without ``cache_control`` when it is not an object (kept verbatim)."""
    if "cache_control" in block and not isinstance(block["cache_control"], dict):
        return [k for k in keys if k != "cache_control"]
    return keys


def _text(block: dict[str, Any], index: int, where: str) -> TextContent:
    text = block.get("text")
    if not isinstance(text, str):
        raise InvalidMessageError(index, f"{where}.text", "expected a string")
    return construct_unchecked(
        TextContent,
        text=text,
        cache_control=_cache(block),
        extra=rest(block, _lifted(block, _TEXT_KEYS)),
    )


def _image(block: dict[str, Any]) -> ImageContent | OpaqueContent:
    """An image by inline data or URL; any other source (a file id) is kept as it is."""
    source = block.get("source")
    if not isinstance(source, dict):
        return construct_unchecked(OpaqueContent, part=copy_json(block))
    kind = source.get("type")
    fields: dict[str, Any]
    lifted: tuple[str, ...]
    if kind == "base64" and isinstance(source.get("data"), str):
        mime = source.get("media_type")
        if not isinstance(mime, str):
            return construct_unchecked(OpaqueContent, part=copy_json(block))
        fields = {"data": source["data"], "mime_type": mime}
        lifted = ("type", "data", "media_type")
    elif kind == "url" and isinstance(source.get("url"), str):
        fields = {"url": source["url"]}
        lifted = ("type", "url")
    else:
        return construct_unchecked(OpaqueContent, part=copy_json(block))
    return construct_unchecked(
        ImageContent,
        **fields,
        cache_control=_cache(block),
        extra=rest(block, _lifted(block, _IMAGE_KEYS)),
        image_extra=rest(source, lifted),
    )


def _user_block(block: Any, index: int, where: str) -> TextContent | ImageContent | OpaqueContent:
    if not isinstance(block, dict):
        raise InvalidMessageError(index, where, f"expected a content block, got {_kind(block)}")
    kind = block.get("type")
    if kind == "text":
        return _text(block, index, where)
    if kind == "image":
        return _image(block)
    return construct_unchecked(OpaqueContent, part=copy_json(block))


def _thinking(block: dict[str, Any], index: int, where: str, leading: bool) -> ThinkingContent:
    origin = "thinking_blocks" if leading else "content"
    if block["type"] == "redacted_thinking":
        data = block.get("data")
        if not isinstance(data, str):
            raise InvalidMessageError(index, f"{where}.data", "expected a string")
        return construct_unchecked(
            ThinkingContent,
            thinking="",
            signature=data,
            redacted=True,
            origin=origin,
            cache_control=_cache(block),
            extra=rest(block, _lifted(block, _REDACTED_KEYS)),
        )
    text = block.get("thinking")
    if not isinstance(text, str):
        raise InvalidMessageError(index, f"{where}.thinking", "expected a string")
    signature = block.get("signature")
    keys = _THINKING_KEYS if isinstance(signature, str) else ("type", "thinking", "cache_control")
    return construct_unchecked(
        ThinkingContent,
        thinking=text,
        signature=signature if isinstance(signature, str) else None,
        origin=origin,
        cache_control=_cache(block),
        extra=rest(block, _lifted(block, keys)),
    )


def _tool_use(block: dict[str, Any], index: int, where: str) -> ToolCall:
    raw_id, name, arguments = block.get("id"), block.get("name"), block.get("input")
    if not isinstance(raw_id, str):
        raise InvalidMessageError(index, f"{where}.id", "expected the call's id")
    if not isinstance(name, str):
        raise InvalidMessageError(index, f"{where}.name", "expected the tool's name")
    if not isinstance(arguments, dict):
        raise InvalidMessageError(index, f"{where}.input", "expected an object")
    call_id, signature = split_id(raw_id)
    return construct_unchecked(
        ToolCall,
        id=call_id,
        name=name,
        arguments=copy_dict(arguments),
        thought_signature=signature,
        signature_sites=("id",) if signature is not None else (),
        extra=rest(block, _TOOL_USE_KEYS),
    )


def _assistant_blocks(content: list[Any], index: int) -> list[Any]:
    blocks: list[Any] = []
    leading = True  # still in the run of thinking that opens the turn
    for position, block in enumerate(content):
        where = f"content[{position}]"
        if not isinstance(block, dict):
            raise InvalidMessageError(index, where, f"expected a content block, got {_kind(block)}")
        kind = block.get("type")
        if kind in ("thinking", "redacted_thinking"):
            blocks.append(_thinking(block, index, where, leading))
            continue
        leading = False
        if kind == "text":
            blocks.append(_text(block, index, where))
        elif kind == "tool_use":
            blocks.append(_tool_use(block, index, where))
        else:
            blocks.append(construct_unchecked(OpaqueContent, part=copy_json(block)))
    return blocks


def _messagerest(msg: dict[str, Any]) -> dict[str, Any]:
    return rest(msg, ("role", "content"))


def _in_content(block: Any) -> bool:
    """A block the chat form holds in ``content`` (not a call, not opening thinking).

    A turn of calls and opening thinking only is, in chat, a turn with ``null`` content
    beside its calls: how such a turn travels there, not an empty one.
    """
    if isinstance(block, ToolCall):
        return False
    return not (isinstance(block, ThinkingContent) and block.origin == "thinking_blocks")


def decode_assistant_turn(msg: dict[str, Any], index: int) -> AssistantMessage:
    """One ``assistant`` message (a request's, or a response's ``role`` and ``content``)."""
    content = msg.get("content", ABSENT)
    fields: dict[str, Any]
    if isinstance(content, str):
        fields = {"content": (construct_unchecked(TextContent, text=content),)}
        form = "string"
    elif isinstance(content, list):
        blocks = tuple(_assistant_blocks(content, index))
        fields = {"content": blocks}
        form = "list" if not blocks or any(map(_in_content, blocks)) else "null"
    else:
        raise InvalidMessageError(index, "content", _content_error(content))
    return construct_unchecked(
        AssistantMessage, **fields, content_form=form, extra=_messagerest(msg)
    )


def _tool_result(block: dict[str, Any], index: int, where: str, joined: bool) -> ToolResultMessage:
    raw_id = block.get("tool_use_id")
    if not isinstance(raw_id, str):
        raise InvalidMessageError(index, f"{where}.tool_use_id", "expected the call's id")
    content = block.get("content", ABSENT)
    blocks: tuple[Any, ...]
    if content is ABSENT:
        blocks, form = (), "absent"
    elif isinstance(content, str):
        blocks, form = (construct_unchecked(TextContent, text=content),), "string"
    elif isinstance(content, list):
        blocks = tuple(
            _user_block(part, index, f"{where}.content[{n}]") for n, part in enumerate(content)
        )
        form = "list"
    else:
        raise InvalidMessageError(index, f"{where}.content", _content_error(content))
    error = block.get("is_error")
    return construct_unchecked(
        ToolResultMessage,
        **result_fields(raw_id),
        content=blocks,
        content_form=form,
        is_error=error is True,
        cache_control=_cache(block),
        extra=rest(block, _lifted(block, _RESULT_KEYS)),
        joined=joined,
    )


def _user_turn(msg: dict[str, Any], index: int) -> list[Message]:
    """One ``user`` message: its tool results, each its own message, and its other blocks.

    The blocks between two results (or before the first, or after the last) make one
    :class:`UserMessage`. The wire message's own keys ride on the first message.
    """
    content = msg.get("content", ABSENT)
    extra = _messagerest(msg)
    if isinstance(content, str):
        text = construct_unchecked(TextContent, text=content)
        return [
            construct_unchecked(
                UserMessage, content=(text,), content_form="string", extra=extra, joined=False
            )
        ]
    if not isinstance(content, list):
        raise InvalidMessageError(index, "content", _content_error(content))
    out: list[Message] = []
    pending: list[Any] = []

    def close() -> None:
        first = not out
        out.append(
            construct_unchecked(
                UserMessage,
                content=tuple(pending),
                content_form="list",
                extra=extra if first else {},
                joined=not first,
            )
        )
        pending.clear()

    for position, block in enumerate(content):
        where = f"content[{position}]"
        if isinstance(block, dict) and block.get("type") == "tool_result":
            if pending:
                close()
            result = _tool_result(block, index, where, joined=bool(out))
            if len(out) == 0 and extra:
                result = result.model_copy(update={"extra": {**result.extra, **_wrap(extra)}})
            out.append(result)
            continue
        pending.append(_user_block(block, index, where))
    if pending or not out:
        close()
    return out


MESSAGE_KEYS: Final = "\0message"
"""Under this key of a result's ``extra``: the keys of the wire message it opened (rare:
a user message is ``role`` and ``content``), kept apart from the block's own keys."""


def _wrap(extra: dict[str, Any]) -> dict[str, Any]:
    return {MESSAGE_KEYS: extra}


def _system(system: Any, index: int = SYSTEM_INDEX, where: str = "system") -> SystemMessage:
    """``system``, or a system message's ``content`` (``index`` its place in ``messages``)."""
    if isinstance(system, str):
        text = construct_unchecked(TextContent, text=system)
        return construct_unchecked(SystemMessage, content=(text,), content_form="string")
    if not isinstance(system, list):
        raise InvalidMessageError(index, where, _content_error(system))
    blocks = [
        _user_block(block, index, f"{where}[{n}]")
        if not (isinstance(block, dict) and block.get("type") == "image")
        else construct_unchecked(OpaqueContent, part=copy_json(block))
        for n, block in enumerate(system)
    ]
    return construct_unchecked(SystemMessage, content=tuple(blocks), content_form="list")


def _system_turn(msg: dict[str, Any], index: int) -> SystemMessage:
    """A ``system`` message inside ``messages``: its content, its other keys in ``extra``."""
    message = _system(msg.get("content", ABSENT), index, "content")
    extra = _messagerest(msg)
    return copy_unchecked(message, extra=extra) if extra else message


def decode_system(system: Any) -> SystemMessage:
    """``system`` (a string or a list of blocks) as the leading system message.

    Raises:
        InvalidMessageError: ``system`` cannot be read (index ``SYSTEM_INDEX``).
    """
    return _system(system)


def decode_turn(msg: Any, index: int) -> list[Message]:
    """One wire message's neutral messages (a user message's results each its own).

    Raises:
        InvalidMessageError: The message cannot be read.
    """
    if not isinstance(msg, dict):
        raise InvalidMessageError(index, "", f"expected a message object, got {_kind(msg)}")
    role = msg.get("role")
    if role == "user":
        return _user_turn(msg, index)
    if role == "assistant":
        return [decode_assistant_turn(msg, index)]
    if role == "system":
        return [_system_turn(msg, index)]
    # The role's value is the client's: never echoed.
    raise InvalidMessageError(index, "role", "expected 'user', 'assistant' or 'system'")


def read_turn(msg: Any, index: int, unread: list[InvalidMessageError]) -> list[Message]:
    """:func:`decode_turn`, or the message kept as it came when it cannot be read.

    The error is noted in ``unread``; the message is an :class:`OpaqueMessage` at its
    place, written back exactly.
    """
    try:
        return decode_turn(msg, index)
    except InvalidMessageError as err:
        unread.append(err)
        return [
            construct_unchecked(
                OpaqueMessage,
                raw=msg,
                shape="anthropic-messages",
                field=err.field,
                reason=err.reason,
            )
        ]


def from_anthropic(
    messages: Sequence[Any],
    system: Any = ABSENT,
    unread: list[InvalidMessageError] | None = None,
) -> Context:
    """Decode an Anthropic Messages request's ``messages`` and ``system``.

    Args:
        messages: The request's ``messages``.
        system: Its ``system``, when given.
        unread: Where to note the messages that cannot be read, which are then kept as
            they came (:func:`read_turn`); without it, the first such error is raised.

    Raises:
        InvalidMessageError: A message (``unread`` not given) or ``system`` cannot be
            read.
    """
    out: list[Message] = []
    if system is not ABSENT and system is not None:
        out.append(_system(system))
    for index, msg in enumerate(messages):
        out += decode_turn(msg, index) if unread is None else read_turn(msg, index, unread)
    return construct_unchecked(Context, messages=tuple(out))


def _kind(value: Any) -> str:
    return type(value).__name__


def _content_error(content: Any) -> str:
    if content is ABSENT:
        return "missing"
    return f"expected a string or a list of content blocks, got {_kind(content)}"
