"""The chat shape's reader of :class:`~litellm_hygiene._view.Facts`, and its evidence.

The rules never read wire dicts themselves: they read :class:`Facts`, which this module
computes from one OpenAI-shaped message in a single look at its keys, building nothing
but a few small tuples. A rule that needs more than a fact (the exact text of a block,
the size of an image) asks for the decoded neutral message, and only for the messages
its facts point at; so a request nothing is wrong with is read once and never decoded.
The ids are read as LiteLLM will use them for the target (its
:class:`~litellm_hygiene._view.WirePlan`).

Where the chat shape carries signatures, and which are evidence of which protocol, is
in :mod:`._evidence`.

Reading a message also checks its shape, with the decoder's own words: a message the
decoder would refuse raises :class:`~litellm_hygiene.InvalidMessageError` here, so no
rule ever sees what cannot be decoded, and a request is never sent untouched only
because nothing asked to decode it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from .._errors import InvalidMessageError
from .._view._facts import (
    BLANK,
    CALLS,
    IMAGES,
    INLINE_IMAGES,
    NULL_CONTENT,
    OPAQUE,
    SIGNED_ID,
    STAMPED,
    Facts,
    Role,
    plain_facts,
)
from .._view._interface import Stamp
from .._view._plan import Call, WirePlan
from .._wire._ids import THOUGHT_SEPARATOR
from .._wire._keys import PROVIDER_FIELDS, RESPONSE_FIELDS, STAMP_KEY
from ._decode import as_message_dict, read_stamp, tool_call_id_of
from ._parts import DATA_URL

__all__ = ["arguments", "read_facts", "stamp_of", "without_reasoning_facts"]

_NEW: Final = tuple.__new__
"""Builds a :class:`Facts` from all six fields without the named tuple's Python layer
(a third of the cost of reading a tool result)."""

_PSF: Final = PROVIDER_FIELDS
_ABSENT: Final[Any] = object()
_ROLES: Final[dict[str, Role]] = {
    "system": "system",
    "developer": "system",
    "user": "user",
    "assistant": "assistant",
    "tool": "tool",
    "function": "tool",
}


def _name_key(name: str) -> str:
    return f"\0function:{name}"


def _blank(text: Any) -> bool:
    return isinstance(text, str) and (not text or text.isspace())


def _part_flags(part: Any, index: int, where: str, images: bool, assistant: bool) -> int:
    """Check one content part the way the decoder reads it, and what it may hold."""
    if not isinstance(part, dict):
        raise InvalidMessageError(
            index, where, f"expected a content part object, got {type(part).__name__}"
        )
    kind = part.get("type")
    if kind == "text":
        return BLANK if _blank(part.get("text")) else 0
    if kind == "image_url" and images:
        raw = part.get("image_url")
        url = raw.get("url") if isinstance(raw, dict) else raw
        if not isinstance(url, str):
            raise InvalidMessageError(
                index,
                f"{where}.image_url",
                "expected a URL string or an object with a 'url' string",
            )
        return IMAGES | (INLINE_IMAGES if DATA_URL.fullmatch(url) else 0)
    if assistant and kind in ("thinking", "redacted_thinking"):
        return OPAQUE | (BLANK if kind == "thinking" and _blank(part.get("thinking")) else 0)
    return 0


def _content_flags(content: Any, index: int, images: bool, assistant: bool) -> int:
    """Check a message's ``content`` (``_ABSENT`` when it has none), and what it holds."""
    if type(content) is str:
        return BLANK if not content or content.isspace() else 0
    if content is _ABSENT:
        return BLANK
    if content is None:
        return BLANK if assistant else NULL_CONTENT | BLANK
    if isinstance(content, str):
        return BLANK if not content or content.isspace() else 0
    if not isinstance(content, list):
        raise InvalidMessageError(
            index,
            "content",
            f"expected a string, a list of parts, or null; got {type(content).__name__}",
        )
    flags = 0 if content else BLANK
    for position, part in enumerate(content):
        flags |= _part_flags(part, index, f"content[{position}]", images, assistant)
    return flags


def _arguments_ok(function: Mapping[str, Any], index: int, where: str) -> None:
    if "arguments" not in function:
        raise InvalidMessageError(index, f"{where}.arguments", "missing")
    value = function["arguments"]
    if not isinstance(value, str) and not isinstance(value, dict):
        raise InvalidMessageError(
            index, f"{where}.arguments", f"expected a JSON string, got {type(value).__name__}"
        )


def _call_ok(call: Any, index: int, where: str) -> None:
    """Raise the decoder's error for a tool call it cannot read."""
    if not isinstance(call, dict):
        raise InvalidMessageError(index, where, "expected a tool call object")
    function = call.get("function")
    if not isinstance(function, dict):
        raise InvalidMessageError(index, f"{where}.function", "expected an object")
    if not isinstance(function.get("name"), str):
        raise InvalidMessageError(index, f"{where}.function.name", "expected the tool's name")
    _arguments_ok(function, index, f"{where}.function")


def _calls(raw_calls: list[Any], index: int, plan: WirePlan) -> tuple[list[Call], int]:
    """The calls of ``tool_calls`` as sent, and the flags they add."""
    calls: list[Call] = []
    flags = 0
    for position, call in enumerate(raw_calls):
        function = call.get("function") if type(call) is dict else None
        if (
            type(function) is not dict
            or type(function.get("name")) is not str
            or type(function.get("arguments")) is not str
        ):
            _call_ok(call, index, f"tool_calls[{position}]")
            function = call["function"]
        raw = call.get("id")
        if type(raw) is not str:
            raw = raw if isinstance(raw, str) else ""
        cut = raw.find(THOUGHT_SEPARATOR)
        if cut >= 0:
            flags |= SIGNED_ID | OPAQUE
        calls.append(plan.call(raw, cut))
        if _PSF in call or _PSF in function:
            flags |= OPAQUE
    return calls, flags


def _assistant(msg: dict[str, Any], index: int, plan: WirePlan) -> Facts:
    content = msg.get("content", _ABSENT)
    flags = _content_flags(content, index, images=False, assistant=True)
    raw_calls = msg.get("tool_calls")
    if raw_calls is None:
        calls: list[Call] = []
    elif isinstance(raw_calls, list):
        calls, call_flags = _calls(raw_calls, index, plan)
        flags |= call_flags
    else:
        raise InvalidMessageError(
            index, "tool_calls", f"expected a list, got {type(raw_calls).__name__}"
        )
    function_call = msg.get("function_call")
    if function_call is not None:
        if not isinstance(function_call, dict) or not isinstance(function_call.get("name"), str):
            raise InvalidMessageError(index, "function_call", "expected an object with a 'name'")
        _arguments_ok(function_call, index, "function_call")
        calls.append((_name_key(function_call["name"]), "", ""))
    if calls and (content is None or content is _ABSENT):
        flags &= ~BLANK  # no content beside calls is how calls travel: nothing is empty
    if not RESPONSE_FIELDS.isdisjoint(msg):
        flags |= OPAQUE
        if _blank_thinking(msg):
            flags |= BLANK
    if STAMP_KEY in msg:
        flags |= STAMPED
    if not calls:
        return plain_facts("assistant", flags)
    return _NEW(Facts, ("assistant", flags | CALLS, tuple(calls), None, None, None))


def without_reasoning_facts(
    facts: Facts, raw: dict[str, Any], plan: WirePlan, unsign: Sequence[bool]
) -> Facts:
    """The facts of ``raw``, which ``with_reasoning`` wrote from a turn with ``facts``.

    Worked out, not read again (it runs for every foreign turn), as :func:`_assistant`
    would read it: its thinking keys are gone, its content is a string or none, and
    its marked calls, every call that carried a signature, lost it (in the id and in
    provider fields): no call carries one, nor provider fields (a plain turn's calls
    carry nothing else). A property test holds it to the reader.
    """
    calls = facts.calls
    flags = facts.flags & (STAMPED | CALLS)
    if True in unsign:
        listed = list(calls)
        written = raw["tool_calls"]
        for position, drop in enumerate(unsign):
            if drop:
                call_id = written[position]["id"]
                listed[position] = plan.call(call_id, -1)
        calls = tuple(listed)
    content = raw.get("content")
    if content is None:
        flags |= 0 if calls else BLANK
    elif not content or content.isspace():
        flags |= BLANK
    if not RESPONSE_FIELDS.isdisjoint(raw):
        flags |= OPAQUE  # provider fields of the message (nothing blank: no thinking left)
    return _NEW(Facts, ("assistant", flags, calls, None, None, None))


def arguments(message: Any) -> list[Any]:
    """Each call's ``arguments`` as given (``tool_calls``, then ``function_call``)."""
    msg = message if type(message) is dict else _as_dict(message, 0)
    found = [call["function"]["arguments"] for call in msg.get("tool_calls") or ()]
    function_call = msg.get("function_call")
    if function_call is not None:
        found.append(function_call["arguments"])
    return found


def _blank_thinking(msg: dict[str, Any]) -> bool:
    """Thinking that may decode as empty (reasoning items: any, they are rare)."""
    reasoning = msg.get("reasoning_content")
    if _blank(reasoning) or msg.get("reasoning_items"):
        return True
    blocks = msg.get("thinking_blocks")
    if not isinstance(blocks, list):
        return False
    for block in blocks:
        if isinstance(block, dict) and block.get("type") == "thinking":
            text = block.get("thinking")
            if isinstance(text, str) and (not text or text.isspace()):
                return True
    return False


def _result(msg: dict[str, Any], index: int, role: str, plan: WirePlan) -> Facts:
    raw = msg.get("tool_call_id")
    if role == "tool":
        if type(raw) is not str:
            raw = tool_call_id_of(msg, index)  # a str subclass, or the decoder's error
        cut = raw.find(THOUGHT_SEPARATOR)
        key, sent, given = plan.call(raw, cut)
        flags = SIGNED_ID if cut >= 0 else 0
    else:
        name = msg.get("name")
        if not isinstance(name, str):
            raise InvalidMessageError(index, "name", "a function message must name its function")
        key = raw if isinstance(raw, str) and raw else _name_key(name)
        sent = given = None  # type: ignore[assignment]
        flags = SIGNED_ID if isinstance(raw, str) and THOUGHT_SEPARATOR in raw else 0
    flags |= _content_flags(msg.get("content", _ABSENT), index, images=True, assistant=False)
    if STAMP_KEY in msg:
        flags |= STAMPED
    return _NEW(Facts, ("tool", flags, (), key, sent, given))


def read_facts(message: Any, index: int, plan: WirePlan) -> Facts:
    """The :class:`Facts` of one OpenAI-shaped message (a dict or a pydantic message).

    Raises:
        InvalidMessageError: The decoder could not read the message (names its index
            and field).
    """
    msg = message if type(message) is dict else _as_dict(message, index)
    role = msg.get("role", _ABSENT)
    kind = _ROLES.get(role) if type(role) is str else _odd_role(role, index)
    if kind is None:
        # The role's value is the client's and reaches fail_closed errors: never echoed.
        raise InvalidMessageError(index, "role", f"unknown role; expected one of {sorted(_ROLES)}")
    if kind == "assistant":
        return _assistant(msg, index, plan)
    if kind == "tool":
        return _result(msg, index, role, plan)
    flags = _content_flags(msg.get("content", _ABSENT), index, kind == "user", assistant=False)
    if STAMP_KEY in msg:
        flags |= STAMPED
    return plain_facts(kind, flags)


def _as_dict(message: Any, index: int) -> dict[str, Any]:
    return message if isinstance(message, dict) else as_message_dict(message, index)


def _odd_role(role: Any, index: int) -> Role | None:
    """The role of a ``role`` value that is not a plain ``str`` (a str enum, or none)."""
    if role is _ABSENT:
        raise InvalidMessageError(index, "role", "missing")
    return _ROLES.get(role) if isinstance(role, str) else None


def stamp_of(message: Any) -> Stamp | None:
    """The well-formed provenance stamp on a message dict, if any."""
    if not isinstance(message, dict):
        message = as_message_dict(message, 0)
    return read_stamp(message.get(STAMP_KEY))
