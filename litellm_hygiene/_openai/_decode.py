"""OpenAI-shaped messages (as LiteLLM accepts them) to the neutral model.

Every key the neutral model interprets is lifted into a typed field; every other key is
copied into the message's ``extra`` verbatim, so :func:`to_openai` rebuilds the input
exactly. Input that cannot be read raises :class:`InvalidMessageError` naming the
message index and field: nothing is dropped without a report.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, get_args

from .._build import construct_unchecked, copy_unchecked
from .._content import TextContent, ThinkingContent, ToolCall
from .._errors import ConfigurationError, InvalidMessageError
from .._json import copy_json
from .._messages import (
    Api,
    AssistantMessage,
    Context,
    Message,
    SystemMessage,
    ToolDefinition,
    ToolResultMessage,
    UserMessage,
)
from .._view._interface import Stamp
from .._wire._ids import result_fields
from .._wire._keys import PROVIDER_FIELDS, STAMP_KEY, THOUGHT_SIGNATURES
from ._parts import decode_content, decode_thinking_entry
from ._tools import decode_function_call, decode_tool_call

__all__ = [
    "as_message_dict",
    "decode_message",
    "decode_stamp",
    "from_openai",
    "lifted_system_prompt",
    "read_stamp",
    "text_signatures_read_back",
    "tool_call_id_of",
]

_CONTENT: Final = ("content",)
_APIS: Final = frozenset(get_args(Api))


def as_message_dict(message: Any, index: int) -> dict[str, Any]:
    """Accept a message dict, or a pydantic message object (LiteLLM's ``Message``)."""
    if isinstance(message, dict):
        return message
    dump = getattr(message, "model_dump", None)
    if callable(dump):
        dumped = dump()
        if isinstance(dumped, dict):
            return dumped
    raise InvalidMessageError(index, "", f"expected a message object, got {type(message).__name__}")


def _common(msg: dict[str, Any], lifted: Sequence[str]) -> dict[str, Any]:
    """Lift ``name`` and ``cache_control`` when well-typed; copy the rest into extra."""
    fields: dict[str, Any] = {}
    name = msg.get("name")
    if isinstance(name, str):
        fields["name"] = name
    cache_control = msg.get("cache_control")
    if isinstance(cache_control, dict):
        fields["cache_control"] = copy_json(cache_control)
    # ``fields`` holds exactly the keys lifted here.
    fields["extra"] = {
        k: copy_json(v)
        for k, v in msg.items()
        if k != "role" and k not in lifted and k not in fields
    }
    return fields


def _content_of(msg: dict[str, Any], role: Any, index: int) -> dict[str, Any]:
    if "content" not in msg:
        return {"content": (), "content_form": "absent"}
    blocks, form = decode_content(msg["content"], role, index)
    return {"content": blocks, "content_form": form}


def _decode_system(msg: dict[str, Any], index: int) -> SystemMessage:
    return construct_unchecked(
        SystemMessage,
        role=msg["role"],
        **_content_of(msg, "system", index),
        **_common(msg, _CONTENT),
    )


def _decode_user(msg: dict[str, Any], index: int) -> UserMessage:
    return construct_unchecked(
        UserMessage, **_content_of(msg, "user", index), **_common(msg, _CONTENT)
    )


def tool_call_id_of(msg: dict[str, Any], index: int) -> str:
    """A ``tool`` message's ``tool_call_id``; the decoder's error when it has none."""
    raw_id = msg.get("tool_call_id")
    if "tool_call_id" not in msg:
        raise InvalidMessageError(
            index, "tool_call_id", "missing: a tool message must name the call it answers"
        )
    if not isinstance(raw_id, str):
        raise InvalidMessageError(
            index, "tool_call_id", f"expected a string, got {type(raw_id).__name__}"
        )
    return raw_id


def _decode_tool(msg: dict[str, Any], index: int) -> ToolResultMessage:
    raw_id = tool_call_id_of(msg, index)
    fields = _common(msg, ["content", "tool_call_id"])
    name = fields.pop("name", None)
    return construct_unchecked(
        ToolResultMessage,
        **result_fields(raw_id),
        tool_name=name,
        **_content_of(msg, "tool_result", index),
        **fields,
    )


def _decode_function(msg: dict[str, Any], index: int) -> ToolResultMessage:
    if not isinstance(msg.get("name"), str):
        raise InvalidMessageError(index, "name", "a function message must name its function")
    raw_id = msg.get("tool_call_id")
    has_id = isinstance(raw_id, str) and bool(raw_id)
    fields = _common(msg, ["content", "tool_call_id"] if has_id else ["content"])
    return construct_unchecked(
        ToolResultMessage,
        role="function",
        tool_call_id=raw_id if has_id else "",
        tool_name=fields.pop("name"),
        **_content_of(msg, "tool_result", index),
        **fields,
    )


_NEW: Final = tuple.__new__
_MISSING: Final[Any] = object()


def read_stamp(value: Any) -> Stamp | None:
    """Read litellm_hygiene's provenance stamp; ``None`` when it is not well-formed."""
    if not isinstance(value, dict):
        return None
    provider = value.get("provider", _MISSING)
    api = value.get("api", _MISSING)
    model = value.get("model", _MISSING)
    # No key but these three: as many of them present as the stamp has keys.
    if (provider is not _MISSING) + (api is not _MISSING) + (model is not _MISSING) != len(value):
        return None
    provider = None if provider is _MISSING else provider
    api = None if api is _MISSING else api
    model = None if model is _MISSING else model
    if provider is not None and not isinstance(provider, str):
        return None
    if model is not None and not isinstance(model, str):
        return None
    if api is not None and (not isinstance(api, str) or api not in _APIS):
        return None
    # tuple.__new__: the named tuple's own __new__ is a Python function (a frame a call).
    return _NEW(Stamp, (provider, api, model))


def decode_stamp(value: Any) -> dict[str, Any] | None:
    """:func:`read_stamp` as the fields it sets on an assistant message."""
    stamp = read_stamp(value)
    if stamp is None:
        return None
    return {"provider": stamp.provider, "api": stamp.api, "model": stamp.model, "stamped": True}


def _decode_reasoning_item(item: Any) -> ThinkingContent | None:
    """Read an OpenAI Responses reasoning item that LiteLLM keeps on the message."""
    if not isinstance(item, dict) or item.get("type") != "reasoning":
        return None
    summary = item.get("summary", [])
    if not isinstance(summary, list) or not all(
        isinstance(s, dict) and isinstance(s.get("text"), str) for s in summary
    ):
        return None
    encrypted = item.get("encrypted_content")
    lifted = {"type"} | ({"encrypted_content"} if isinstance(encrypted, str) else set())
    return construct_unchecked(
        ThinkingContent,
        thinking="\n\n".join(s["text"] for s in summary),
        signature=encrypted if isinstance(encrypted, str) else None,
        origin="reasoning_items",
        extra={k: copy_json(v) for k, v in item.items() if k not in lifted},
    )


def _decode_list(
    value: Any, decode: Callable[[Any], ThinkingContent | None]
) -> list[ThinkingContent] | None:
    """Decode a whole list, or nothing: a partly unreadable list stays verbatim."""
    if not isinstance(value, list) or not value:
        return None
    blocks = [decode(item) for item in value]
    return None if any(b is None for b in blocks) else blocks  # type: ignore[return-value]


def _thinking(msg: dict[str, Any]) -> tuple[list[ThinkingContent], list[str]]:
    blocks: list[ThinkingContent] = []
    lifted: list[str] = []
    for key, decode in (
        ("thinking_blocks", decode_thinking_entry),
        ("reasoning_items", _decode_reasoning_item),
    ):
        decoded = _decode_list(msg.get(key), decode)
        if decoded is not None:
            blocks.extend(decoded)
            lifted.append(key)
    return blocks, lifted


def _tool_calls(msg: dict[str, Any], index: int) -> tuple[list[ToolCall], list[str]]:
    calls: list[ToolCall] = []
    lifted: list[str] = []
    raw = msg.get("tool_calls")
    if isinstance(raw, list) and raw:
        calls.extend(decode_tool_call(c, index, f"tool_calls[{i}]") for i, c in enumerate(raw))
        lifted.append("tool_calls")
    elif raw is not None and not isinstance(raw, list):
        raise InvalidMessageError(index, "tool_calls", f"expected a list, got {type(raw).__name__}")
    if msg.get("function_call") is not None:
        calls.append(decode_function_call(msg["function_call"], index))
        lifted.append("function_call")
    return calls, lifted


def _lift_text_signatures(
    content: tuple[Any, ...], psf: Any
) -> tuple[tuple[Any, ...], dict[str, Any] | None]:
    """Move Gemini's text-part signatures onto the text blocks when they line up 1:1."""
    if not isinstance(psf, dict):
        return content, None
    rest = copy_json(psf)
    signatures = psf.get(THOUGHT_SIGNATURES)
    texts = [i for i, b in enumerate(content) if isinstance(b, TextContent)]
    if (
        isinstance(signatures, list)
        and signatures
        and len(signatures) == len(texts)
        and all(isinstance(s, str) for s in signatures)
    ):
        del rest[THOUGHT_SIGNATURES]
        blocks = list(content)
        for position, signature in zip(texts, signatures, strict=True):
            blocks[position] = copy_unchecked(blocks[position], text_signature=signature)
        return tuple(blocks), rest
    return content, rest


def text_signatures_read_back(
    content: Sequence[Any], psf: dict[str, Any] | None
) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
    """A turn's text signatures as the decoder will read them back, where that differs.

    LiteLLM keeps a turn's text signatures in one list,
    ``provider_specific_fields.thought_signatures``, which tells their order and nothing
    else: the decoder puts them on the text blocks only when there is one per text. A
    turn some of whose texts are signed and others not (a rule dropped one signature,
    or merged a signed turn with an unsigned one) is written as a list that no longer
    lines up, and read back with no text signed. A rule that leaves such a turn gives
    it in this form, so the rules after it judge what will be sent (an empty text is
    kept only while signed), and the next run finds what this one left.

    Returns:
        The blocks with no text signed, and the provider fields listing the signatures
        in order (after any list they already held); ``None`` when every text is signed
        or none is.
    """
    signed = [b.text_signature for b in content if isinstance(b, TextContent)]
    found = [s for s in signed if s is not None]
    if not found or len(found) == len(signed):
        return None
    blocks = tuple(
        copy_unchecked(b, text_signature=None)
        if isinstance(b, TextContent) and b.text_signature is not None
        else b
        for b in content
    )
    fields = dict(psf or {})
    listed = fields.get(THOUGHT_SIGNATURES)
    fields[THOUGHT_SIGNATURES] = [*listed, *found] if isinstance(listed, list) else found
    return blocks, fields


def _decode_assistant(msg: dict[str, Any], index: int) -> AssistantMessage:
    thinking, lifted = _thinking(msg)
    calls, call_keys = _tool_calls(msg, index)
    fields = _content_of(msg, "assistant", index)
    content, psf = _lift_text_signatures(fields["content"], msg.get(PROVIDER_FIELDS))
    lifted += [*call_keys, "content", PROVIDER_FIELDS]
    reasoning = msg.get("reasoning_content")
    mirror: str | None = None
    if isinstance(reasoning, str):
        lifted.append("reasoning_content")
        if thinking:
            mirror = reasoning
        else:
            thinking.append(
                construct_unchecked(ThinkingContent, thinking=reasoning, origin="reasoning_content")
            )
    stamp = decode_stamp(msg.get(STAMP_KEY))
    if stamp is not None:
        lifted.append(STAMP_KEY)
    common = _common(msg, lifted)
    if psf is None and PROVIDER_FIELDS in msg:
        common["extra"][PROVIDER_FIELDS] = copy_json(msg[PROVIDER_FIELDS])
    return construct_unchecked(
        AssistantMessage,
        content=(*thinking, *content, *calls),
        content_form=fields["content_form"],
        reasoning_content=mirror,
        provider_specific_fields=psf,
        **(stamp or {}),
        **common,
    )


_DECODERS: Final[dict[str, Callable[[dict[str, Any], int], Message]]] = {
    "system": _decode_system,
    "developer": _decode_system,
    "user": _decode_user,
    "assistant": _decode_assistant,
    "tool": _decode_tool,
    "function": _decode_function,
}


def decode_message(message: Any, index: int) -> Message:
    """Decode one OpenAI-shaped message; ``index`` names it in errors."""
    msg = as_message_dict(message, index)
    if "role" not in msg:
        raise InvalidMessageError(index, "role", "missing")
    decoder = _DECODERS.get(msg["role"]) if isinstance(msg["role"], str) else None
    if decoder is None:
        # The role's value is the client's and reaches fail_closed errors: never echoed.
        raise InvalidMessageError(
            index, "role", f"unknown role; expected one of {sorted(_DECODERS)}"
        )
    return decoder(msg, index)


def _decode_tool_definition(tool: Any, index: int) -> ToolDefinition:
    if not isinstance(tool, dict):
        raise ConfigurationError(f"tools[{index}]: expected an object, got {type(tool).__name__}")
    function = tool.get("function")
    if isinstance(function, dict) and isinstance(function.get("name"), str):
        parameters = function.get("parameters")
        description = function.get("description")
        return ToolDefinition(
            name=function["name"],
            description=description if isinstance(description, str) else None,
            parameters=copy_json(parameters) if isinstance(parameters, dict) else None,
            wire=copy_json(tool),
        )
    name = tool.get("name", tool.get("type"))
    return ToolDefinition(name=str(name), wire=copy_json(tool))


def lifted_system_prompt(messages: Sequence[Any]) -> str | None:
    """The text :func:`from_openai` lifts into ``Context.system_prompt``, if any.

    Only a leading ``{"role": "system", "content": "<non-blank text>"}`` with no other
    key is lifted; every other system or developer message keeps its place.
    """
    first = messages[0] if messages else None
    if isinstance(first, dict) and set(first) == {"role", "content"}:
        content = first["content"]
        if first["role"] == "system" and isinstance(content, str) and content.strip():
            return content
    return None


def from_openai(messages: Sequence[Any], tools: Sequence[Any] | None = None) -> Context:
    """Convert OpenAI-shaped messages (and tools) into a neutral :class:`Context`.

    Args:
        messages: The request's messages, as LiteLLM accepts them: dicts, or pydantic
            message objects such as LiteLLM's ``Message``.
        tools: The request's ``tools``, when there are any.

    Returns:
        The conversation; ``to_openai`` of it rebuilds ``messages`` exactly.

    Raises:
        InvalidMessageError: A message cannot be read (names its index and field).
        ConfigurationError: ``messages`` or ``tools`` is not a list.
    """
    if not isinstance(messages, list) and not isinstance(messages, tuple):
        raise ConfigurationError(f"messages must be a list, got {type(messages).__name__}")
    decoded = [decode_message(m, i) for i, m in enumerate(messages)]
    system_prompt = lifted_system_prompt(messages)
    if system_prompt is not None:
        decoded = decoded[1:]
    if tools is not None and not isinstance(tools, list) and not isinstance(tools, tuple):
        raise ConfigurationError(f"tools must be a list, got {type(tools).__name__}")
    definitions = tuple(_decode_tool_definition(t, i) for i, t in enumerate(tools or ()))
    return construct_unchecked(
        Context, system_prompt=system_prompt, messages=tuple(decoded), tools=definitions
    )
