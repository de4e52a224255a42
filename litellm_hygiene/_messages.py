"""Messages and the conversation context of the neutral model.

A :class:`Context` holds a system prompt, the conversation's messages and the tool
definitions. Messages are a closed, tagged union (``kind``): user input, assistant
replies, tool results, system/developer instructions that appear mid-conversation, and
messages no reader could read, kept as they came (:class:`OpaqueMessage`).
Which content blocks each message may hold is enforced at validation time (see
:mod:`litellm_hygiene._content` for the table); a misplaced block fails with an error
naming the message and the block.

:data:`CONTEXT_ADAPTER` and :data:`MESSAGE_ADAPTER` are the single (de)serialisation
entry points: the ``kind`` tags make the JSON self-describing, so decoding needs no
hand-written dispatch table.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

from ._build import rejects_only
from ._content import ImageContent, OpaqueContent, TextContent, ThinkingContent, ToolCall

__all__ = [
    "CONTEXT_ADAPTER",
    "MESSAGE_ADAPTER",
    "Api",
    "AssistantContent",
    "AssistantMessage",
    "ContentForm",
    "Context",
    "Diagnostic",
    "Message",
    "OpaqueMessage",
    "StopReason",
    "SystemMessage",
    "ToolDefinition",
    "ToolResultMessage",
    "Usage",
    "UsageCost",
    "UserMessage",
    "context_from_json",
    "context_to_json",
]

Api = Literal[
    "anthropic-messages",
    "bedrock-converse",
    "gemini",
    "openai-chat",
    "openai-responses",
    "mistral",
    "openai-compatible",
    "unknown",
]
"""The wire protocol a model is reached through. Signatures and ids are valid only
within one protocol, so provenance records it beside provider and model."""

StopReason = Literal["stop", "length", "toolUse", "error", "aborted"]
"""Why generation stopped, in one neutral vocabulary across providers."""

ContentForm = Literal["string", "list", "null", "absent"]
"""How a message's ``content`` travelled on the OpenAI wire. ``string`` is honoured
only while the content is a single plain text block; otherwise a list is written."""

UserContent = Annotated[TextContent | ImageContent | OpaqueContent, Field(discriminator="kind")]
"""Blocks a user message may hold."""

AssistantContent = Annotated[
    TextContent | ThinkingContent | ToolCall | OpaqueContent, Field(discriminator="kind")
]
"""Blocks an assistant message may hold."""

ToolResultContent = Annotated[
    TextContent | ImageContent | OpaqueContent, Field(discriminator="kind")
]
"""Blocks a tool result may hold."""

SystemContent = Annotated[TextContent | OpaqueContent, Field(discriminator="kind")]
"""Blocks system/developer instructions may hold."""

_ALLOWED_KINDS: dict[str, frozenset[str]] = {
    "user": frozenset({"text", "image", "opaque"}),
    "assistant": frozenset({"text", "thinking", "tool_call", "opaque"}),
    "tool_result": frozenset({"text", "image", "opaque"}),
    "system": frozenset({"text", "opaque"}),
}
_BLOCK_NAMES = {
    "text": "TextContent",
    "image": "ImageContent",
    "thinking": "ThinkingContent",
    "tool_call": "ToolCall",
    "opaque": "OpaqueContent",
}


def _block_kind(block: object) -> str | None:
    if isinstance(block, BaseModel):
        kind = getattr(block, "kind", None)
    elif isinstance(block, dict):
        kind = block.get("kind")
    else:
        return None
    return kind if isinstance(kind, str) else None


class _Message(BaseModel):
    """Common configuration and the placement check shared by every message."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    @model_validator(mode="before")
    @classmethod
    @rejects_only
    def _check_placement(cls, data: Any) -> Any:
        """Reject a block that may not appear in this kind of message, by position.

        It returns ``data`` unchanged, so the unchecked constructors may skip it: their
        callers only place blocks where they came from or where the table allows them.
        """
        if not isinstance(data, dict):
            return data
        kind = cls.model_fields["kind"].default
        allowed = _ALLOWED_KINDS[kind]
        for position, block in enumerate(data.get("content") or ()):
            block_kind = _block_kind(block)
            if block_kind is not None and block_kind not in allowed:
                name = _BLOCK_NAMES.get(block_kind, block_kind)
                raise ValueError(
                    f"{cls.__name__} cannot hold {name} (content[{position}]); "
                    f"allowed blocks: {', '.join(sorted(_BLOCK_NAMES[k] for k in allowed))}"
                )
        return data


class SystemMessage(_Message):
    """System or developer instructions kept at their place in the conversation.

    Attributes:
        role: ``system`` or ``developer`` (OpenAI's name for the same thing on newer
            models); kept so the wire round trip is exact.
        content: The instructions.
        content_form: How ``content`` travelled on the wire.
        name: The optional participant name.
        cache_control: A prompt-caching marker on the message.
        extra: Unknown keys of the wire message, kept verbatim.
    """

    kind: Literal["system"] = "system"
    role: Literal["system", "developer"] = "system"
    content: tuple[SystemContent, ...] = ()
    content_form: ContentForm = "string"
    name: str | None = None
    cache_control: dict[str, Any] | None = None
    extra: dict[str, Any] = {}

    def text(self) -> str:
        """Join the text blocks, in order."""
        return "".join(b.text for b in self.content if isinstance(b, TextContent))


class UserMessage(_Message):
    """Input from the user.

    Attributes:
        content: Text, images, and parts the model does not interpret.
        content_form: How ``content`` travelled on the wire.
        name: The optional participant name.
        cache_control: A prompt-caching marker on the message.
        extra: Unknown keys of the wire message, kept verbatim.
        joined: Anthropic Messages: this came in the same wire message as the message
            before it (``True``), or began one (``False``); ``None`` for a message from
            another shape. One Anthropic user message may hold several results and
            text after them; the neutral model holds each result as its own message,
            and this says how to put them back together.
    """

    kind: Literal["user"] = "user"
    content: tuple[UserContent, ...] = ()
    content_form: ContentForm = "string"
    name: str | None = None
    cache_control: dict[str, Any] | None = None
    extra: dict[str, Any] = {}
    joined: bool | None = None


class UsageCost(BaseModel):
    """Calculated cost per token category, in US dollars."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    total: float = 0.0


class Usage(BaseModel):
    """Token counts by category, lined up with the cost categories."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    total: int = 0
    cost: UsageCost = UsageCost()


class Diagnostic(BaseModel):
    """A non-fatal event noticed while producing or reading a message."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    code: str
    message: str


class AssistantMessage(_Message):
    """A model's reply, with the response metadata that tells where it came from.

    Provenance (``provider``, ``api``, ``model``) decides whether signatures and ids in
    this turn may be replayed: only to the same provider, protocol and model.

    Attributes:
        content: Thinking, text, tool calls and uninterpreted parts, in wire order
            (thinking first, then content parts, then tool calls).
        content_form: How ``content`` travelled on the wire.
        provider: Vendor key of the producing deployment (``anthropic``, ``gemini``).
        api: Wire protocol it was reached through.
        model: Model id that produced the turn.
        stamped: Provenance arrived as litellm_hygiene's stamp on the wire message.
        usage: Token counts and cost, when known.
        stop_reason: Why generation stopped, when known.
        error_message: The provider's or runtime's error, for ``error`` stops.
        diagnostics: Non-fatal events, empty when clean.
        timestamp: Unix milliseconds of the response, when known.
        response_id: The provider's response id, when known.
        reasoning_content: LiteLLM's flat ``reasoning_content`` when it mirrors
            ``thinking_blocks`` (the blocks are the content; this is the copy).
        provider_specific_fields: LiteLLM's message-level provider fields that the
            model does not lift into blocks.
        name: The optional participant name.
        cache_control: A prompt-caching marker on the message.
        extra: Unknown keys of the wire message, kept verbatim.
    """

    kind: Literal["assistant"] = "assistant"
    content: tuple[AssistantContent, ...] = ()
    content_form: ContentForm = "string"
    provider: str | None = None
    api: Api | None = None
    model: str | None = None
    stamped: bool = False
    usage: Usage | None = None
    stop_reason: StopReason | None = None
    error_message: str | None = None
    diagnostics: tuple[Diagnostic, ...] = ()
    timestamp: int | None = None
    response_id: str | None = None
    reasoning_content: str | None = None
    provider_specific_fields: dict[str, Any] | None = None
    name: str | None = None
    cache_control: dict[str, Any] | None = None
    extra: dict[str, Any] = {}

    def text(self) -> str:
        """Join every text block in order, skipping thinking and tool calls."""
        return "".join(b.text for b in self.content if isinstance(b, TextContent))

    def tool_calls(self) -> list[ToolCall] | None:
        """Every tool call, in order, as copies; ``None`` when there are none."""
        calls = [b.model_copy() for b in self.content if isinstance(b, ToolCall)]
        return calls or None

    def thinking(self) -> list[ThinkingContent]:
        """Every thinking block, in order."""
        return [b for b in self.content if isinstance(b, ThinkingContent)]


class ToolResultMessage(_Message):
    """The result of running a tool, tied to its call by ``tool_call_id``.

    Attributes:
        tool_call_id: The id of the call this answers (empty for the legacy
            ``function`` role, which answers by name).
        tool_name: The tool's name, when the wire message carries it.
        content: The result.
        content_form: How ``content`` travelled on the wire.
        is_error: The tool failed.
        synthesized: litellm_hygiene wrote this result because the call had none.
        role: ``tool``, or the legacy ``function`` role.
        signature_in_id: The call id carried a Gemini signature suffix
            (``__thought__<signature>``), stored in ``thought_signature``.
        thought_signature: That suffix, so the wire id can be rebuilt exactly.
        cache_control: A prompt-caching marker on the message.
        extra: Unknown keys of the wire message, kept verbatim.
        joined: As :attr:`UserMessage.joined`; a result hygiene wrote has ``None``, and
            joins the results right before it.
    """

    kind: Literal["tool_result"] = "tool_result"
    tool_call_id: str
    tool_name: str | None = None
    content: tuple[ToolResultContent, ...] = ()
    content_form: ContentForm = "string"
    is_error: bool = False
    synthesized: bool = False
    role: Literal["tool", "function"] = "tool"
    signature_in_id: bool = False
    thought_signature: str | None = None
    cache_control: dict[str, Any] | None = None
    extra: dict[str, Any] = {}
    joined: bool | None = None

    def text(self) -> str:
        """Join the text blocks, in order."""
        return "".join(b.text for b in self.content if isinstance(b, TextContent))


class OpaqueMessage(BaseModel):
    """A wire message no reader could read, kept as it came, at its place.

    Clients add roles and shapes without notice (Claude Code's mid-conversation system
    messages arrived that way). Such a message is neither dropped nor allowed to stop
    hygiene for the whole request: it is held here, never looked into by a rule, and
    written back exactly; the rules work on the rest.

    Attributes:
        raw: The wire message as given, in its request's shape.
        shape: That shape: a chat message, an Anthropic Messages message or a
            Responses item.
        field: Where the reader stopped (``role``, ``content[2].id``).
        reason: Why, in words that never quote the caller's values.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["opaque"] = "opaque"
    raw: Any
    shape: Literal["chat", "anthropic-messages", "responses"] = "chat"
    field: str = ""
    reason: str = ""


Message = Annotated[
    SystemMessage | UserMessage | AssistantMessage | ToolResultMessage | OpaqueMessage,
    Field(discriminator="kind"),
]
"""One entry of the conversation history."""


class ToolDefinition(BaseModel):
    """A tool the model may call.

    Attributes:
        name: The tool's name.
        description: What it does, when given.
        parameters: Its JSON schema, passed through untouched.
        wire: The full OpenAI ``tools`` entry as received, so it round-trips exactly.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["tool"] = "tool"
    name: str
    description: str | None = None
    parameters: dict[str, Any] | None = None
    wire: dict[str, Any] | None = None


class Context(BaseModel):
    """A request's conversation: system prompt, messages and tools.

    Attributes:
        system_prompt: Instructions that precede the messages. The OpenAI converter
            lifts a leading plain ``{"role": "system", "content": "..."}`` with
            non-blank text here; every other system or developer message stays in
            ``messages`` at its place.
        messages: The conversation history, in order.
        tools: The tools offered to the model.
        input_as_string: OpenAI Responses: the request's ``input`` was a bare string,
            read as one user message. It is written back as that string while the
            context is still exactly one such message, as a list of items otherwise.
        instruction_items: OpenAI Responses: the request's ``instructions`` given as a
            list of input items, verbatim (the model does not read them). Instructions
            given as a string are ``system_prompt``; ``input`` never holds either.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    system_prompt: str | None = None
    messages: tuple[Message, ...] = ()
    tools: tuple[ToolDefinition, ...] = ()
    input_as_string: bool = False
    instruction_items: list[Any] | None = None


MESSAGE_ADAPTER: TypeAdapter[Message] = TypeAdapter(Message)
"""(De)serialises one message of any kind from its tagged JSON."""

CONTEXT_ADAPTER: TypeAdapter[Context] = TypeAdapter(Context)
"""(De)serialises a whole context."""


def context_to_json(context: Context) -> str:
    """Serialise a context to self-describing JSON (every variant tagged by ``kind``).

    Written with the standard ``json`` encoder, which escapes lone surrogates: a stream
    cut inside a surrogate pair leaves one in decoded tool arguments, and the value
    must still serialise and come back equal.
    """
    return json.dumps(CONTEXT_ADAPTER.dump_python(context, mode="json"))


def context_from_json(data: str | bytes) -> Context:
    """Rebuild a context from :func:`context_to_json` output; equal to the original."""
    return CONTEXT_ADAPTER.validate_python(json.loads(data))
