"""The neutral model to an Anthropic Messages request (``messages`` and ``system``).

The inverse of :mod:`._decode`: a request read by :func:`from_anthropic` comes back
exactly. A message from elsewhere (``joined`` is ``None``: a result hygiene wrote, a
message read back from another shape) is written as Anthropic expects it: consecutive
tool results share one user message, the one right after their calls, and user content
right after results goes in the same message, after them. The system messages before
the first turn make ``system``; a system message after it is written at its place, as
Claude's mid-conversation system messages are (``system_placement`` decides, per target,
which may stay there). A message no reader could read goes back as it came.
"""

from __future__ import annotations

from typing import Any, Final

from typing_extensions import assert_never

from .._content import ImageContent, OpaqueContent, TextContent, ThinkingContent, ToolCall
from .._errors import HygieneError
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
from .._wire._ids import join_id
from ._decode import MESSAGE_KEYS

__all__ = ["encode_assistant_turn", "to_anthropic"]

NO_SYSTEM: Final[Any] = None
"""What :func:`to_anthropic` gives for ``system`` when the context has none."""


def _with(
    out: dict[str, Any], cache: dict[str, Any] | None, extra: dict[str, Any]
) -> dict[str, Any]:
    if cache is not None:
        out["cache_control"] = copy_dict(cache)
    for key, value in extra.items():
        out[key] = copy_json(value)
    return out


def _text(block: TextContent) -> dict[str, Any]:
    return _with({"type": "text", "text": block.text}, block.cache_control, block.extra)


def _image(block: ImageContent) -> dict[str, Any]:
    if block.data is not None:
        source: dict[str, Any] = {
            "type": "base64",
            "media_type": block.mime_type,
            "data": block.data,
        }
    else:
        source = {"type": "url", "url": block.url}
    for key, value in block.image_extra.items():
        source[key] = copy_json(value)
    return _with({"type": "image", "source": source}, block.cache_control, block.extra)


def _thinking(block: ThinkingContent) -> dict[str, Any]:
    if block.redacted:
        out: dict[str, Any] = {"type": "redacted_thinking", "data": block.signature or ""}
    else:
        out = {"type": "thinking", "thinking": block.thinking}
        if block.signature is not None:
            out["signature"] = block.signature
    return _with(out, block.cache_control, block.extra)


def _tool_use(block: ToolCall) -> dict[str, Any]:
    out = {
        "type": "tool_use",
        "id": join_id(block.id, block.thought_signature, "id" in block.signature_sites),
        "name": block.name,
        "input": copy_dict(block.arguments),
    }
    return _with(out, None, block.extra)


def _block(block: Any) -> Any:
    if isinstance(block, TextContent):
        return _text(block)
    if isinstance(block, ImageContent):
        return _image(block)
    if isinstance(block, ThinkingContent):
        return _thinking(block)
    if isinstance(block, ToolCall):
        return _tool_use(block)
    if isinstance(block, OpaqueContent):
        return copy_json(block.part)
    raise HygieneError(f"no Anthropic form for a {type(block).__name__} block")


def _plain(blocks: tuple[Any, ...]) -> str | None:
    """The text of content that a string says in full; ``None`` otherwise."""
    if len(blocks) != 1 or not isinstance(blocks[0], TextContent):
        return None
    block = blocks[0]
    if block.cache_control is not None or block.extra or block.text_signature is not None:
        return None
    return block.text


def _content(blocks: tuple[Any, ...], form: str) -> Any:
    text = _plain(blocks) if form == "string" else None
    return text if text is not None else [_block(b) for b in blocks]


def encode_assistant_turn(message: AssistantMessage) -> dict[str, Any]:
    """One assistant turn as an Anthropic message (its ``role`` and ``content``)."""
    out: dict[str, Any] = {
        "role": "assistant",
        "content": _content(message.content, message.content_form),
    }
    return _with(out, None, message.extra)


def _tool_result(message: ToolResultMessage) -> dict[str, Any]:
    out: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": join_id(
            message.tool_call_id, message.thought_signature, message.signature_in_id
        ),
    }
    if message.content_form != "absent" or message.content:
        out["content"] = _content(message.content, message.content_form)
    if message.is_error and "is_error" not in message.extra:
        out["is_error"] = True
    extra = {k: v for k, v in message.extra.items() if k != MESSAGE_KEYS}
    return _with(out, message.cache_control, extra)


def _leading(messages: tuple[Message, ...]) -> int:
    """How many system messages come before the first turn (they make ``system``)."""
    count = 0
    for message in messages:
        if not isinstance(message, SystemMessage):
            break
        count += 1
    return count


def _inline_system(message: SystemMessage) -> dict[str, Any]:
    out = {"role": "system", "content": _content(message.content, message.content_form)}
    return _with(out, None, message.extra)


def to_anthropic(context: Context) -> tuple[list[dict[str, Any]], Any]:
    """``(messages, system)`` of an Anthropic Messages request for ``context``.

    ``system`` is :data:`NO_SYSTEM` when no system message comes before the first turn;
    several there (a note hygiene's fitting adds) join into one ``system``, in order. A
    system message after the first turn is written at its place.

    Raises:
        HygieneError: A block the shape cannot hold.
    """
    messages = context.messages
    lead = _leading(messages)
    system: Any = NO_SYSTEM
    if lead == 1:
        only = messages[0]
        assert isinstance(only, SystemMessage)
        system = _content(only.content, only.content_form)
    elif lead:
        system = [
            block
            for m in messages[:lead]
            if isinstance(m, SystemMessage)
            for block in _content(m.content, "list")
        ]
    out: list[Any] = []
    previous: Message | None = None
    for message in messages[lead:]:
        if isinstance(message, AssistantMessage):
            out.append(encode_assistant_turn(message))
        elif isinstance(message, ToolResultMessage):
            joins = message.joined or (
                message.joined is None and isinstance(previous, ToolResultMessage)
            )
            _add(out, [_tool_result(message)], joins, message.extra.get(MESSAGE_KEYS, {}))
        elif isinstance(message, UserMessage):
            content = _content(message.content, message.content_form)
            joins = message.joined or (
                message.joined is None and isinstance(previous, ToolResultMessage)
            )
            if joins and _user_last(out):
                _add(out, content if isinstance(content, list) else [_text_of(content)], True, {})
            else:
                out.append(_with({"role": "user", "content": content}, None, message.extra))
        elif isinstance(message, SystemMessage):
            out.append(_inline_system(message))
        elif isinstance(message, OpaqueMessage):
            out.append(_Kept(message.raw))
        else:
            assert_never(message)
        previous = message
    return [item.raw if isinstance(item, _Kept) else item for item in out], system


class _Kept:
    """A message no reader could read, in the output as it came (never joined into)."""

    __slots__ = ("raw",)

    def __init__(self, raw: Any) -> None:
        self.raw = copy_json(raw)


def _user_last(out: list[Any]) -> bool:
    """The last message written is a user message (one hygiene read) to add blocks to."""
    return bool(out) and type(out[-1]) is dict and out[-1]["role"] == "user"


def _text_of(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _add(out: list[Any], blocks: list[Any], joins: bool, keys: dict[str, Any]) -> None:
    """Put ``blocks`` in the user message before, or in a new one."""
    if joins and _user_last(out):
        last = out[-1]
        content = last["content"]
        if isinstance(content, str):
            last["content"] = [_text_of(content), *blocks]
        else:
            content.extend(blocks)
        return
    out.append(_with({"role": "user", "content": blocks}, None, keys))
