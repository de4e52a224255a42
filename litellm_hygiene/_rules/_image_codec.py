"""Measure and re-encode inline images: the pure core of image sanitization.

Providers reject a whole request over one bad image (``image exceeds 5 MB maximum``,
``At least one of the image dimensions exceed max allowed size: 8000 pixels``,
``Could not process image``), and the image then sits in the history, so every retry
and every fallback model fails the same way. This module answers two questions about a
base64 payload without touching anything else:

- :func:`inspect_inline_image`: what is it (decoded size, dimensions, true format)?
  The base64 text is validated in one fast scan and only a prefix holding the image
  *header* is decoded, so measuring an image that already fits costs no pixel decoding
  and no full base64 decode.
- :func:`fit_image`: re-encode it within a byte budget and a side limit, or say why
  that is impossible.

Decompression bombs (a tiny file that declares a huge canvas) are stopped before any
pixel is allocated: the declared width and height are checked against
:data:`MAX_DECODE_PIXELS` first, and Pillow's own bomb warnings and errors are caught
here, so none escapes to the caller (tests run with warnings as errors). Catching them
uses ``warnings.catch_warnings``, which swaps the process-wide filter list: harmless on
an event loop, racy if several threads sanitize images at once.

Remote URLs are never fetched here or anywhere in the package (server-side request
forgery); only inline ``data`` can be measured.
"""

from __future__ import annotations

import base64
import io
import math
import string
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final, Literal

from PIL import Image, ImageOps

__all__ = [
    "HEADER_PREFIXES",
    "MAX_DECODE_PIXELS",
    "EncodedImage",
    "ImageFacts",
    "ImageProblem",
    "ProblemReason",
    "decode_base64",
    "fit_image",
    "inspect_inline_image",
]

MAX_DECODE_PIXELS: Final = 50_000_000
"""Largest canvas (width x height) this package decodes into memory.

50 megapixels is 200 MB as RGBA: enough for any photo or screenshot a provider
accepts after downscaling, low enough that a crafted header cannot exhaust a proxy's
memory. It is lower than Pillow's own bomb threshold (about 89 megapixels), so this
check, not Pillow's, decides. Images that already fit are never decoded, so the limit
only applies to images that must be re-encoded. JPEG images are checked at the reduced
size the decoder can produce directly (1/2, 1/4 or 1/8 scale)."""

JPEG_QUALITIES: Final = (85, 70, 55, 40)
"""JPEG qualities tried in order at each size before the size itself is reduced."""

HEADER_PREFIXES: Final = (4 * 1024, 64 * 1024)
"""Base64 prefixes, in characters, decoded in turn to read an image's header before the
whole payload is. 4 Ki characters (3 KiB) hold PNG, GIF, WEBP and plain JPEG headers;
64 Ki (48 KiB) a JPEG frame header behind ordinary EXIF blocks. Decoding base64 costs
far more than parsing a header, so a fitting image should never be decoded whole."""

MIN_OUTPUT_SIDE: Final = 16
"""Below this long side a re-encoded image is useless; give up and report instead."""

_MAX_SIZE_STEPS: Final = 12
_ALPHABET: Final = (string.ascii_letters + string.digits + "+/").encode("ascii")
_ALPHA_MODES: Final = frozenset({"RGBA", "LA", "PA", "RGBa", "La"})
_LANCZOS: Final = Image.Resampling.LANCZOS

# Pillow's format plugins raise many unrelated exception types on malformed input
# (OSError, SyntaxError, struct.error, IndexError, ZeroDivisionError...). A hook must
# not crash the request over one broken image, so every Pillow call on untrusted bytes
# is wrapped, tightly, and the failure becomes an ImageProblem.
_PILLOW_FAILURE: Final = Exception

ProblemReason = Literal["invalid_base64", "undecodable", "too_many_pixels", "unshrinkable"]
"""Why an inline image cannot be sent as it is, nor fixed."""


@dataclass(frozen=True)
class ImageFacts:
    """What an inline image is, read from its base64 text and its header only.

    Attributes:
        byte_size: Decoded size in bytes, the measure of the policy's byte limits.
        width: Width in pixels, as declared by the header.
        height: Height in pixels, as declared by the header.
        format: Pillow's name of the real format (``PNG``, ``JPEG``), whatever the
            declared MIME type says.
        mime_type: The real MIME type (``image/png``), when Pillow knows one.
        missing_padding: The base64 text lacks its trailing ``=`` padding; it decodes
            once padded (strict decoders, such as Python's, reject it unpadded).
    """

    byte_size: int
    width: int
    height: int
    format: str
    mime_type: str | None
    missing_padding: bool = False

    @property
    def pixels(self) -> int:
        """Width times height."""
        return self.width * self.height

    @property
    def base64_size(self) -> int:
        """Length of the canonical (padded) base64 text: some providers measure this.

        Anthropic's 5 MB per-image limit is enforced on the base64 string
        (``image exceeds 5 MB maximum: 6275800 bytes > 5242880 bytes``).
        """
        return 4 * -(-self.byte_size // 3)


@dataclass(frozen=True)
class ImageProblem:
    """Why an inline image cannot be used.

    Attributes:
        reason: A stable, machine-readable reason.
        detail: A short description for logs; never image data.
    """

    reason: ProblemReason
    detail: str


@dataclass(frozen=True)
class EncodedImage:
    """An image re-encoded to fit a target's limits.

    Attributes:
        data: The encoded bytes (not base64).
        mime_type: The MIME type of ``data``: ``image/jpeg`` or ``image/png``.
        width: Width in pixels.
        height: Height in pixels.
    """

    data: bytes
    mime_type: str
    width: int
    height: int


def decode_base64(data: str) -> tuple[bytes, bool] | None:
    """Decode strict base64, tolerating only missing trailing padding.

    Characters outside the standard alphabet (whitespace, line breaks, the URL-safe
    ``-``/``_``, a leftover ``data:`` prefix) make the payload invalid: what a provider's
    decoder does with them is unknown, so such data is never forwarded. Missing padding
    is unambiguous (the length says how many ``=`` are due), so it is tolerated and
    reported, and the caller can send the canonical padded form. Partial padding is not.

    Args:
        data: The base64 text.

    Returns:
        The bytes and whether padding was missing, or ``None`` when the text is not
        base64.
    """
    layout = _base64_layout(data)
    if layout is None:
        return None
    core, _size, missing_padding = layout
    return _decode(core), missing_padding


def _base64_layout(data: str) -> tuple[str, int, bool] | None:
    """The text without padding, the decoded size, and whether padding is missing.

    Validates without decoding: one C-speed scan, several times faster than decoding,
    so measuring an image that fits does not pay for a full decode. ``None`` when the
    text is not strict base64.
    """
    if not data.isascii():
        return None
    core = data.rstrip("=")
    due = -len(core) % 4
    padding = len(data) - len(core)
    if due == 3 or padding not in (0, due) or core.encode("ascii").translate(None, _ALPHABET):
        return None
    return core, len(core) * 3 // 4, padding != due


def _decode(core: str) -> bytes:
    """Decode validated, unpadded base64 text."""
    return base64.b64decode(core + "=" * (-len(core) % 4))


def inspect_inline_image(data: str) -> ImageFacts | ImageProblem:
    """Measure an inline image from its base64 text, reading only its header.

    Shared by the sanitization pass and validators, so both agree on what an image is.
    The decoded size follows from the text's length; only a prefix is decoded (see
    :data:`HEADER_PREFIXES`), and Pillow parses the header lazily, so no pixel data is
    decoded. The whole payload is decoded only when the header lies further in (a JPEG
    with large metadata blocks, a TIFF).

    Args:
        data: The base64 text of the image (without a ``data:`` prefix).

    Returns:
        The facts, or the problem: ``invalid_base64``, ``undecodable`` (not an image
        Pillow can read), or ``too_many_pixels`` (the header declares a canvas so large
        that Pillow refuses to open it).
    """
    layout = _base64_layout(data)
    if layout is None:
        return ImageProblem("invalid_base64", "not valid base64")
    core, byte_size, missing_padding = layout
    header = _read_header_of(core)
    if isinstance(header, ImageProblem):
        return header
    width, height, fmt, mime = header
    return ImageFacts(byte_size, width, height, fmt, mime, missing_padding)


def _read_header_of(core: str) -> tuple[int, int, str, str | None] | ImageProblem:
    """Read the header from ever longer prefixes of the base64 text, then from all of it.

    A prefix too short for the header fails to parse; it cannot yield wrong facts,
    because every format states its size before its pixel data.
    """
    for chars in HEADER_PREFIXES:
        if len(core) <= chars:
            break
        header = _read_header(_decode(core[:chars]))
        if not isinstance(header, ImageProblem) or header.reason == "too_many_pixels":
            return header
    return _read_header(_decode(core))


def _read_header(raw: bytes) -> tuple[int, int, str, str | None] | ImageProblem:
    """Width, height, format and MIME type from the header; pixels stay undecoded."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        try:
            with Image.open(io.BytesIO(raw)) as img:
                width, height = img.size
                fmt = img.format or ""
                mime = img.get_format_mimetype()
        except Image.DecompressionBombError:
            return ImageProblem("too_many_pixels", "header declares a decompression bomb")
        except _PILLOW_FAILURE:
            return ImageProblem("undecodable", "not an image Pillow can read")
    if width <= 0 or height <= 0:
        return ImageProblem("undecodable", f"header declares {width}x{height}")
    return width, height, fmt, mime


def _scaled_size(width: int, height: int, max_side: int) -> tuple[int, int]:
    """The largest size within ``max_side`` per side, with the same aspect ratio."""
    longest = max(width, height)
    if longest <= max_side:
        return width, height
    scale = max_side / longest
    return max(1, min(max_side, round(width * scale))), max(1, min(max_side, round(height * scale)))


def fit_image(raw: bytes, *, max_bytes: int, max_side: int) -> EncodedImage | ImageProblem:
    """Re-encode an image so it holds at most ``max_bytes`` and ``max_side`` per side.

    The image is downscaled with LANCZOS (aspect ratio kept), its EXIF orientation is
    applied (the re-encoded file carries no EXIF, so the rotation would otherwise be lost),
    and animated images keep their first frame. Images with real transparency become
    PNG: every vision endpoint accepts it and it keeps the alpha channel exactly; they
    are made smaller by size only. Everything else becomes JPEG, trying
    :data:`JPEG_QUALITIES` at each size before the size is reduced again.

    Args:
        raw: The decoded image bytes.
        max_bytes: The largest acceptable encoded size.
        max_side: The largest acceptable width and height.

    Returns:
        The re-encoded image, or ``too_many_pixels`` / ``undecodable`` when its pixels
        cannot be loaded safely, or ``unshrinkable`` when no size down to
        :data:`MIN_OUTPUT_SIDE` fits ``max_bytes``.
    """
    loaded = _load_pixels(raw, max_side)
    if isinstance(loaded, ImageProblem):
        return loaded
    return _encode_within(loaded, max_bytes, max_side)


def _load_pixels(raw: bytes, max_side: int) -> Image.Image | ImageProblem:
    """Decode the pixels, oriented and in RGB, L or RGBA, after the pixel guard."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        try:
            # No ``with``: closing would discard the pixels; the source is a BytesIO.
            img = Image.open(io.BytesIO(raw))
            # JPEG can decode straight to 1/2, 1/4 or 1/8 scale; the guard below then
            # measures what will really be allocated.
            width, height = img.size
            img.draft(None, _scaled_size(width, height, max_side))
            width, height = img.size
            if width * height > MAX_DECODE_PIXELS:
                return _too_many_pixels(width, height)
            img.load()
            ImageOps.exif_transpose(img, in_place=True)
            return _visible_mode(img)
        except Image.DecompressionBombError:
            return ImageProblem("too_many_pixels", "header declares a decompression bomb")
        except _PILLOW_FAILURE:
            return ImageProblem("undecodable", "pixel data cannot be decoded")


def _too_many_pixels(width: int, height: int) -> ImageProblem:
    limit = MAX_DECODE_PIXELS // 1_000_000
    return ImageProblem("too_many_pixels", f"{width}x{height} exceeds {limit} megapixels")


def _visible_mode(img: Image.Image) -> Image.Image:
    """Convert to RGBA when some pixel is transparent, else to RGB (or L for grey)."""
    if img.mode in _ALPHA_MODES or "transparency" in img.info:
        rgba = img.convert("RGBA")
        low, _high = rgba.getchannel("A").getextrema()
        # An alpha channel that is opaque everywhere (common in screenshots) carries
        # nothing; dropping it lets the image go out as a much smaller JPEG.
        return rgba if isinstance(low, (int, float)) and low < 255 else rgba.convert("RGB")
    return img if img.mode in ("RGB", "L") else img.convert("RGB")


def _encode_within(img: Image.Image, max_bytes: int, max_side: int) -> EncodedImage | ImageProblem:
    """Try smaller sizes until one encoding fits ``max_bytes``."""
    width, height = img.size
    width, height = _scaled_size(width, height, max_side)
    for _step in range(_MAX_SIZE_STEPS):
        if max(width, height) < MIN_OUTPUT_SIDE:
            break
        frame = img if (width, height) == img.size else img.resize((width, height), _LANCZOS)
        smallest = max_bytes + 1
        for data, mime in _encodings(frame):
            if len(data) <= max_bytes:
                return EncodedImage(data, mime, width, height)
            smallest = len(data)
        # Encoded size grows roughly with the pixel count: shrink both sides by the
        # square root of the overshoot, with a margin, and never by less than 10 %.
        factor = min(0.9, max(0.25, 0.9 * math.sqrt(max_bytes / smallest)))
        width, height = max(1, int(width * factor)), max(1, int(height * factor))
    return ImageProblem("unshrinkable", f"cannot fit {max_bytes} bytes")


def _encodings(img: Image.Image) -> Iterator[tuple[bytes, str]]:
    """Each candidate encoding of ``img``, largest first."""
    if img.mode == "RGBA":
        yield _save(img, "PNG", optimize=True), "image/png"
        return
    for quality in JPEG_QUALITIES:
        yield _save(img, "JPEG", quality=quality), "image/jpeg"


def _save(img: Image.Image, fmt: str, **options: int | bool) -> bytes:
    buffer = io.BytesIO()
    img.save(buffer, fmt, **options)
    return buffer.getvalue()
