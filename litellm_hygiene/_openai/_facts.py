"""What the rules need to know of one OpenAI-shaped message, read once and cheaply.

The rules (:mod:`litellm_hygiene._rules`) never read wire dicts themselves: they read
:class:`Facts`, which this module computes from one message in a single look at its
keys, building nothing but a few small tuples. A rule that needs more than a fact
(the exact text of a block, the size of an image) asks for the decoded neutral message,
and only for the messages its facts point at; so a request nothing is wrong with is
read once and never decoded.

This is also where the facts about LiteLLM's wire live, declared once
(:class:`WirePlan`, resolved once per target):

- the id LiteLLM sends and the key it pairs a result with its call by: LiteLLM keeps a
  Gemini thought signature inside the id (``call_<id>__thought__<signature>``) and
  strips it for every model it does not consider Gemini; its Gemini converter sends the
  bare id but pairs results with calls by the whole string; a non-Gemini route to a
  Gemini model (OpenRouter's ``google/gemini-...``) gets the whole string as the id;
- what "a Gemini model" means behind each route (LiteLLM's ``_is_gemini_model``);
- which signatures are evidence of which protocol.

Reading a message also checks its shape, with the decoder's own words: a message the
decoder would refuse raises :class:`~litellm_hygiene.InvalidMessageError` here, so no
rule ever sees what cannot be decoded, and a request is never sent untouched only
because nothing asked to decode it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, NamedTuple

from .._errors import InvalidMessageError
from .._messages import Api
from .._signatures import is_canonical_base64
from .._target import TargetModel
from ._decode import STAMP_KEY, Stamp, as_message_dict, read_stamp
from ._parts import DATA_URL
from ._tools import THOUGHT_SEPARATOR

__all__ = [
    "BLANK",
    "CALLS",
    "IMAGES",
    "INLINE_IMAGES",
    "NULL_CONTENT",
    "OPAQUE",
    "RESPONSE_FIELDS",
    "SIGNED_ID",
    "STAMPED",
    "Call",
    "Facts",
    "Role",
    "WirePlan",
    "arguments",
    "evidence",
    "inline_image_chars",
    "plain_facts",
    "read_facts",
    "readdressed_facts",
    "renamed_facts",
    "signatures",
    "stamp_of",
    "wire_plan",
    "with_flags",
]

Role = Literal["system", "user", "assistant", "tool"]
"""A message's part in the conversation: ``developer`` is ``system``, ``function`` is
``tool`` (both answer a call)."""

# Bits of Facts.flags: each says "this message may hold X", never more than the decoder
# would find (a property test holds each bit to the decoded message).
NULL_CONTENT: Final = 1
"""A user, system or tool message whose ``content`` is ``null``."""
IMAGES: Final = 2
"""An ``image_url`` part in a user or tool message."""
INLINE_IMAGES: Final = 4
"""An image part whose URL is a ``data:`` URL the decoder splits."""
OPAQUE: Final = 8
"""Thinking of any kind, a signature anywhere, or a response-only key."""
BLANK: Final = 16
"""Empty or whitespace-only text, empty content (but not no content beside calls), or
empty unsigned thinking."""
STAMPED: Final = 32
"""litellm_hygiene's provenance stamp key."""
SIGNED_ID: Final = 64
"""A tool-call or tool-result id carrying a ``__thought__`` signature."""
CALLS: Final = 128
"""An assistant message with tool calls (or a legacy ``function_call``)."""

RESPONSE_FIELDS: Final = frozenset(
    {"thinking_blocks", "reasoning_content", "provider_specific_fields", "reasoning_items"}
)
"""LiteLLM's response-only message keys, which it forwards verbatim to some providers."""

_PSF: Final = "provider_specific_fields"
_ABSENT: Final[Any] = object()
_ROLES: Final[dict[str, Role]] = {
    "system": "system",
    "developer": "system",
    "user": "user",
    "assistant": "assistant",
    "tool": "tool",
    "function": "tool",
}
_ANTHROPIC_LIKE: Final[frozenset[Api]] = frozenset({"anthropic-messages", "bedrock-converse"})
_OPENAI_LIKE: Final[frozenset[Api]] = frozenset({"openai-chat", "openai-compatible"})
_MISTRAL_ID: Final = re.compile(r"[a-zA-Z0-9]{9}")
_GEMINI: Final[frozenset[Api]] = frozenset({"gemini"})
_RESPONSES: Final[frozenset[Api]] = frozenset({"openai-responses"})
_MISTRAL: Final[frozenset[Api]] = frozenset({"mistral"})
_NONE: Final[frozenset[Api]] = frozenset()
_UNKNOWN: Final[frozenset[Api]] = frozenset({"unknown"})
_SIGNED_THINKING: Final[frozenset[Api]] = _ANTHROPIC_LIKE | _GEMINI
_ID_EVIDENCE: Final[dict[str, frozenset[Api]]] = {
    "toolu_": frozenset({"anthropic-messages"}),
    "srvtoolu_": frozenset({"anthropic-messages"}),
    "tooluse_": frozenset({"bedrock-converse"}),
    "fc_": _RESPONSES,
    # LiteLLM gives Gemini's calls ``call_<hex>`` ids too (the first of parallel calls
    # carries the signature, the others none).
    "call_": _OPENAI_LIKE | {"openai-responses", "gemini"},
}
"""Evidence of a call id's prefix (up to and including its first ``_``)."""


Call = tuple[str, str, str]
"""A call as LiteLLM sends it: (pairing key, id as sent, id as given). Legacy
``function_call`` pairs by name: key ``"\\0function:<name>"``, no id."""


@dataclass(frozen=True, slots=True)
class WirePlan:
    """What LiteLLM does with ids and signatures for one target, resolved once.

    Attributes:
        gemini_model: LiteLLM treats the target as Gemini (``_is_gemini_model``): it
            keeps ``__thought__`` signatures in ids, and the model checks thought
            signatures as base64.
        whole_id_sent: The provider receives the whole ``<id>__thought__<signature>``
            string as the id (a Gemini model behind a non-Gemini protocol).
        pairs_whole_id: LiteLLM pairs a result with its call by the whole string (its
            Gemini converter compares them byte for byte); elsewhere both are stripped.
        sends_message_keys: A key the provider does not know may reach it: LiteLLM
            sends each message's keys as they are (OpenAI Chat and its compatibles,
            Mistral, and the OpenAI-compatible routes behind Vertex AI and Bedrock), or
            the route is not one known to build the provider's messages from the keys
            LiteLLM knows (see :func:`_rebuilt`).
    """

    gemini_model: bool
    whole_id_sent: bool
    pairs_whole_id: bool
    sends_message_keys: bool

    def call(self, raw: str, cut: int) -> Call:
        """A tool-call id as LiteLLM uses it: (pairing key, id as sent, id as given).

        ``cut`` is where ``raw`` holds the ``__thought__`` separator (``raw.find``), or
        -1: the readers find it once, and also flag the signature by it.
        """
        if cut < 0:
            return (raw, raw, raw)
        bare = raw[:cut]
        return (raw if self.pairs_whole_id else bare, raw if self.whole_id_sent else bare, raw)

    def pairing_key(self, raw: str) -> str:
        """The key LiteLLM pairs results with calls by."""
        return self.call(raw, raw.find(THOUGHT_SEPARATOR))[0]

    def answer_id(self, given: str, tool: bool) -> str:
        """The id a result carries to answer the call whose id is ``given``.

        LiteLLM reads a ``tool`` result's id as it reads its call's (a signature dropped
        where the call's is), so it carries the call's id as given; it pairs a legacy
        ``function`` result's ``tool_call_id`` as it is, so that one carries the key.
        """
        return given if tool else self.pairing_key(given)


def wire_plan(target: TargetModel) -> WirePlan:
    """The :class:`WirePlan` of ``target``.

    Mirrors ``litellm.utils._is_gemini_model``: the Gemini providers (Vertex AI only for
    model names that say ``gemini``), or any route whose model name says ``gemini``.
    """
    model = target.model_id.lower()
    if target.provider in ("vertex_ai", "vertex_ai_beta"):
        gemini = "gemini" in model
    else:
        gemini = target.provider == "gemini" or "gemini" in model
    native = gemini and target.api == "gemini"
    return WirePlan(
        gemini_model=gemini,
        whole_id_sent=gemini and not native,
        pairs_whole_id=gemini,
        sends_message_keys=not _rebuilt(target, native),
    )


def _rebuilt(target: TargetModel, native_gemini: bool) -> bool:
    """LiteLLM builds each provider message from the keys it knows: no other key leaves.

    Anthropic Messages (Anthropic, Claude on Vertex AI, Bedrock's invoke route),
    Responses (OpenAI, Azure), a Gemini model on Google's own API (AI Studio, Vertex
    AI), and Claude through Bedrock's Converse. Not the other models behind Vertex AI
    and Bedrock, which hygiene reads as Gemini or Converse but LiteLLM serves through
    OpenAI-compatible endpoints that send message dicts as they are (Llama or Mistral
    on Vertex AI; ``bedrock/chat_completions/...``, ``bedrock/openai/...``, OpenAI models
    on Bedrock). ``tests/test_wire_keys.py`` sends an unknown key through each of these
    routes and reads the body.
    """
    if target.api in ("anthropic-messages", "openai-responses"):
        return True
    if target.api == "gemini":
        return native_gemini
    if target.api == "bedrock-converse":
        model = target.model_id.lower()
        return "claude" in model and "/" not in model
    return False


class Facts(NamedTuple):
    """What the rules read of one message (a tuple: cheap to build, never changed).

    Attributes:
        role: The message's part in the conversation.
        flags: The bits above that hold for it.
        calls: An assistant message's calls, in wire order.
        result: A result's pairing key.
        result_id: A ``tool`` result's id as sent (``None`` for ``function`` results).
        result_raw: A ``tool`` result's id as given.
    """

    role: Role
    flags: int = 0
    calls: tuple[Call, ...] = ()
    result: str | None = None
    result_id: str | None = None
    result_raw: str | None = None


_PLAIN: Final[dict[tuple[str, int], Facts]] = {}


def plain_facts(role: Role, flags: int) -> Facts:
    """The facts of a message with no calls and no result id (one shared tuple each)."""
    found = _PLAIN.get((role, flags))
    if found is None:
        found = _PLAIN[(role, flags)] = Facts(role, flags)
    return found


_NEW: Final = tuple.__new__
"""Builds a :class:`Facts` from all six fields without the named tuple's Python layer
(a third of the cost of reading a tool result)."""


def with_flags(facts: Facts, flags: int) -> Facts:
    """``facts`` with other flags (a message edited in a way only its flags show)."""
    role, _, calls, result, result_id, result_raw = facts
    return _NEW(Facts, (role, flags, calls, result, result_id, result_raw))


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
    if not isinstance(value, str | dict):
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


def renamed_facts(facts: Facts, calls: Mapping[int, str], result: str | None) -> Facts | None:
    """The facts of a message after its ids are renamed (see ``Wire.with_ids``).

    Worked out from the facts, not read again: only the ids change, so only the calls
    and the result do. ``None`` when an old or new id holds a ``__thought__`` signature
    (its flags may change with it: read the message again), or for a legacy
    ``function`` result.
    """
    new_calls = facts.calls
    if calls:
        listed = list(new_calls)
        for position, new_id in calls.items():
            if THOUGHT_SEPARATOR in new_id or THOUGHT_SEPARATOR in listed[position][2]:
                return None
            listed[position] = (new_id, new_id, new_id)
        new_calls = tuple(listed)
    key, sent, given = facts.result, facts.result_id, facts.result_raw
    if result is not None:
        if given is None or THOUGHT_SEPARATOR in given or THOUGHT_SEPARATOR in result:
            return None
        key = sent = given = result  # without a signature: sent and paired as it is
    return _NEW(Facts, (facts.role, facts.flags, new_calls, key, sent, given))


def readdressed_facts(facts: Facts, result: str, plan: WirePlan) -> Facts:
    """The facts of a ``tool`` result after its id becomes ``result`` (``Wire.with_ids``).

    Worked out from the facts, not read again: the id, and the flag of a signature in
    it, are all that change (as :func:`_result` reads them).
    """
    cut = result.find(THOUGHT_SEPARATOR)
    key, sent, given = plan.call(result, cut)
    flags = (facts.flags & ~SIGNED_ID) | (SIGNED_ID if cut >= 0 else 0)
    return _NEW(Facts, (facts.role, flags, facts.calls, key, sent, given))


def inline_image_chars(messages: Sequence[Any], stop_above: int) -> int:
    """The length of the ``data:`` image URLs in the messages' content parts.

    Counted until the total passes ``stop_above``; an unreadable message counts 0.
    """
    total = 0
    for message in messages:
        readable = type(message) is dict or isinstance(message, Mapping)
        content = message.get("content") if readable else None
        if not isinstance(content, list):
            continue  # no parts, no images: most messages
        for part in content:
            if isinstance(part, Mapping) and part.get("type") == "image_url":
                raw = part.get("image_url")
                url = raw.get("url") if isinstance(raw, Mapping) else raw
                if isinstance(url, str) and url.startswith("data:"):
                    total += len(url)
        if total > stop_above:
            break
    return total


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
            if "tool_call_id" not in msg:
                raise InvalidMessageError(
                    index, "tool_call_id", "missing: a tool message must name the call it answers"
                )
            if not isinstance(raw, str):
                raise InvalidMessageError(
                    index, "tool_call_id", f"expected a string, got {type(raw).__name__}"
                )
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


_SKIP: Final = len(THOUGHT_SEPARATOR)


def _psf_signature(container: Any) -> Any:
    """The ``thought_signature`` in a call's (or its function's) provider fields."""
    psf = container.get(_PSF) if isinstance(container, dict) else None
    return psf.get("thought_signature") if isinstance(psf, dict) else None


def _call_signature(call: dict[str, Any], call_id: str, cut: int) -> str | None:
    """The thought signature the decoder lifts from a call: id, then provider fields.

    ``cut``: where ``call_id`` (its id, ``""`` when none) holds the separator, or -1.
    """
    if cut > 0:
        return call_id[cut + _SKIP :]
    for container in (call, call.get("function")):
        value = _psf_signature(container)
        if isinstance(value, str) and value:
            return value
    return None


def _entry_signature(entry: Any) -> Any:
    if not isinstance(entry, dict):
        return None
    kind = entry.get("type")
    if kind == "thinking":
        return entry.get("signature")
    return entry.get("data") if kind == "redacted_thinking" else None


def _add(found: list[Any], value: Any) -> None:
    if value is not None:
        found.append(value)


def _add_call_signatures(found: list[Any], call: dict[str, Any]) -> None:
    """The values of a call's signature places: its id's tail, its provider fields."""
    raw = call.get("id")
    if isinstance(raw, str):
        cut = raw.find(THOUGHT_SEPARATOR)
        if cut >= 0:
            found.append(raw[cut + _SKIP :])
    _add(found, _psf_signature(call))
    _add(found, _psf_signature(call.get("function")))


def signatures(message: Any) -> list[Any]:
    """Every value an assistant message holds where a signature travels.

    Thinking signatures and redacted data (in ``thinking_blocks`` and content parts),
    encrypted reasoning items, the signatures of tool calls (in the id and in provider
    fields, the call's or its function's) and of text parts. Values of any type, as
    given; a place that is empty (``None``, or no key) gives nothing, while each entry
    of a ``thought_signatures`` list is a value given, ``None`` included.
    """
    msg = message if isinstance(message, dict) else as_message_dict(message, 0)
    found: list[Any] = []
    for entries in (msg.get("thinking_blocks"), msg.get("content")):
        if isinstance(entries, list):
            for entry in entries:
                _add(found, _entry_signature(entry))
    items = msg.get("reasoning_items")
    if isinstance(items, list):
        for item in items:
            if isinstance(item, dict):
                _add(found, item.get("encrypted_content"))
    for call in msg.get("tool_calls") or ():
        if isinstance(call, dict):
            _add_call_signatures(found, call)
    psf = msg.get(_PSF)
    listed = psf.get("thought_signatures") if isinstance(psf, dict) else None
    if isinstance(listed, list):
        found += listed
    elif listed is not None:
        found.append(listed)
    return found


def _call_evidence(call: dict[str, Any]) -> frozenset[Api]:
    raw = call.get("id")
    call_id = raw if isinstance(raw, str) else ""
    cut = call_id.find(THOUGHT_SEPARATOR)
    function = call.get("function")
    if cut >= 0 or _PSF in call or (isinstance(function, dict) and _PSF in function):
        signature = _call_signature(call, call_id, cut)
        if signature is not None and is_canonical_base64(signature):
            return _GEMINI
        if cut >= 0:
            call_id = call_id[:cut]
    if "|fc_" in call_id:
        return _RESPONSES
    cut = call_id.find("_")
    if cut >= 0:
        found = _ID_EVIDENCE.get(call_id[: cut + 1])
        if found is not None:
            return found
    if len(call_id) == 9 and _MISTRAL_ID.fullmatch(call_id):
        return _MISTRAL
    return _NONE


def _thinking_evidence(entry: Any) -> frozenset[Api] | None:
    """Evidence of one thinking entry; ``None`` when the decoder cannot read it."""
    if not isinstance(entry, dict):
        return None
    if entry.get("type") == "redacted_thinking" and isinstance(entry.get("data"), str):
        return _ANTHROPIC_LIKE
    if entry.get("type") == "thinking" and isinstance(entry.get("thinking"), str):
        signed = isinstance(entry.get("signature"), str) and entry["signature"]
        return _SIGNED_THINKING if signed else _NONE
    return None


def _reasoning_item_ok(item: Any) -> bool:
    if not isinstance(item, dict) or item.get("type") != "reasoning":
        return False
    summary = item.get("summary", [])
    return isinstance(summary, list) and all(
        isinstance(s, dict) and isinstance(s.get("text"), str) for s in summary
    )


def _listed_gemini_signature(psf: Any) -> bool:
    """Whether the message's ``thought_signatures`` list holds a Gemini signature.

    Any canonical base64 entry is one, whatever else the list holds and however many
    text parts the message has: LiteLLM lists there the signature of every signed part
    of Gemini's answer (text, thought and function-call parts alike), so the count says
    nothing of where the turn came from; and the rules change both the list and the
    parts (a blank text part dropped, an entry Google cannot decode dropped). Evidence
    that read them would judge a rule's output otherwise than the turn it was made
    from, and the next run would rewrite what this one let through.
    """
    listed = psf.get("thought_signatures") if isinstance(psf, dict) else None
    if not isinstance(listed, list):
        return False
    return any(isinstance(s, str) and is_canonical_base64(s) for s in listed)


def _block_evidence(msg: dict[str, Any]) -> list[frozenset[Api]]:
    found: list[frozenset[Api]] = []
    blocks = msg.get("thinking_blocks")
    if blocks and isinstance(blocks, list):
        each = [_thinking_evidence(b) for b in blocks]
        if None not in each:
            found += [e for e in each if e]
    items = msg.get("reasoning_items")
    if items and isinstance(items, list) and all(_reasoning_item_ok(i) for i in items):
        found.append(_RESPONSES)
    content = msg.get("content")
    if type(content) is not str and isinstance(content, list):
        for part in content:
            if isinstance(part, dict) and part.get("type") in ("thinking", "redacted_thinking"):
                apis = _thinking_evidence(part)
                if apis:
                    found.append(apis)
    if _listed_gemini_signature(msg.get(_PSF)):
        found.append(_GEMINI)
    return found


def evidence(message: Any) -> frozenset[Api]:
    """Protocols an assistant message's own content says it came from (empty: none).

    Id shapes (``toolu_``, ``tooluse_``, ``fc_``, ``call_``, 9 alphanumerics), Gemini
    signatures (canonical base64 in an id or provider fields, on calls or text parts),
    signed or redacted thinking, OpenAI Responses reasoning items. When they disagree,
    the intersection wins; if that is empty the turn mixes origins and the result is
    ``{"unknown"}``, which matches no target: its opaque data cannot be vouched for.
    """
    msg = message if isinstance(message, dict) else as_message_dict(message, 0)
    found = _block_evidence(msg)
    calls = msg.get("tool_calls")
    if calls and isinstance(calls, list):
        for call in calls:
            if isinstance(call, dict):
                apis = _call_evidence(call)
                if apis:
                    found.append(apis)
    if not found:
        return _NONE
    common = found[0]
    for apis in found:
        if apis is not common:
            common &= apis
    return common or _UNKNOWN
