"""Content blocks of the neutral conversation model.

A message's payload is a tuple of blocks. Each block carries a defaulted ``kind`` tag,
so a block serialises to self-describing JSON and is never confused with an OpenAI wire
part (which uses ``type``). Which blocks a message may hold is part of the model:

=================  ===========  ================  =================  =============
block              UserMessage  AssistantMessage  ToolResultMessage  SystemMessage
=================  ===========  ================  =================  =============
TextContent        yes          yes               yes                yes
ImageContent       yes          no                yes                no
ThinkingContent    no           yes               no                 no
ToolCall           no           yes               no                 no
OpaqueContent      yes          yes               yes                yes
=================  ===========  ================  =================  =============

Wire details that the neutral model does not interpret (a part's unknown keys, the
exact JSON text of tool arguments, where a signature travelled) are kept in explicit
slots so the OpenAI converter can rebuild its input exactly.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

__all__ = [
    "ImageContent",
    "OpaqueContent",
    "SignatureSite",
    "TextContent",
    "ThinkingContent",
    "ThinkingOrigin",
    "ToolCall",
    "ToolCallOrigin",
]


class _Block(BaseModel):
    """Common configuration: immutable, no unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class TextContent(_Block):
    """Plain text.

    Attributes:
        text: The text itself.
        text_signature: Opaque provider metadata bound to this text (Gemini returns
            thought signatures on text parts). Valid only for the model that produced it.
        cache_control: A prompt-caching marker on the part (Anthropic, via LiteLLM).
        extra: Keys of the wire part that the model does not interpret, kept verbatim.
        item: OpenAI Responses: this text opens an assistant ``message`` item, and these
            are the item's keys other than ``role`` and ``content`` (``type``, ``id``,
            ``status``, unknown keys), verbatim. ``None``: the text is a further
            ``output_text`` part of the item the text before it opened, or it came from
            another shape (then it opens an item only when no text comes right before
            it). One assistant message holds several Responses items, so the item
            boundaries travel on the blocks. The chat shape has no place for it.
        item_as_string: That item gave its ``content`` as this bare string, not as a
            list of ``output_text`` parts.
    """

    kind: Literal["text"] = "text"
    text: str
    text_signature: str | None = None
    cache_control: dict[str, Any] | None = None
    extra: dict[str, Any] = {}
    item: dict[str, Any] | None = None
    item_as_string: bool = False


class ImageContent(_Block):
    """An image, inline (base64 bytes and MIME type) or by URL.

    Exactly one of ``data`` and ``url`` is set. Inline images can be measured and
    re-encoded; URL images are only ever passed on, never fetched (fetching from a hook
    is a server-side request forgery path).

    Attributes:
        data: Base64-encoded bytes of an inline image.
        mime_type: MIME type of an inline image (``image/png``).
        url: An ``http(s)`` URL, or a ``data:`` URL the converter could not split.
        detail: OpenAI's ``detail`` hint (``auto``, ``low``, ``high``), when given.
        url_as_string: The wire part gave ``image_url`` as a bare string rather than an
            object (LiteLLM accepts both).
        cache_control: A prompt-caching marker on the part.
        extra: Unknown keys of the part; ``image_extra`` unknown keys of ``image_url``.
    """

    kind: Literal["image"] = "image"
    data: str | None = None
    mime_type: str | None = None
    url: str | None = None
    detail: str | None = None
    url_as_string: bool = False
    cache_control: dict[str, Any] | None = None
    extra: dict[str, Any] = {}
    image_extra: dict[str, Any] = {}


ThinkingOrigin = Literal["thinking_blocks", "reasoning_content", "reasoning_items", "content"]
"""Where a thinking block travelled on the OpenAI wire: LiteLLM's ``thinking_blocks``
list, the flat ``reasoning_content`` string, an OpenAI Responses reasoning item kept in
``reasoning_items`` (summary as text, ``encrypted_content`` as signature), or a
``thinking`` part of ``content``."""


class ThinkingContent(_Block):
    """Model reasoning.

    Attributes:
        thinking: The readable reasoning text (empty when redacted).
        signature: The provider's signature over the reasoning; for redacted thinking,
            the encrypted payload. Replayable only to the model that produced it.
        redacted: The provider withheld the text; only ``signature`` is meaningful.
        origin: Where the block travelled on the OpenAI wire.
        cache_control: A prompt-caching marker on the block.
        extra: Unknown keys of the wire block, kept verbatim.
    """

    kind: Literal["thinking"] = "thinking"
    thinking: str
    signature: str | None = None
    redacted: bool = False
    origin: ThinkingOrigin = "thinking_blocks"
    cache_control: dict[str, Any] | None = None
    extra: dict[str, Any] = {}


SignatureSite = Literal["id", "provider_specific_fields", "function.provider_specific_fields"]
"""A place on LiteLLM's OpenAI shape where a tool call's thought signature travels."""

ToolCallOrigin = Literal["tool_calls", "function_call"]
"""How a call travelled: the ``tool_calls`` list, or the legacy ``function_call``."""


class ToolCall(_Block):
    """A request by the model to run a tool.

    Attributes:
        id: The correlation key a ``ToolResultMessage`` echoes. May be empty (Gemini's
            OpenAI-compatible endpoint returns ``""``; legacy function calls have none).
        name: The tool's name.
        arguments: The decoded JSON arguments (best effort: a truncated or invalid
            string still yields an object).
        raw_arguments: The exact argument text received, kept so the wire round trip is
            exact; ``None`` once arguments are rewritten or when they arrived decoded.
        thought_signature: Gemini's opaque signature on the call. Valid only for the
            model that produced it.
        signature_sites: Where the signature travelled on LiteLLM's OpenAI shape, so the
            encoder writes it back to the same places (or to none once dropped): inside
            the id (``call_<id>__thought__<signature>``), the call's
            ``provider_specific_fields``, or its function's ``provider_specific_fields``.
        origin: How the call travelled on the OpenAI wire.
        wire_type: The wire call's ``type`` (``function``); ``None`` when it had none.
        extra: Unknown keys of the wire call (``index``, ``provider_specific_fields``...).
        function_extra: Unknown keys of the wire call's ``function`` object.
        item_id: OpenAI Responses: the ``id`` of the ``function_call`` item (``fc_...``),
            which is not the call's ``id`` (the item's ``call_id``, which results echo);
            ``None`` when the item had none or the call came from another shape. Its own
            field, not a key of ``extra``: the chat shape writes ``extra`` into the tool
            call, whose ``id`` is the call id.
        item_extra: OpenAI Responses: keys of the ``function_call`` item that the model
            does not interpret (``status``, unknown keys), verbatim.
    """

    kind: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    arguments: dict[str, Any] = {}
    raw_arguments: str | None = None
    thought_signature: str | None = None
    signature_sites: tuple[SignatureSite, ...] = ()
    origin: ToolCallOrigin = "tool_calls"
    wire_type: str | None = "function"
    extra: dict[str, Any] = {}
    function_extra: dict[str, Any] = {}
    item_id: str | None = None
    item_extra: dict[str, Any] = {}


class OpaqueContent(_Block):
    """A wire part the model does not interpret (audio, files, refusals, new types).

    It is carried through every pass untouched and comes back out exactly as it came
    in, so nothing a caller sends is dropped because the model does not know it.

    Attributes:
        part: The wire part, verbatim.
    """

    kind: Literal["opaque"] = "opaque"
    part: Any

    @property
    def part_type(self) -> str | None:
        """The wire part's ``type``, when it has one."""
        if isinstance(self.part, dict):
            value = self.part.get("type")
            return value if isinstance(value, str) else None
        return None
