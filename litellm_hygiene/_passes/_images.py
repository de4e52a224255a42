"""Image passes: placeholders for text-only targets, payloads every target accepts.

Two pure passes over the images of user messages and tool results (the only messages
that may hold them):

- :func:`downgrade_unsupported_images` replaces images by explicit placeholder text
  when the target is known not to accept image input. The stored history keeps its
  images; only this request's copy is downgraded, so switching back to a vision model
  brings them back.
- :func:`sanitize_image_payloads` is the global rule that applies to every target:
  inline images that are broken, oversized or too numerous for the target's limits are
  re-encoded, or replaced by a placeholder that says why. One bad image otherwise fails
  the whole request, and every later request that replays the history.

Image URLs are passed on untouched by both: fetching a caller-supplied URL from a
proxy hook is a server-side request forgery path, so only inline data is ever measured.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import groupby
from typing import Final, TypeAlias

from .._build import rebuilt
from .._content import ImageContent, OpaqueContent, TextContent
from .._messages import Message, ToolResultMessage, UserMessage
from .._policy import Policy
from ._base import Change, Messages, PassContext, PassResult, change
from ._image_codec import (
    ImageFacts,
    ImageProblem,
    ProblemReason,
    decode_base64,
    fit_image,
    inspect_inline_image,
)

__all__ = [
    "DOWNGRADE_STEP",
    "SANITIZE_STEP",
    "downgrade_placeholder",
    "downgrade_unsupported_images",
    "removal_placeholder",
    "sanitize_image_payloads",
]

DOWNGRADE_STEP: Final = "downgrade_unsupported_images"
SANITIZE_STEP: Final = "sanitize_image_payloads"

_Block: TypeAlias = TextContent | ImageContent | OpaqueContent
_Key: TypeAlias = tuple[int, int]  # (message index, block position)

_NOT_ACCEPTED: Final = "the target model does not accept image input"
_REMOVAL_REASONS: Final[Mapping[ProblemReason, str]] = {
    "invalid_base64": "invalid base64 data",
    "undecodable": "not a readable image",
    "too_many_pixels": "too many pixels to decode safely",
    "unshrinkable": "too large for the target model and could not be shrunk to fit",
}


def downgrade_placeholder(count: int, *, tool_result: bool) -> str:
    """The text that stands for ``count`` consecutive images a target cannot accept.

    Explicit text rather than a silent drop: the model is told something was there
    (``[2 images omitted: ...]``), so it does not answer as if the user sent nothing.
    """
    subject = "tool result image" if tool_result else "image"
    if count == 1:
        return f"[{subject} omitted: {_NOT_ACCEPTED}]"
    return f"[{count} {subject}s omitted: {_NOT_ACCEPTED}]"


def removal_placeholder(reason: ProblemReason, *, tool_result: bool) -> str:
    """The text that replaces an inline image no provider could accept, saying why."""
    subject = "tool result image" if tool_result else "image"
    return f"[{subject} removed: {_REMOVAL_REASONS[reason]}]"


def downgrade_unsupported_images(messages: Messages, ctx: PassContext) -> PassResult:
    """Replace images by placeholder text when the target cannot see images.

    Text-only models reject image parts outright (``Invalid content type. image_url is
    only supported by certain models``), so a conversation that once held a screenshot
    could not continue on them. Each maximal run of consecutive images in a user
    message or tool result becomes one placeholder (see :func:`downgrade_placeholder`);
    a prompt-caching marker on the run moves to its placeholder.

    Applies only when ``ctx.policy.downgrade_images`` is set and the target is *known*
    not to accept images (``capabilities.images is False``); when that is unknown, the
    images are left for the provider to judge.

    Returns:
        The new messages (the input itself when nothing changed) and one
        ``images_downgraded`` change per message touched.
    """
    if not ctx.policy.downgrade_images or ctx.target.capabilities.images is not False:
        return messages, []
    replaced: dict[int, tuple[_Block, ...]] = {}
    changes: list[Change] = []
    for index, message in enumerate(messages):
        if not isinstance(message, (UserMessage, ToolResultMessage)):
            continue
        tool_result = isinstance(message, ToolResultMessage)
        content, images, runs = _collapse_image_runs(message.content, tool_result=tool_result)
        if images:
            replaced[index] = content
            detail = f"{images} image(s) -> {runs} placeholder(s)"
            changes.append(
                change(step=DOWNGRADE_STEP, kind="images_downgraded", index=index, detail=detail)
            )
    if not replaced:
        return messages, []
    return _with_content(messages, replaced), changes


def _collapse_image_runs(
    content: Iterable[_Block], *, tool_result: bool
) -> tuple[tuple[_Block, ...], int, int]:
    """Replace each run of images by one placeholder; count images and runs."""
    out: list[_Block] = []
    images = runs = 0
    for is_image, group in groupby(content, key=lambda block: isinstance(block, ImageContent)):
        blocks = list(group)
        if not is_image:
            out.extend(blocks)
            continue
        images += len(blocks)
        runs += 1
        text = downgrade_placeholder(len(blocks), tool_result=tool_result)
        out.append(TextContent(text=text, cache_control=_last_cache_control(blocks)))
    return tuple(out), images, runs


def _last_cache_control(blocks: Iterable[_Block]) -> dict[str, object] | None:
    """The caching marker of the last marked block: where the cached prefix ended."""
    marks = [b.cache_control for b in blocks if isinstance(b, ImageContent) and b.cache_control]
    return marks[-1] if marks else None


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


def sanitize_image_payloads(messages: Messages, ctx: PassContext) -> PassResult:
    """Make every inline image acceptable to the target, or replace it with a reason.

    Providers reject the whole request over one image: invalid base64 or unreadable
    data (``Could not process image``), a side over the limit (Anthropic: 8000 px, or
    2000 px when a request holds more than 20 images), a file over the per-image limit
    (Anthropic 5 MB, Bedrock 3.75 MB, OpenAI 20 MB), or too many image bytes in one
    request (Anthropic 32 MB, Gemini 20 MB inline). The limits come from the policy:

    1. Invalid base64, unreadable images and decompression bombs become placeholders
       (:func:`removal_placeholder`). Base64 missing only its padding is padded.
    2. An image over ``max_image_bytes`` or the effective side limit is downscaled and
       re-encoded (see :func:`~._image_codec.fit_image`); its MIME type becomes the
       real one. One that cannot be made to fit becomes a placeholder.
    3. When the request's inline bytes exceed ``max_total_image_bytes``, the largest
       images are shrunk first until the total fits.

    Images that already fit keep their data and MIME type byte for byte (even a wrong
    declared MIME type: correcting it is not worth a re-encode); measuring them costs a
    base64 decode and a header read, never a pixel decode. URL images are never
    fetched, only counted towards the many-images rule.

    Returns:
        The new messages (the input itself when nothing changed) and one change per
        image changed: ``image_reencoded``, ``image_base64_padded``,
        ``image_invalid_base64``, ``image_undecodable``, ``image_too_many_pixels`` or
        ``image_unshrinkable``.
    """
    sites = _image_sites(messages)
    facts = {s.key: inspect_inline_image(s.image.data) for s in sites if s.image.data is not None}
    if not facts:
        return messages, []
    usable = sum(s.image.data is None and s.image.url is not None for s in sites)
    usable += sum(isinstance(f, ImageFacts) for f in facts.values())
    side = _effective_side(ctx.policy, usable)
    inline = [s for s in sites if s.key in facts]
    fates: dict[_Key, _Fate] = {}
    for site in inline:
        fate = _settle(site, facts[site.key], ctx.policy.max_image_bytes, side)
        if fate is not None:
            fates[site.key] = fate
    if ctx.policy.max_total_image_bytes is not None:
        fates |= _fit_total(inline, facts, fates, ctx.policy.max_total_image_bytes, side)
    if not fates:
        return messages, []
    return _apply_fates(messages, fates), _fate_changes(fates)


def _image_sites(messages: Messages) -> list[_Site]:
    """Every image of every user message and tool result, in order."""
    return [
        _Site((index, position), block, isinstance(message, ToolResultMessage))
        for index, message in enumerate(messages)
        if isinstance(message, (UserMessage, ToolResultMessage))
        for position, block in enumerate(message.content)
        if isinstance(block, ImageContent)
    ]


def _effective_side(policy: Policy, image_count: int) -> int:
    """The per-side limit: stricter when the request holds many images."""
    many, many_side = policy.many_images_count, policy.many_images_max_side
    if many is not None and many_side is not None and image_count > many:
        return min(policy.max_image_side, many_side)
    return policy.max_image_side


def _settle(
    site: _Site, facts: ImageFacts | ImageProblem, max_bytes: int, max_side: int
) -> _Fate | None:
    """Apply the per-image rules; ``None`` when the image goes out unchanged."""
    if isinstance(facts, ImageProblem):
        return _removed(site, facts)
    if facts.byte_size > max_bytes or max(facts.width, facts.height) > max_side:
        return _reencode(site, facts, max_bytes, max_side)
    if facts.missing_padding:
        data = f"{site.image.data}{'=' * (-len(site.image.data or '') % 4)}"
        block = rebuilt(site.image, data=data)
        return _Fate(block, "image_base64_padded", "padding added", facts.byte_size)
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
    block = rebuilt(site.image, data=data, mime_type=result.mime_type)
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
    return _Fate(block, f"image_{problem.reason}", problem.detail, 0)


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
        shrunk[site.key] = fate
        excess -= sizes[site.key] - fate.byte_size
    return shrunk


def _facts(value: ImageFacts | ImageProblem) -> ImageFacts:
    assert isinstance(value, ImageFacts)
    return value


def _apply_fates(messages: Messages, fates: Mapping[_Key, _Fate]) -> Messages:
    """Put each fate's block in place of its image."""
    by_message: dict[int, dict[int, _Block]] = {}
    for (index, position), fate in fates.items():
        by_message.setdefault(index, {})[position] = fate.block
    replaced: dict[int, tuple[_Block, ...]] = {}
    for index, blocks in by_message.items():
        message = messages[index]
        assert isinstance(message, (UserMessage, ToolResultMessage))
        replaced[index] = tuple(blocks.get(p, b) for p, b in enumerate(message.content))
    return _with_content(messages, replaced)


def _fate_changes(fates: Mapping[_Key, _Fate]) -> list[Change]:
    return [
        change(step=SANITIZE_STEP, kind=fates[key].kind, index=key[0], detail=fates[key].detail)
        for key in sorted(fates)
    ]


def _with_content(messages: Messages, replaced: Mapping[int, tuple[_Block, ...]]) -> Messages:
    """A new tuple in which the listed messages carry new content; others are shared."""
    out: list[Message] = [
        rebuilt(message, content=replaced[index]) if index in replaced else message
        for index, message in enumerate(messages)
    ]
    return tuple(out)


def _size(byte_size: int) -> str:
    """A human size for change details (binary units, like the providers' limits)."""
    if byte_size < 1024 * 1024:
        return f"{byte_size / 1024:.0f} KB"
    return f"{byte_size / (1024 * 1024):.1f} MB"
