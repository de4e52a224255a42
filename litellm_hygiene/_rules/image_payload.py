"""Inline images every target can take: re-encoded to its limits, or replaced with a reason.

Providers reject the whole request over one image: invalid base64 or unreadable data
(``Could not process image``), a side over the limit (Anthropic: 8000 px, or 2000 px when
a request holds more than 20 images: ``At least one of the image dimensions exceed max
allowed size for many-image requests: 2000 pixels``), a file over the per-image limit
(Anthropic 5 MB, Bedrock 3.75 MB, OpenAI 20 MB), or too many image bytes in one request
(Anthropic 32 MB, Gemini 20 MB inline). The limits come from the policy:

1. Invalid base64, unreadable images and decompression bombs become placeholders that
   say why. Base64 missing only its padding is padded.
2. An image whose declared MIME type is not what its bytes are (a JPEG sent as
   ``image/png``, any image as ``image/heic`` or ``application/octet-stream``) gets the
   type of its bytes: Anthropic rejects a type that does not match them.
3. An image over ``max_image_bytes`` or the effective side limit is downscaled and
   re-encoded (see :func:`~._image_codec.fit_image`); its MIME type becomes the real
   one. One that cannot be made to fit becomes a placeholder.
4. When the request's inline bytes exceed ``max_total_image_bytes``, the largest images
   are shrunk first until the total fits.

Images that already fit keep their data and MIME type byte for byte; measuring them
costs a header read, never a pixel decode. URL images are never fetched (from a hook
that is a server-side request forgery path), only counted towards the many-images rule.
This rule applies to every target.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import ClassVar, Final, TypeAlias

from .._build import copy_unchecked
from .._content import ImageContent, OpaqueContent, TextContent
from .._messages import ToolResultMessage, UserMessage
from .._policy import Policy
from .._view import IMAGES, INLINE_IMAGES
from ._codes import Code
from ._conversation import Conversation, Slot
from ._findings import Finding, Problem
from ._image_codec import (
    ImageFacts,
    ImageProblem,
    ProblemReason,
    decode_base64,
    fit_image,
    inspect_inline_image,
)
from ._rule import Rule
from ._wording import ErrorKind

__all__ = ["ImagePayload", "removal_placeholder"]

_Block: TypeAlias = TextContent | ImageContent | OpaqueContent
_Key: TypeAlias = tuple[int, int]  # (message index, block position)
_MB: Final = 1024 * 1024

_REMOVAL_REASONS: Final[Mapping[ProblemReason, str]] = {
    "invalid_base64": "invalid base64 data",
    "undecodable": "not a readable image",
    "too_many_pixels": "too many pixels to decode safely",
    "unshrinkable": "too large for the target model and could not be shrunk to fit",
}


def removal_placeholder(reason: ProblemReason, *, tool_result: bool) -> str:
    """The text that replaces an inline image no provider could accept, saying why."""
    subject = "tool result image" if tool_result else "image"
    return f"[{subject} removed: {_REMOVAL_REASONS[reason]}]"


@dataclass(frozen=True)
class _Site:
    """An image found in a user message or tool result."""

    key: _Key
    image: ImageContent
    tool_result: bool


@dataclass(frozen=True)
class _Fate:
    """What becomes of one inline image, and what it then weighs in the request."""

    block: ImageContent | TextContent
    kind: str
    detail: str
    byte_size: int
    error: ErrorKind | None = None
    values: Mapping[str, object] = field(default_factory=dict)

    def problem(self, position: int) -> Problem:
        """The fate as a finding: what was wrong, and what the provider says of it."""
        reason = f"{self.kind.removeprefix('image_').replace('_', ' ')}: {self.detail}"
        return Problem(
            f"content[{position}].image_url",
            reason,
            self.error,
            local=position,
            values=self.values,
        )


def _image_sites(conv: Conversation) -> list[_Site]:
    """Every image of every user message and tool result, in order."""
    sites: list[_Site] = []
    for index, slot in enumerate(conv.slots):
        if not slot.facts.flags & IMAGES:
            continue
        message = conv.message(index)
        if not isinstance(message, UserMessage) and not isinstance(message, ToolResultMessage):
            continue
        tool_result = isinstance(message, ToolResultMessage)
        sites += [
            _Site((index, position), block, tool_result)
            for position, block in enumerate(message.content)
            if isinstance(block, ImageContent)
        ]
    return sites


def _effective_side(policy: Policy, image_count: int) -> int:
    """The per-side limit: stricter when the request holds many images."""
    many, many_side = policy.many_images_count, policy.many_images_max_side
    if many is not None and many_side is not None and image_count > many:
        return min(policy.max_image_side, many_side)
    return policy.max_image_side


def _settle(
    site: _Site, facts: ImageFacts | ImageProblem, policy: Policy, max_side: int
) -> _Fate | None:
    """Apply the per-image rules; ``None`` when the image goes out unchanged."""
    if isinstance(facts, ImageProblem):
        return _removed(site, facts)
    max_bytes = policy.max_image_bytes
    if facts.byte_size > max_bytes or max(facts.width, facts.height) > max_side:
        fate = _reencode(site, facts, max_bytes, max_side)
        if facts.byte_size > max_bytes:
            encoded_limit = (max_bytes * 4 + 2) // 3  # some providers measure the base64 text
            values = {
                "n": facts.byte_size,
                "limit": max_bytes,
                "n_b64": len(site.image.data or ""),
                "limit_b64": encoded_limit,
                "limit_b64_mb": f"{encoded_limit / _MB:g}",
            }
            return replace(fate, error="image_too_large", values=values)
        many = max_side < policy.max_image_side  # the stricter limit of many-image requests
        return replace(
            fate, error="image_side_many" if many else "image_side", values={"limit": max_side}
        )
    declared = site.image.mime_type
    if facts.mime_type is not None and declared != facts.mime_type:
        data = site.image.data
        if facts.missing_padding:
            data = f"{data}{'=' * (-len(data or '') % 4)}"
        block = copy_unchecked(site.image, data=data, mime_type=facts.mime_type)
        detail = f"declared {declared or 'no type'}, the bytes are {facts.mime_type}"
        values = {"declared": declared or "", "actual": facts.mime_type}
        return _Fate(block, "image_type_fixed", detail, facts.byte_size, "image_media_type", values)
    if facts.missing_padding:
        data = f"{site.image.data}{'=' * (-len(site.image.data or '') % 4)}"
        block = copy_unchecked(site.image, data=data)
        shown = {"sig": (site.image.data or "")[:64]}
        fate = _Fate(block, "image_base64_padded", "padding added", facts.byte_size)
        return replace(fate, error="image_base64", values=shown)
    return None


def _reencode(site: _Site, facts: ImageFacts, max_bytes: int, max_side: int) -> _Fate:
    """Shrink one image from its original bytes, or remove it when it cannot fit."""
    decoded = decode_base64(site.image.data or "")
    if decoded is None:  # pragma: no cover - inspected as valid base64 already
        return _removed(site, ImageProblem("invalid_base64", "not valid base64"))
    result = fit_image(decoded[0], max_bytes=max_bytes, max_side=max_side)
    if isinstance(result, ImageProblem):
        return _removed(site, result)
    data = base64.b64encode(result.data).decode("ascii")
    block = copy_unchecked(site.image, data=data, mime_type=result.mime_type)
    out_format = result.mime_type.removeprefix("image/").upper()
    detail = (
        f"{facts.width}x{facts.height} {facts.format} -> "
        f"{result.width}x{result.height} {out_format}, "
        f"{_size(facts.byte_size)} -> {_size(len(result.data))}"
    )
    return _Fate(block, "image_reencoded", detail, len(result.data))


def _removed(site: _Site, problem: ImageProblem) -> _Fate:
    text = removal_placeholder(problem.reason, tool_result=site.tool_result)
    block = TextContent(text=text, cache_control=site.image.cache_control)
    error: ErrorKind | None = "image_base64" if problem.reason == "invalid_base64" else None
    shown = (site.image.data or "")[:64]
    return _Fate(block, f"image_{problem.reason}", problem.detail, 0, error, {"sig": shown})


def _fit_total(
    inline: list[_Site],
    facts: Mapping[_Key, ImageFacts | ImageProblem],
    fates: Mapping[_Key, _Fate],
    limit: int,
    max_side: int,
) -> dict[_Key, _Fate]:
    """Shrink the largest images first until the request's inline bytes fit ``limit``.

    Each image shrinks at most once, from its original bytes, to whichever is larger:
    what removes the remaining excess, or an equal share of the limit. So the loop ends
    after one pass over the images, and a request of many equal images is shared out
    evenly rather than one image being crushed.
    """
    sizes = {
        s.key: fates[s.key].byte_size if s.key in fates else _facts(facts[s.key]).byte_size
        for s in inline
        if isinstance(facts[s.key], ImageFacts)
    }
    excess = sum(sizes.values()) - limit
    if excess <= 0:
        return {}
    share = limit // len(sizes)
    shrunk: dict[_Key, _Fate] = {}
    for site in sorted((s for s in inline if s.key in sizes), key=lambda s: -sizes[s.key]):
        budget = max(sizes[site.key] - excess, share)
        if excess <= 0 or budget >= sizes[site.key]:
            continue
        fate = _reencode(site, _facts(facts[site.key]), budget, max_side)
        # As sent, the provider rejects the request for its total, not this image.
        shrunk[site.key] = fate = replace(fate, error="images_total", values={"limit": limit})
        excess -= sizes[site.key] - fate.byte_size
    return shrunk


def _facts(value: ImageFacts | ImageProblem) -> ImageFacts:
    assert isinstance(value, ImageFacts)
    return value


def _size(byte_size: int) -> str:
    """A human size for change details (binary units, like the providers' limits)."""
    if byte_size < 1024 * 1024:
        return f"{byte_size / 1024:.0f} KB"
    return f"{byte_size / (1024 * 1024):.1f} MB"


def _fates(conv: Conversation) -> dict[_Key, _Fate]:
    """What becomes of each inline image that cannot go out as it is."""
    sites = _image_sites(conv)
    facts = {s.key: inspect_inline_image(s.image.data) for s in sites if s.image.data is not None}
    if not facts:
        return {}
    policy = conv.ctx.policy
    usable = sum(s.image.data is None and s.image.url is not None for s in sites)
    usable += sum(isinstance(f, ImageFacts) for f in facts.values())
    side = _effective_side(policy, usable)
    inline = [s for s in sites if s.key in facts]
    fates: dict[_Key, _Fate] = {}
    for site in inline:
        fate = _settle(site, facts[site.key], policy, side)
        if fate is not None:
            fates[site.key] = fate
    if policy.max_total_image_bytes is not None:
        fates |= _fit_total(inline, facts, fates, policy.max_total_image_bytes, side)
    return fates


class ImagePayload(Rule):
    """Re-encode or replace the inline images the target cannot take."""

    code: ClassVar[Code] = "image_payload"

    def find(self, conv: Conversation) -> list[Finding]:
        """Each message holding an inline image that cannot go out as it is."""
        if not any(slot.facts.flags & INLINE_IMAGES for slot in conv.slots):
            return []
        by_message: dict[int, list[Problem]] = {}
        for (index, position), fate in sorted(_fates(conv).items()):
            by_message.setdefault(index, []).append(fate.problem(position))
        return [Finding(index, tuple(problems)) for index, problems in by_message.items()]

    def fix(self, conv: Conversation, found: Sequence[Finding]) -> Conversation:
        """Put each image's fate in its place."""
        by_message: dict[int, dict[int, _Block]] = {}
        for (index, position), fate in _fates(conv).items():
            by_message.setdefault(index, {})[position] = fate.block
        slots: list[Slot] = list(conv.slots)
        for index, blocks in by_message.items():
            message = conv.message(index)
            assert isinstance(message, UserMessage) or isinstance(message, ToolResultMessage)
            content = tuple(blocks.get(p, b) for p, b in enumerate(message.content))
            slots[index] = conv.slot_for(
                copy_unchecked(message, content=content), like=slots[index]
            )
        return conv.with_slots(slots)
