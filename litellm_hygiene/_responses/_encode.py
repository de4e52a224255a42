"""The neutral model to a Responses request's ``input`` and ``instructions``.

The inverse of :mod:`._decode`: a request read by :func:`from_responses` comes back
exactly. A message from elsewhere (another shape, or written by a rule) is written as
valid Responses items:

- a tool result → ``{"type": "function_call_output", "call_id", "output"}``, its text
  as a string when that is all it holds;
- a :class:`ToolCall` → a ``function_call`` item, with an ``id`` only when it has an
  ``item_id`` (OpenAI accepts a call item without one);
- a :class:`ThinkingContent` that did not come from a reasoning item → a ``reasoning``
  item of its text as one ``summary_text`` (no ``id``), its signature as
  ``encrypted_content``. Written, not dropped: what reasoning a target may take back is
  the rules' decision, made before this writes;
- text → an assistant ``message`` item of ``output_text`` parts; consecutive texts share
  one item, and a text that carries ``TextContent.item`` opens its own;
- an assistant's :class:`OpaqueContent` → its part, written as the item it is (a part
  with no ``type`` goes inside a ``message`` item, where the decoder keeps it whole);
- a user or system message → a ``message`` item of its ``extra`` (no ``type`` there:
  the short form, ``role`` and ``content``); a user message that holds items
  (:func:`~litellm_hygiene._responses._decode.held`) → those items.

What this shape has no place for is not written: an assistant message's metadata
(provenance, usage, ``extra``, ``reasoning_content``, provider fields, cache marker),
a call's chat-shape keys (``extra``, ``function_extra``, ``wire_type``) and a Gemini
signature that did not travel in its id, a text's ``text_signature``, an image's
``image_extra``, a thinking block's cache marker (and its ``extra`` outside a reasoning
item), a result's ``tool_name``, ``is_error`` and ``synthesized``, a message's ``name``.
"""

from __future__ import annotations

from typing import Any, Final

from typing_extensions import assert_never

from .._build import copy_unchecked
from .._content import OpaqueContent, TextContent, ThinkingContent, ToolCall
from .._errors import ConfigurationError
from .._json import copy_dict, copy_json, encode_arguments
from .._messages import (
    AssistantMessage,
    Context,
    Message,
    OpaqueMessage,
    SystemMessage,
    ToolResultMessage,
    UserMessage,
)
from .._openai._encode import _encode_reasoning_item
from .._openai._parts import is_plain_text
from .._openai._tools import encode_tool_call
from .._wire._ids import join_id
from .._wire._keys import PROVIDER_FIELDS
from ._decode import holds_items
from ._parts import encode_content, encode_part

_PSF: Final = PROVIDER_FIELDS

__all__ = ["encode_items", "to_responses", "with_items"]


def _keys(out: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """Add the unknown keys to ``out``, never over a key it already has."""
    for key, value in extra.items():
        if key not in out:
            out[key] = copy_json(value)
    return out


def _reasoning(block: ThinkingContent) -> dict[str, Any]:
    """A reasoning item, written as the chat encoder writes LiteLLM's ``reasoning_items``.

    Only a block that came from a reasoning item has the item's keys in ``extra``; any
    other block's ``extra`` holds keys of another shape's thinking block.
    """
    if block.origin != "reasoning_items":
        block = copy_unchecked(block, extra={})
    out = _encode_reasoning_item(block)
    return {"type": out.pop("type"), **out}


def _function_call(call: ToolCall) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "function_call"}
    if call.item_id is not None:
        out["id"] = call.item_id
    out["call_id"] = join_id(call.id, call.thought_signature, "id" in call.signature_sites)
    out["name"] = call.name
    if call.raw_arguments is not None:
        out["arguments"] = call.raw_arguments
    else:
        out["arguments"] = encode_arguments(call.arguments)
    chat = encode_tool_call(call)
    if _PSF in chat:  # a call's own provider fields are the item's (other keys: chat's)
        out[_PSF] = chat[_PSF]
    return _keys(out, call.item_extra)


def _message_item(text: TextContent) -> tuple[dict[str, Any], list[Any] | None]:
    """The assistant ``message`` item ``text`` opens, and its parts list (to add to)."""
    keys = text.item if text.item is not None else {"type": "message"}
    out = copy_dict(keys)
    out["role"] = "assistant"
    if text.item is not None and text.item_as_string and is_plain_text(text):
        out["content"] = text.text
        return out, None
    parts = [encode_part(text, "assistant")]
    out["content"] = parts
    return out, parts


def _opaque_item(block: OpaqueContent) -> dict[str, Any]:
    part = block.part
    if isinstance(part, dict) and (isinstance(part.get("type"), str) or "role" in part):
        return copy_dict(part)
    return {"type": "message", "role": "assistant", "content": [copy_json(part)]}


def _assistant(message: AssistantMessage) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    parts: list[Any] | None = None  # the parts of the message item a text may join
    for block in message.content:
        if isinstance(block, TextContent):
            if block.item is None and parts is not None:
                parts.append(encode_part(block, "assistant"))
                continue
            item, parts = _message_item(block)
            items.append(item)
            continue
        parts = None
        if isinstance(block, ThinkingContent):
            items.append(_reasoning(block))
        elif isinstance(block, ToolCall):
            items.append(_function_call(block))
        elif isinstance(block, OpaqueContent):
            items.append(_opaque_item(block))
        else:
            assert_never(block)
    return items


def _user(message: UserMessage) -> list[dict[str, Any]]:
    if holds_items(message):
        return [
            copy_json(b.part)
            if isinstance(b, OpaqueContent)
            else {"role": "user", "content": [encode_part(b, "user")]}
            for b in message.content
        ]
    out = copy_dict(message.extra)
    out["role"] = "user"
    out["content"] = encode_content(message.content, message.content_form, "user")
    if message.cache_control is not None:
        out["cache_control"] = copy_dict(message.cache_control)
    return [out]


def _system(message: SystemMessage) -> dict[str, Any]:
    out = copy_dict(message.extra)
    out["role"] = message.role
    out["content"] = encode_content(message.content, message.content_form, "system")
    if message.cache_control is not None:
        out["cache_control"] = copy_dict(message.cache_control)
    return out


def _result(message: ToolResultMessage) -> dict[str, Any]:
    out: dict[str, Any] = {
        "type": "function_call_output",
        "call_id": join_id(
            message.tool_call_id, message.thought_signature, message.signature_in_id
        ),
        "output": encode_content(message.content, message.content_form, "user"),
    }
    if message.cache_control is not None:
        out["cache_control"] = copy_dict(message.cache_control)
    return _keys(out, message.extra)


def encode_items(message: Message) -> list[dict[str, Any]]:
    """Write one neutral message as the Responses items it stands for."""
    if isinstance(message, AssistantMessage):
        return _assistant(message)
    if isinstance(message, UserMessage):
        return _user(message)
    if isinstance(message, ToolResultMessage):
        return [_result(message)]
    if isinstance(message, SystemMessage):
        return [_system(message)]
    if isinstance(message, OpaqueMessage):
        return [copy_json(message.raw)]  # an item no reader could read, as it came
    assert_never(message)


def _instructions(context: Context) -> Any:
    if context.instruction_items is None:
        return context.system_prompt
    if context.system_prompt is not None:
        raise ConfigurationError(
            "a context with instruction_items has no place for a system_prompt on this shape"
        )
    return copy_json(context.instruction_items)


def to_responses(context: Context) -> tuple[str | list[dict[str, Any]], Any]:
    """``(input, instructions)`` of a Responses request for ``context``.

    ``input`` is a bare string when ``context.input_as_string`` is set and the context
    is still one user message in the short form with string content; a list of items
    otherwise. ``instructions`` is ``context.instruction_items``, else
    ``context.system_prompt`` (``None`` when neither is set).

    Raises:
        ConfigurationError: The context has both ``instruction_items`` and a
            ``system_prompt``.
    """
    return with_items(context, [item for m in context.messages for item in encode_items(m)])


def with_items(
    context: Context, items: list[dict[str, Any]]
) -> tuple[str | list[dict[str, Any]], Any]:
    """:func:`to_responses` of ``context`` whose messages are written as ``items``.

    For a writer that has some messages' items already (the caller's own, unchanged).
    """
    instructions = _instructions(context)
    if context.input_as_string and len(items) == 1:
        only = items[0]
        if only.keys() == {"role", "content"} and only["role"] == "user":
            if isinstance(only["content"], str):
                return only["content"], instructions
    return items, instructions
