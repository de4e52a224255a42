"""Content parts of Responses items: to neutral blocks and back.

A message item's ``content``, and a ``function_call_output``'s ``output``, is a string or
a list of parts. The parts the neutral model interprets:

- ``input_text`` (user, system and developer messages, tool output) and ``output_text``
  (assistant messages) become :class:`TextContent`; ``annotations``, ``logprobs`` and
  every other key of the part ride in ``extra``;
- ``input_image`` with an ``image_url`` string (an ``https`` URL, or a ``data:`` URL,
  split into MIME type and base64 bytes) becomes :class:`ImageContent` where the message
  may hold an image (user messages and tool output).

Every other part (``input_image`` by ``file_id``, ``input_file``, ``refusal``, text of the
other side's type, anything new) becomes :class:`OpaqueContent` and comes back verbatim.
A ``cache_control`` object on a text or image part is lifted into the block's
``cache_control``, as the chat decoder lifts it (LiteLLM forwards it on the routes it
converts to chat).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final, Literal

from .._build import construct_unchecked
from .._content import ImageContent, OpaqueContent, TextContent
from .._errors import InvalidMessageError
from .._json import copy_dict, copy_json
from .._openai._parts import decode_text, image_source, is_plain_text, lift_cache_control, rest

__all__ = [
    "ABSENT",
    "Side",
    "decode_content",
    "encode_content",
    "encode_part",
    "rest",
]

Side = Literal["user", "system", "assistant"]
"""Whose content a part is: a user message or tool output (text and images), a system
or developer message (text), or an assistant message (output text)."""

ABSENT: Final[Any] = object()
"""A key the item does not have."""

TEXT_TYPE: Final[dict[Side, str]] = {
    "user": "input_text",
    "system": "input_text",
    "assistant": "output_text",
}
"""The part type of text on each side."""

Part = TextContent | ImageContent | OpaqueContent


def _image(part: dict[str, Any], index: int, where: str) -> ImageContent | OpaqueContent:
    url = part.get("image_url")
    if url is None:  # an image by ``file_id``: nothing the model can measure
        return construct_unchecked(OpaqueContent, part=copy_json(part))
    if not isinstance(url, str):
        raise InvalidMessageError(index, f"{where}.image_url", "expected a URL string")
    detail = part.get("detail")
    cache, lifted = lift_cache_control(part)
    lifted += ("type", "image_url")
    if isinstance(detail, str):
        lifted += ("detail",)
    else:
        detail = None
    return construct_unchecked(
        ImageContent,
        **image_source(url),
        detail=detail,
        url_as_string=True,
        cache_control=cache,
        extra=rest(part, lifted),
    )


def decode_part(part: Any, side: Side, index: int, where: str) -> Part:
    """Decode one content part; ``where`` names it in errors (``content[2]``)."""
    if not isinstance(part, dict):
        raise InvalidMessageError(
            index, where, f"expected a content part object, got {type(part).__name__}"
        )
    kind = part.get("type")
    if kind == TEXT_TYPE[side] and isinstance(part.get("text"), str):
        return decode_text(part)
    if kind == "input_image" and side == "user":
        return _image(part, index, where)
    return construct_unchecked(OpaqueContent, part=copy_json(part))


def decode_content(
    content: Any, side: Side, index: int, field: str
) -> tuple[tuple[Part, ...], Literal["string", "list"]]:
    """Decode ``content`` (or ``output``, named by ``field``): a string or a list of parts."""
    if isinstance(content, str):
        return (construct_unchecked(TextContent, text=content),), "string"
    if isinstance(content, list):
        blocks = tuple(
            decode_part(part, side, index, f"{field}[{n}]") for n, part in enumerate(content)
        )
        return blocks, "list"
    if content is ABSENT:
        raise InvalidMessageError(index, field, "missing")
    raise InvalidMessageError(
        index, field, f"expected a string or a list of content parts, got {type(content).__name__}"
    )


def _with(out: dict[str, Any], cache: dict[str, Any] | None, extra: dict[str, Any]) -> None:
    """Add ``cache_control`` and the unknown keys (never over a field the block states)."""
    if cache is not None:
        out["cache_control"] = copy_dict(cache)
    for key, value in extra.items():
        if key not in out:
            out[key] = copy_json(value)


def encode_part(block: object, side: Side) -> Any:
    """Write one neutral block as a content part of ``side``.

    An image is written with its URL as a string (the only form this shape has), so
    ``image_extra`` (keys of a chat ``image_url`` object) is not written.
    """
    if isinstance(block, TextContent):
        out: dict[str, Any] = {"type": TEXT_TYPE[side], "text": block.text}
        _with(out, block.cache_control, block.extra)
        return out
    if isinstance(block, ImageContent):
        if block.data is not None:
            url = f"data:{block.mime_type or 'application/octet-stream'};base64,{block.data}"
        else:
            url = block.url or ""
        out = {"type": "input_image", "image_url": url}
        if block.detail is not None:
            out["detail"] = block.detail
        _with(out, block.cache_control, block.extra)
        return out
    if isinstance(block, OpaqueContent):
        return copy_json(block.part)
    raise TypeError(f"a {type(block).__name__} is not a content part")


def encode_content(blocks: Iterable[object], form: str, side: Side) -> Any:
    """Write content blocks as a string when ``form`` allows it, else as a list of parts.

    Content is required on this shape: no content (``null`` or absent on the chat
    shape) is written as an empty string.
    """
    items = list(blocks)
    if form != "list":
        if not items:
            return ""
        if len(items) == 1 and is_plain_text(items[0]):
            return items[0].text  # type: ignore[attr-defined]
    return [encode_part(b, side) for b in items]
