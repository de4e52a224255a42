"""The neutral model back to OpenAI-shaped messages (as LiteLLM accepts them).

The inverse of :mod:`._decode`: for any input the decoder read,
``to_openai(from_openai(messages)) == messages``. Output never aliases the model's own
containers, so LiteLLM may change the outgoing request without touching stored history.
"""

from __future__ import annotations

from typing import Any

from typing_extensions import assert_never

from .._content import OpaqueContent, TextContent, ThinkingContent, ToolCall
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
from .._wire._keys import OPAQUE_ROLE, PROVIDER_FIELDS, STAMP_KEY, THOUGHT_SIGNATURES
from ._parts import ABSENT, encode_content, encode_thinking_block
from ._tools import encode_function_call, encode_tool_call

__all__ = ["encode_message", "to_openai", "tools_to_openai"]


def _finish(out: dict[str, Any], message: Any, content: Any) -> dict[str, Any]:
    """Write content, ``name`` and ``cache_control`` shared by every message."""
    if content is not ABSENT:
        out["content"] = content
    # A tool result's name is its ``tool_name``, written by its encoder.
    if not isinstance(message, ToolResultMessage) and message.name is not None:
        out["name"] = message.name
    if message.cache_control is not None:
        out["cache_control"] = copy_json(message.cache_control)
    return out


def _encode_system(message: SystemMessage) -> dict[str, Any]:
    out = copy_dict(message.extra)
    out["role"] = message.role
    return _finish(out, message, encode_content(message.content, message.content_form))


def _encode_user(message: UserMessage) -> dict[str, Any]:
    out = copy_dict(message.extra)
    out["role"] = "user"
    return _finish(out, message, encode_content(message.content, message.content_form))


def _encode_tool_result(message: ToolResultMessage) -> dict[str, Any]:
    out = copy_dict(message.extra)
    out["role"] = message.role
    if message.role == "tool" or message.tool_call_id:
        out["tool_call_id"] = join_id(
            message.tool_call_id, message.thought_signature, message.signature_in_id
        )
    if message.tool_name is not None:
        out["name"] = message.tool_name
    return _finish(out, message, encode_content(message.content, message.content_form))


def _encode_reasoning_item(block: ThinkingContent) -> dict[str, Any]:
    out = copy_dict(block.extra)
    out["type"] = "reasoning"
    summary = out.get("summary")
    texts = [s.get("text") for s in summary] if isinstance(summary, list) else None
    if texts is None or "\n\n".join(t for t in texts if isinstance(t, str)) != block.thinking:
        out["summary"] = (
            [{"type": "summary_text", "text": block.thinking}] if block.thinking else []
        )
    if block.signature is not None:
        out["encrypted_content"] = block.signature
    return out


def _split_assistant(message: AssistantMessage) -> dict[str, list[Any]]:
    """Sort an assistant's blocks into the wire fields they travel in."""
    fields: dict[str, list[Any]] = {
        "thinking_blocks": [],
        "reasoning_items": [],
        "reasoning_content": [],
        "content": [],
        "tool_calls": [],
        "function_call": [],
    }
    for block in message.content:
        if isinstance(block, ThinkingContent):
            fields[block.origin if block.origin != "content" else "content"].append(block)
        elif isinstance(block, ToolCall):
            legacy = block.origin == "function_call" and not block.id
            fields["function_call" if legacy else "tool_calls"].append(block)
        elif isinstance(block, TextContent) or isinstance(block, OpaqueContent):
            fields["content"].append(block)
        else:
            assert_never(block)
    return fields


def _provider_fields(message: AssistantMessage) -> Any:
    """The turn's ``provider_specific_fields``, its text signatures written back in.

    A turn built by hand (not decoded) may sign its text with no other provider fields:
    the signatures still travel, or the model that made them would lose them and the
    rules, which read the wire form, would never see them to drop for another model.
    """
    psf = message.provider_specific_fields
    signatures = [
        b.text_signature
        for b in message.content
        if isinstance(b, TextContent) and b.text_signature is not None
    ]
    if psf is None and not signatures:
        return ABSENT
    out = copy_json(psf) if psf is not None else {}
    if signatures:
        out[THOUGHT_SIGNATURES] = signatures
    return out


def _encode_assistant(message: AssistantMessage) -> dict[str, Any]:
    out = copy_dict(message.extra)
    out["role"] = "assistant"
    fields = _split_assistant(message)
    if fields["thinking_blocks"]:
        out["thinking_blocks"] = [encode_thinking_block(b) for b in fields["thinking_blocks"]]
    if fields["reasoning_items"]:
        out["reasoning_items"] = [_encode_reasoning_item(b) for b in fields["reasoning_items"]]
    if fields["reasoning_content"]:
        # One block, as decoded; several only when turns were merged: a blank line apart.
        out["reasoning_content"] = "\n\n".join(b.thinking for b in fields["reasoning_content"])
    elif message.reasoning_content is not None:
        out["reasoning_content"] = message.reasoning_content
    if fields["tool_calls"]:
        out["tool_calls"] = [encode_tool_call(c) for c in fields["tool_calls"]]
    if fields["function_call"]:
        out["function_call"] = encode_function_call(fields["function_call"][0])
    psf = _provider_fields(message)
    if psf is not ABSENT:
        out[PROVIDER_FIELDS] = psf
    if message.stamped:
        out[STAMP_KEY] = {"provider": message.provider, "api": message.api, "model": message.model}
    return _finish(out, message, encode_content(fields["content"], message.content_form))


def encode_message(message: Message) -> dict[str, Any]:
    """Write one neutral message as an OpenAI-shaped dict."""
    if isinstance(message, AssistantMessage):
        return _encode_assistant(message)
    if isinstance(message, UserMessage):
        return _encode_user(message)
    if isinstance(message, ToolResultMessage):
        return _encode_tool_result(message)
    if isinstance(message, SystemMessage):
        return _encode_system(message)
    if isinstance(message, OpaqueMessage):
        return opaque_chat(message)
    assert_never(message)


def opaque_chat(message: OpaqueMessage) -> dict[str, Any]:
    """The chat form of a message no reader could read.

    A chat message the caller sent is itself (a copy); a message of another shape, or
    one that is no object, is ``{"role": OPAQUE_ROLE}``, which no reader knows either:
    the rules keep it as it is, and its shape's writer puts the caller's message back.
    """
    raw = message.raw
    if message.shape == "chat" and type(raw) is dict:
        return copy_dict(raw)
    return {"role": OPAQUE_ROLE}


def to_openai(context: Context) -> list[dict[str, Any]]:
    """Convert a neutral :class:`Context` into OpenAI-shaped message dicts.

    The system prompt, when set, becomes a leading ``system`` message. Tools are written
    by :func:`tools_to_openai`.
    """
    out = [encode_message(m) for m in context.messages]
    if context.system_prompt is not None:
        out.insert(0, {"role": "system", "content": context.system_prompt})
    return out


def tools_to_openai(context: Context) -> list[dict[str, Any]]:
    """Write the context's tool definitions as an OpenAI ``tools`` list."""
    tools: list[dict[str, Any]] = []
    for tool in context.tools:
        if tool.wire is not None:
            tools.append(copy_json(tool.wire))
            continue
        function: dict[str, Any] = {"name": tool.name}
        if tool.description is not None:
            function["description"] = tool.description
        if tool.parameters is not None:
            function["parameters"] = copy_json(tool.parameters)
        tools.append({"type": "function", "function": function})
    return tools
