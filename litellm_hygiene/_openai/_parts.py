"""Content parts: OpenAI wire parts to neutral blocks and back.

A part the neutral model interprets (text, images, thinking) becomes a typed block whose
uninterpreted keys ride along in ``extra``; every other part (audio, files, documents,
refusals, types invented after this was written) becomes :class:`OpaqueContent` and
comes back out verbatim.
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterable, Mapping, Sequence
from typing import Any, Final, Literal

from .._build import construct_unchecked, copy_unchecked
from .._content import (
    ImageContent,
    OpaqueContent,
    TextContent,
    ThinkingContent,
)
from .._errors import InvalidMessageError
from .._json import copy_dict, copy_json
from .._view._interface import ThinkingView

__all__ = [
    "ABSENT",
    "DATA_URL",
    "Role",
    "decode_content",
    "decode_text",
    "decode_thinking_entry",
    "encode_content",
    "encode_thinking_block",
    "image_source",
    "inline_image_chars",
    "is_plain_text",
    "lift_cache_control",
    "read_thinking_entry",
    "rest",
]

Role = Literal["system", "user", "assistant", "tool_result"]

DATA_URL: Final = re.compile(r"data:([\w.+-]+/[\w.+-]+);base64,(.*)", re.DOTALL)
"""An inline image the converter splits into MIME type and base64 bytes."""
_IMAGE_ROLES: Final = frozenset({"user", "tool_result"})

Block = TextContent | ImageContent | ThinkingContent | OpaqueContent


def rest(part: dict[str, Any], lifted: Container[str]) -> dict[str, Any]:
    """Copy the keys of ``part`` that were not lifted into typed fields.

    Any shape's part, item or message: the Anthropic and Responses readers use it too.
    """
    return {k: copy_json(v) for k, v in part.items() if k not in lifted}


def lift_cache_control(part: dict[str, Any]) -> tuple[dict[str, Any] | None, tuple[str, ...]]:
    """The part's ``cache_control`` object (copied), and the keys lifted with it."""
    value = part.get("cache_control")
    if isinstance(value, dict):
        return copy_json(value), ("cache_control",)
    return None, ()


def image_source(url: str) -> dict[str, Any]:
    """An image URL's fields: the MIME type and base64 bytes of a ``data:`` URL, else it."""
    match = DATA_URL.fullmatch(url)
    if match is None:
        return {"url": url}
    return {"mime_type": match.group(1), "data": match.group(2)}


def decode_text(part: dict[str, Any]) -> TextContent:
    """A text part (its ``text`` a string) as a :class:`TextContent`."""
    cache, lifted = lift_cache_control(part)
    return construct_unchecked(
        TextContent,
        text=part["text"],
        cache_control=cache,
        extra=rest(part, ("type", "text", *lifted)),
    )


def _decode_image(part: dict[str, Any], index: int, where: str) -> ImageContent:
    raw = part.get("image_url")
    if isinstance(raw, str):
        url, detail, image_extra, as_string = raw, None, {}, True
    elif isinstance(raw, dict) and isinstance(raw.get("url"), str):
        url, as_string = raw["url"], False
        detail = raw.get("detail") if isinstance(raw.get("detail"), str) else None
        image_extra = rest(raw, ["url", "detail"] if detail is not None else ["url"])
    else:
        raise InvalidMessageError(
            index, f"{where}.image_url", "expected a URL string or an object with a 'url' string"
        )
    cache, lifted = lift_cache_control(part)
    return construct_unchecked(
        ImageContent,
        **image_source(url),
        detail=detail,
        url_as_string=as_string,
        cache_control=cache,
        extra=rest(part, ("type", "image_url", *lifted)),
        image_extra=image_extra,
    )


_VIEW: Final = tuple.__new__


def read_thinking_entry(part: Any) -> ThinkingView | None:
    """A ``thinking``/``redacted_thinking`` entry as :func:`decode_thinking_entry` reads it.

    ``None`` exactly where the decoder gives ``None``; nothing is copied.
    """
    if not isinstance(part, dict):
        return None
    kind = part.get("type")
    if kind == "thinking":
        text = part.get("thinking")
        if isinstance(text, str):
            signature = part.get("signature")
            signed = signature if isinstance(signature, str) else None
            return _VIEW(ThinkingView, (text, signed, False, "thinking_blocks", part.get("id")))
    elif kind == "redacted_thinking":
        data = part.get("data")
        if isinstance(data, str):
            return _VIEW(ThinkingView, ("", data, True, "thinking_blocks", part.get("id")))
    return None


def decode_thinking_entry(part: Any) -> ThinkingContent | None:
    """Decode a ``thinking``/``redacted_thinking`` block (content part or list entry)."""
    view = read_thinking_entry(part)
    if view is None:
        return None
    cache, lifted = lift_cache_control(part)
    if view.redacted:
        extra = rest(part, ("type", "data", *lifted))
        return construct_unchecked(
            ThinkingContent,
            thinking="",
            signature=view.signature,
            redacted=True,
            cache_control=cache,
            extra=extra,
        )
    if view.signature is not None:
        lifted += ("signature",)
    return construct_unchecked(
        ThinkingContent,
        thinking=view.thinking,
        signature=view.signature,
        cache_control=cache,
        extra=rest(part, ("type", "thinking", *lifted)),
    )


def decode_part(part: Any, role: Role, index: int, where: str) -> Block:
    """Decode one content part of a message with ``role``."""
    if not isinstance(part, dict):
        raise InvalidMessageError(index, where, f"expected a content part object, got {_tn(part)}")
    kind = part.get("type")
    if kind == "text" and isinstance(part.get("text"), str):
        return decode_text(part)
    if kind == "image_url" and role in _IMAGE_ROLES:
        return _decode_image(part, index, where)
    if role == "assistant" and kind in ("thinking", "redacted_thinking"):
        block = decode_thinking_entry(part)
        if block is not None:
            return copy_unchecked(block, origin="content")
    return construct_unchecked(OpaqueContent, part=copy_json(part))


def decode_content(
    content: Any, role: Role, index: int
) -> tuple[tuple[Block, ...], Literal["string", "list", "null"]]:
    """Decode a message's ``content`` (string, list of parts, or null)."""
    if isinstance(content, str):
        return (construct_unchecked(TextContent, text=content),), "string"
    if content is None:
        return (), "null"
    if isinstance(content, list):
        blocks = tuple(
            decode_part(part, role, index, f"content[{i}]") for i, part in enumerate(content)
        )
        return blocks, "list"
    raise InvalidMessageError(
        index, "content", f"expected a string, a list of parts, or null; got {_tn(content)}"
    )


def _tn(value: Any) -> str:
    return type(value).__name__


def is_plain_text(block: object) -> bool:
    """A text block with nothing but text: writable as a bare string.

    A text signature does not count: it travels in the message's provider fields.
    """
    return isinstance(block, TextContent) and block.cache_control is None and not block.extra


def encode_thinking_block(block: ThinkingContent) -> dict[str, Any]:
    """Write a thinking block in LiteLLM's ``thinking_blocks`` / content-part shape."""
    out = copy_dict(block.extra)
    if block.redacted:
        out["type"] = "redacted_thinking"
        out["data"] = block.signature or ""
    else:
        out["type"] = "thinking"
        out["thinking"] = block.thinking
        if block.signature is not None:
            out["signature"] = block.signature
    if block.cache_control is not None:
        out["cache_control"] = copy_json(block.cache_control)
    return out


def _encode_image(block: ImageContent) -> dict[str, Any]:
    if block.data is not None:
        url = f"data:{block.mime_type or 'application/octet-stream'};base64,{block.data}"
    else:
        url = block.url or ""
    out = copy_dict(block.extra)
    out["type"] = "image_url"
    if block.url_as_string and block.detail is None and not block.image_extra:
        out["image_url"] = url
    else:
        image = copy_dict(block.image_extra)
        image["url"] = url
        if block.detail is not None:
            image["detail"] = block.detail
        out["image_url"] = image
    if block.cache_control is not None:
        out["cache_control"] = copy_json(block.cache_control)
    return out


def encode_part(block: object) -> Any:
    """Write one neutral block as an OpenAI content part."""
    if isinstance(block, TextContent):
        out = copy_dict(block.extra)
        out["type"] = "text"
        out["text"] = block.text
        if block.cache_control is not None:
            out["cache_control"] = copy_json(block.cache_control)
        return out
    if isinstance(block, ImageContent):
        return _encode_image(block)
    if isinstance(block, ThinkingContent):
        return encode_thinking_block(block)
    if isinstance(block, OpaqueContent):
        return copy_json(block.part)
    raise TypeError(f"cannot write {type(block).__name__} as a content part")


def encode_content(blocks: Iterable[object], form: str) -> Any:
    """Write content blocks in the message's wire form (string when representable).

    Returns ``_ABSENT`` when the content key should not be written at all.
    """
    items = list(blocks)
    if not items:
        if form == "string":
            return ""
        if form == "list":
            return []
        return None if form == "null" else ABSENT
    if form != "list" and len(items) == 1 and is_plain_text(items[0]):
        return items[0].text  # type: ignore[attr-defined]
    return [encode_part(b) for b in items]


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Final[Any] = _Absent()
"""Marker: the key is not written."""


def inline_image_chars(messages: Sequence[Any], stop_above: int) -> int:
    """The length of the ``data:`` image URLs in the messages' content parts.

    Counted until the total passes ``stop_above``; an unreadable message counts 0.
    """
    total = 0
    for message in messages:
        if type(message) is dict:
            plain: dict[str, Any] = message  # a dict's own lookups, without a method call
            content = plain.get("content")
        else:
            content = message.get("content") if isinstance(message, Mapping) else None
        if not isinstance(content, list):
            continue  # no parts, no images: most messages
        for part in content:
            # A dict is asked first: an ``isinstance`` against the ABC costs ten times more.
            if not (type(part) is dict or isinstance(part, Mapping)):
                continue
            if part.get("type") == "image_url":
                raw = part.get("image_url")
                url = raw.get("url") if isinstance(raw, Mapping) else raw
                if isinstance(url, str) and url.startswith("data:"):
                    total += len(url)
        if total > stop_above:
            break
    return total
