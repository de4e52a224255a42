"""The image rules: placeholders for text-only targets, and payload sanitization.

``image_unsupported`` and ``image_payload`` run through the real pipeline
(:func:`~litellm_hygiene._pipeline.transform_messages`) with a policy whose turn repairs
are switched off, so the conversations below (tool results without calls, consecutive
user turns) reach the image rules as written and only the image rules change them.
"""

from __future__ import annotations

import base64
import io
import random
import re
import struct
import zlib
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeAlias

import pytest
from PIL import Image, ImageFile

from litellm_hygiene import sanitize_messages
from litellm_hygiene._content import ImageContent, OpaqueContent, TextContent
from litellm_hygiene._families import POLICIES
from litellm_hygiene._messages import (
    AssistantMessage,
    Context,
    Message,
    SystemMessage,
    ToolResultMessage,
    UserMessage,
)
from litellm_hygiene._pipeline import transform_messages
from litellm_hygiene._policy import Policy
from litellm_hygiene._rules import Change
from litellm_hygiene._rules._image_codec import (
    HEADER_PREFIXES,
    MAX_DECODE_PIXELS,
    ImageFacts,
    ImageProblem,
    decode_base64,
    inspect_inline_image,
)
from litellm_hygiene._rules.image_payload import removal_placeholder
from litellm_hygiene._rules.image_unsupported import downgrade_placeholder
from litellm_hygiene._target import Capabilities, Family, TargetModel

Block: TypeAlias = TextContent | ImageContent | OpaqueContent
Messages: TypeAlias = tuple[Message, ...]

NOT_ACCEPTED = "the target model does not accept image input"
MiB = 1024 * 1024


# --- builders -------------------------------------------------------------------------


# Turn repairs off: the image rules see (and only they change) the messages as written.
_IMAGES_ONLY: dict[str, Any] = {
    "repair_tool_pairing": False,
    "merge_user_turns": False,
    "merge_assistant_turns": False,
    "require_user_first": False,
}


@dataclass(frozen=True)
class Setup:
    """A target and the policy a request to it runs under."""

    target: TargetModel
    policy: Policy


@dataclass(frozen=True)
class Run:
    """One pipeline run: what went in, what came out, and what changed."""

    context: Context
    result: Context
    changes: tuple[Change, ...]

    @property
    def out(self) -> Messages:
        return self.result.messages

    @property
    def unchanged(self) -> bool:
        """The pipeline handed back the very context it was given."""
        return self.result is self.context


def _ctx(family: Family = "anthropic", *, images: bool | None = True, **policy: Any) -> Setup:
    target = TargetModel(
        provider="anthropic",
        api="anthropic-messages",
        model_id="claude-test",
        family=family,
        capabilities=Capabilities(images=images),
    )
    return Setup(target, POLICIES[family].model_copy(update=_IMAGES_ONLY | policy))


def _run(messages: Messages | Context, setup: Setup) -> Run:
    context = messages if isinstance(messages, Context) else Context(messages=messages)
    result = transform_messages(context, setup.target, policy=setup.policy)
    assert {c.kind for c in result.report.changes} <= {"image_unsupported", "image_payload"}
    return Run(context, result.context, result.report.changes)


def _kinds(changes: tuple[Change, ...]) -> list[tuple[int | None, str]]:
    """Each change as (index, old finer kind): the detail's words before the colon."""
    assert all(c.kind == "image_payload" for c in changes)
    return [(c.index, c.detail.partition(": ")[0]) for c in changes]


def _encode(img: Image.Image, fmt: str = "PNG", **options: Any) -> bytes:
    buffer = io.BytesIO()
    img.save(buffer, fmt, **options)
    return buffer.getvalue()


def _noise(width: int, height: int, mode: str = "RGB", seed: int = 0) -> Image.Image:
    rng = random.Random(seed)
    return Image.frombytes(mode, (width, height), rng.randbytes(width * height * len(mode)))


def _transparent(width: int, height: int) -> Image.Image:
    img = Image.new("RGBA", (width, height), (200, 30, 30, 255))
    img.putpixel((0, 0), (0, 0, 0, 0))
    return img


def _png_declaring(width: int, height: int) -> bytes:
    """A 1x1 PNG whose IHDR claims ``width`` x ``height`` (a decompression bomb header)."""
    raw = bytearray(_encode(Image.new("RGB", (1, 1))))
    assert raw[12:16] == b"IHDR"  # 8-byte signature, 4-byte length, then the type
    raw[16:24] = struct.pack(">II", width, height)
    raw[29:33] = struct.pack(">I", zlib.crc32(bytes(raw[12:29])))
    return bytes(raw)


@cache
def small_png() -> bytes:
    return _encode(Image.new("RGB", (64, 48), (10, 120, 200)))


def small_png_b64() -> str:
    return _b64(small_png())


@cache
def padded_png() -> bytes:
    """A PNG whose base64 form ends in ``=`` padding."""
    sizes = (_encode(Image.new("RGB", (n, 3))) for n in range(1, 40))
    return next(raw for raw in sizes if len(raw) % 3)


@cache
def noisy_3000_png() -> bytes:
    return _encode(_noise(3000, 3000), compress_level=1)


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def _inline(raw: bytes, mime: str = "image/png", **fields: Any) -> ImageContent:
    return ImageContent(data=_b64(raw), mime_type=mime, **fields)


def _url(url: str = "https://example.com/cat.png") -> ImageContent:
    return ImageContent(url=url)


def _text(text: str = "look") -> TextContent:
    return TextContent(text=text)


def _user(*blocks: Block) -> UserMessage:
    return UserMessage(content=blocks, content_form="list")


def _tool(*blocks: Block) -> ToolResultMessage:
    return ToolResultMessage(tool_call_id="call_1", content=blocks, content_form="list")


def _shape(message: Message) -> list[str]:
    """Blocks as short strings: text verbatim, images as ``image``."""
    assert isinstance(message, (UserMessage, ToolResultMessage))
    return [b.text if isinstance(b, TextContent) else b.kind for b in message.content]


def _image(messages: Messages, index: int, position: int = 0) -> ImageContent:
    message = messages[index]
    assert isinstance(message, (UserMessage, ToolResultMessage))
    block = message.content[position]
    assert isinstance(block, ImageContent)
    return block


def _opened(block: ImageContent) -> Image.Image:
    assert block.data is not None
    return Image.open(io.BytesIO(base64.b64decode(block.data)))


def _dump(messages: Messages) -> list[dict[str, Any]]:
    return [m.model_dump() for m in messages]


@pytest.fixture
def no_pixel_decoding(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if any PNG, JPEG or GIF pixel data is decoded."""

    def refuse(self: ImageFile.ImageFile) -> Any:
        raise AssertionError("pixel data was decoded")

    monkeypatch.setattr(ImageFile.ImageFile, "load", refuse)


# --- image_unsupported ----------------------------------------------------------------

ONE = f"[image omitted: {NOT_ACCEPTED}]"
TOOL_ONE = f"[tool result image omitted: {NOT_ACCEPTED}]"
RUN_OF_ONE = "1 image(s) -> 1 placeholder"


def test_placeholder_wordings() -> None:
    assert downgrade_placeholder(1, tool_result=False) == ONE
    assert downgrade_placeholder(1, tool_result=True) == TOOL_ONE
    assert downgrade_placeholder(3, tool_result=False) == f"[3 images omitted: {NOT_ACCEPTED}]"
    assert removal_placeholder("undecodable", tool_result=True) == (
        "[tool result image removed: not a readable image]"
    )


@pytest.mark.parametrize(
    ("message", "expected", "details"),
    [
        pytest.param(_user(_inline(small_png())), [ONE], [RUN_OF_ONE], id="single-image"),
        pytest.param(
            _user(_text("a"), _url(), _inline(small_png()), _url(), _text("b")),
            ["a", f"[3 images omitted: {NOT_ACCEPTED}]", "b"],
            ["3 image(s) -> 1 placeholder"],
            id="run-of-three-becomes-one-placeholder",
        ),
        pytest.param(
            _user(_url(), _text("between"), _url()),
            [ONE, "between", ONE],
            [RUN_OF_ONE, RUN_OF_ONE],
            id="separate-runs-separate-placeholders",
        ),
        pytest.param(
            _tool(_text("ok"), _url()), ["ok", TOOL_ONE], [RUN_OF_ONE], id="tool-result-wording"
        ),
        pytest.param(
            _tool(_url(), _url()),
            [f"[2 tool result images omitted: {NOT_ACCEPTED}]"],
            ["2 image(s) -> 1 placeholder"],
            id="tool-result-run",
        ),
        pytest.param(
            _user(OpaqueContent(part={"type": "input_audio"}), _url()),
            ["opaque", ONE],
            [RUN_OF_ONE],
            id="opaque-parts-kept",
        ),
    ],
)
def test_downgrade_replaces_image_runs_with_placeholders(
    message: Message, expected: list[str], details: list[str]
) -> None:
    messages: Messages = (SystemMessage(content=(_text("sys"),)), message)
    run = _run(messages, _ctx(images=False))
    assert _shape(run.out[1]) == expected
    assert run.out[0] is messages[0]
    assert [(c.kind, c.index, c.detail) for c in run.changes] == [
        ("image_unsupported", 1, detail) for detail in details
    ]


@pytest.mark.parametrize(
    ("images", "downgrade"),
    [
        pytest.param(None, True, id="unknown-capability"),
        pytest.param(True, True, id="vision-target"),
        pytest.param(False, False, id="policy-switched-off"),
    ],
)
def test_downgrade_leaves_images_alone_unless_known_unsupported(
    images: bool | None, downgrade: bool
) -> None:
    messages: Messages = (_user(_text(), _url()), _tool(_inline(small_png())))
    run = _run(messages, _ctx(images=images, downgrade_images=downgrade))
    assert run.unchanged
    assert run.changes == ()


def test_downgrade_reports_image_and_placeholder_counts_per_run() -> None:
    messages: Messages = (
        _user(_url(), _url(), _text(), _url()),
        AssistantMessage(content=(_text("sure"),)),
        _tool(_url()),
    )
    run = _run(messages, _ctx(images=False))
    assert [(c.kind, c.index, c.detail) for c in run.changes] == [
        ("image_unsupported", 0, "2 image(s) -> 1 placeholder"),
        ("image_unsupported", 0, RUN_OF_ONE),
        ("image_unsupported", 2, RUN_OF_ONE),
    ]


def test_downgrade_moves_cache_marker_to_placeholder() -> None:
    marker = {"type": "ephemeral"}
    messages: Messages = (_user(_url(), ImageContent(url="https://x/y.png", cache_control=marker)),)
    message = _run(messages, _ctx(images=False)).out[0]
    assert isinstance(message, UserMessage)
    (placeholder,) = message.content
    assert isinstance(placeholder, TextContent)
    assert placeholder.cache_control == marker


def test_downgrade_is_idempotent_and_never_mutates_input() -> None:
    messages: Messages = (_user(_text(), _url(), _inline(small_png())), _tool(_url()))
    before = _dump(messages)
    once = _run(messages, _ctx(images=False))
    twice = _run(once.result, _ctx(images=False))
    assert _dump(messages) == before
    assert once.changes
    assert twice.unchanged
    assert twice.changes == ()


# --- inspect_inline_image -------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        pytest.param(
            _b64(small_png()),
            ImageFacts(len(small_png()), 64, 48, "PNG", "image/png"),
            id="png",
        ),
        pytest.param(
            _b64(_encode(Image.new("RGB", (30, 20)), "JPEG")),
            ImageFacts(
                len(_encode(Image.new("RGB", (30, 20)), "JPEG")), 30, 20, "JPEG", "image/jpeg"
            ),
            id="jpeg",
        ),
        pytest.param("not base64!!", "invalid_base64", id="bad-alphabet"),
        pytest.param("abcde", "invalid_base64", id="impossible-length"),
        pytest.param(_b64(b"hello, not an image"), "undecodable", id="not-an-image"),
        pytest.param(_b64(_png_declaring(100_000, 100_000)), "too_many_pixels", id="bomb"),
    ],
)
def test_inspect_reports_facts_or_problem(data: str, expected: ImageFacts | str) -> None:
    result = inspect_inline_image(data)
    if isinstance(expected, ImageFacts):
        assert result == expected
    else:
        assert isinstance(result, ImageProblem)
        assert result.reason == expected


def test_inspect_finds_a_header_behind_large_metadata() -> None:
    icc = random.Random(3).randbytes(200_000)  # written as APP2 blocks before the frame
    raw = _encode(Image.new("RGB", (321, 123)), "JPEG", icc_profile=icc)
    assert len(raw) * 4 // 3 > max(HEADER_PREFIXES)
    assert inspect_inline_image(_b64(raw)) == ImageFacts(len(raw), 321, 123, "JPEG", "image/jpeg")


@pytest.mark.parametrize(
    ("data", "valid", "missing_padding"),
    [
        pytest.param("QUJD", True, False, id="no-padding-due"),
        pytest.param("QUI=", True, False, id="padded"),
        pytest.param("QUI", True, True, id="padding-missing"),
        pytest.param("QQ", True, True, id="two-padding-missing"),
        pytest.param("QQ=", False, False, id="partial-padding"),
        pytest.param("QUJD=", False, False, id="padding-not-due"),
        pytest.param("QU=I", False, False, id="padding-inside"),
        pytest.param("QUJDR", False, False, id="impossible-length"),
        pytest.param("QUJ\u00e9", False, False, id="non-ascii"),
        pytest.param("QU JD", False, False, id="space"),
    ],
)
def test_decode_base64_is_strict_but_tolerates_missing_padding(
    data: str, valid: bool, missing_padding: bool
) -> None:
    result = decode_base64(data)
    if valid:
        assert result == (base64.b64decode(data + "=" * (-len(data) % 4)), missing_padding)
    else:
        assert result is None


def test_inspect_reads_only_the_header(no_pixel_decoding: None) -> None:
    result = inspect_inline_image(_b64(_png_declaring(10_000, 6_000)))
    assert isinstance(result, ImageFacts)
    assert (result.width, result.height) == (10_000, 6_000)


# --- image_payload: removals -----------------------------------------------------------


def _removed(reason: str, tool: bool = False) -> str:
    return f"[{'tool result image' if tool else 'image'} removed: {reason}]"


@pytest.mark.parametrize(
    ("data", "kind", "reason"),
    [
        pytest.param("not base64!!", "invalid base64", "invalid base64 data", id="alphabet"),
        pytest.param(_b64(small_png())[:-3], "invalid base64", "invalid base64 data", id="cut"),
        pytest.param(
            _b64(small_png())[:40] + "\n" + _b64(small_png())[40:],
            "invalid base64",
            "invalid base64 data",
            id="line-break",
        ),
        pytest.param(
            base64.urlsafe_b64encode(b"\xfb\xff" * 30).decode(),
            "invalid base64",
            "invalid base64 data",
            id="url-safe-alphabet",
        ),
        pytest.param(
            _b64(b"%PDF-1.7 not an image"),
            "undecodable",
            "not a readable image",
            id="not-an-image",
        ),
        pytest.param(
            _b64(_png_declaring(100_000, 100_000)),
            "too many pixels",
            "too many pixels to decode safely",
            id="bomb-pillow-refuses",
        ),
        pytest.param(
            _b64(_png_declaring(9_500, 9_500)),
            "too many pixels",
            "too many pixels to decode safely",
            id="bomb-pillow-warns",
        ),
        pytest.param(
            _b64(_png_declaring(10_000, 6_000)),
            "too many pixels",
            "too many pixels to decode safely",
            id="bomb-own-guard",
        ),
    ],
)
@pytest.mark.parametrize("tool", [False, True], ids=["user", "tool-result"])
def test_sanitize_replaces_unusable_images_with_a_reason(
    no_pixel_decoding: None, data: str, kind: str, reason: str, tool: bool
) -> None:
    image = ImageContent(data=data, mime_type="image/png", cache_control={"type": "ephemeral"})
    message = _tool(_text(), image) if tool else _user(_text(), image)
    run = _run((message,), _ctx())
    out = run.out[0]
    assert _shape(out) == ["look", _removed(reason, tool)]
    assert isinstance(out, (UserMessage, ToolResultMessage))
    placeholder = out.content[1]
    assert isinstance(placeholder, TextContent)
    assert placeholder.cache_control == {"type": "ephemeral"}
    assert _kinds(run.changes) == [(0, kind)]


def test_bomb_guard_limit_is_below_pillows_own() -> None:
    assert Image.MAX_IMAGE_PIXELS is not None
    assert MAX_DECODE_PIXELS < Image.MAX_IMAGE_PIXELS


def test_sanitize_removes_truncated_image_that_must_be_reencoded() -> None:
    truncated = _encode(_noise(9000, 20))[:2000]
    run = _run((_user(_inline(truncated)),), _ctx())
    assert _shape(run.out[0]) == [_removed("not a readable image")]
    assert _kinds(run.changes) == [(0, "undecodable")]


def test_sanitize_removes_image_that_cannot_shrink_enough() -> None:
    ctx = _ctx(max_image_bytes=50)
    run = _run((_user(_inline(_encode(_noise(200, 200)))),), ctx)
    reason = "too large for the target model and could not be shrunk to fit"
    assert _shape(run.out[0]) == [_removed(reason)]
    assert _kinds(run.changes) == [(0, "unshrinkable")]


def test_sanitize_pads_base64_missing_its_padding(no_pixel_decoding: None) -> None:
    padded = _b64(padded_png())
    image = ImageContent(data=padded.rstrip("="), mime_type="image/png")
    run = _run((_user(image),), _ctx())
    assert _image(run.out, 0).data == padded
    assert [(c.kind, c.index, c.detail) for c in run.changes] == [
        ("image_payload", 0, "base64 padded: padding added")
    ]


# --- image_payload: re-encoding --------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "declared", "family", "mime", "size", "mode"),
    [
        pytest.param(
            _encode(_noise(9000, 100), "JPEG"),
            "image/jpeg",
            "openai",
            "image/jpeg",
            (8000, 89),
            "RGB",
            id="jpeg-side-over-8000",
        ),
        pytest.param(
            _encode(_transparent(9000, 100)),
            "image/jpeg",
            "anthropic",
            "image/png",
            (8000, 89),
            "RGBA",
            id="transparent-png-stays-png-with-true-mime",
        ),
        pytest.param(
            _encode(Image.new("RGBA", (9000, 100), (1, 2, 3, 255))),
            "image/png",
            "anthropic",
            "image/jpeg",
            (8000, 89),
            "RGB",
            id="opaque-alpha-becomes-jpeg",
        ),
        pytest.param(
            _encode(Image.new("P", (100, 9000), 3)),
            "image/gif",
            "bedrock",
            "image/jpeg",
            (89, 8000),
            "RGB",
            id="palette-tall",
        ),
    ],
)
def test_sanitize_downscales_images_over_the_side_limit(
    raw: bytes, declared: str, family: Family, mime: str, size: tuple[int, int], mode: str
) -> None:
    messages: Messages = (_user(_text(), _inline(raw, declared)),)
    run = _run(messages, _ctx(family))
    image = _image(run.out, 0, 1)
    assert image.mime_type == mime
    with _opened(image) as img:
        assert (img.size, img.mode) == (size, mode)
        assert img.get_format_mimetype() == mime
    assert _kinds(run.changes) == [(0, "reencoded")]
    assert re.fullmatch(
        r"reencoded: \d+x\d+ \w+ -> \d+x\d+ \w+, [\d.]+ [KM]B -> [\d.]+ [KM]B",
        run.changes[0].detail,
    )


def test_sanitize_shrinks_png_over_the_byte_limit_into_it() -> None:
    raw = noisy_3000_png()
    assert len(raw) > 5 * MiB
    run = _run((_tool(_inline(raw)),), _ctx("anthropic"))
    image = _image(run.out, 0)
    assert image.data is not None
    assert len(base64.b64decode(image.data)) <= POLICIES["anthropic"].max_image_bytes
    assert image.mime_type == "image/jpeg"
    assert run.changes[0].detail.startswith("reencoded: 3000x3000 PNG -> ")


def test_sanitize_applies_exif_orientation_when_reencoding() -> None:
    exif = Image.Exif()
    exif[0x0112] = 6  # rotated: displayed as 100 wide, 9000 tall
    raw = _encode(Image.new("RGB", (9000, 100), (9, 9, 9)), "JPEG", exif=exif)
    run = _run((_user(_inline(raw, "image/jpeg")),), _ctx())
    with _opened(_image(run.out, 0)) as img:
        assert img.size == (89, 8000)


@pytest.mark.parametrize(
    ("inline_count", "url_count"),
    [
        pytest.param(21, 0, id="21-images"),
        pytest.param(20, 1, id="url-images-count-too"),
    ],
)
def test_sanitize_applies_the_many_images_side_limit(inline_count: int, url_count: int) -> None:
    raw = _encode(Image.new("RGB", (2500, 1000), (0, 90, 0)))
    message = _user(
        *[_inline(raw) for _ in range(inline_count)], *[_url() for _ in range(url_count)]
    )
    run = _run((message,), _ctx("anthropic"))
    assert _kinds(run.changes) == [(0, "reencoded")] * inline_count
    for position in range(inline_count):
        with _opened(_image(run.out, 0, position)) as img:
            assert img.size == (2000, 800)
    for position in range(inline_count, inline_count + url_count):
        assert _image(run.out, 0, position) is message.content[position]


def test_sanitize_keeps_the_usual_side_limit_for_20_images() -> None:
    raw = _encode(Image.new("RGB", (2500, 1000), (0, 90, 0)))
    run = _run((_user(*[_inline(raw) for _ in range(20)]),), _ctx("anthropic"))
    assert run.unchanged
    assert run.changes == ()


def test_sanitize_shrinks_largest_images_first_to_fit_the_request_total() -> None:
    big, medium, small = (_encode(_noise(s, s, seed=s)) for s in (800, 400, 200))
    limit = 1_200_000
    assert len(big) + len(medium) + len(small) > limit
    messages: Messages = (_user(_inline(small)), _tool(_inline(big)), _user(_inline(medium)))
    run = _run(messages, _ctx("openai", max_total_image_bytes=limit))
    sizes = [len(base64.b64decode(_image(run.out, i).data or "")) for i in range(3)]
    assert sum(sizes) <= limit
    assert run.out[0] is messages[0] and run.out[2] is messages[2]
    assert _kinds(run.changes) == [(1, "reencoded")]


def test_sanitize_shares_the_total_out_when_every_image_must_shrink() -> None:
    raws = [_encode(_noise(300, 300, seed=n)) for n in range(4)]
    limit = 4 * 60_000
    messages: Messages = (_user(*[_inline(r) for r in raws]),)
    run = _run(messages, _ctx("openai", max_total_image_bytes=limit))
    sizes = [len(base64.b64decode(_image(run.out, 0, p).data or "")) for p in range(4)]
    assert sum(sizes) <= limit
    assert _kinds(run.changes) == [(0, "reencoded")] * 4


# --- image_payload: what it leaves alone -----------------------------------------------


def test_sanitize_returns_same_object_without_decoding_fitting_images(
    no_pixel_decoding: None,
) -> None:
    raws = [_encode(Image.new("RGB", (64 + n, 48), (n, 0, 0))) for n in range(20)]
    messages: Messages = (
        SystemMessage(content=(_text("sys"),)),
        _user(_text(), *[_inline(r) for r in raws[:10]]),
        AssistantMessage(content=(_text("ok"),)),
        _tool(*[_inline(r) for r in raws[10:]]),
    )
    run = _run(messages, _ctx("anthropic"))
    assert run.unchanged
    assert run.changes == ()


@pytest.mark.parametrize(
    "image",
    [
        pytest.param(_url(), id="https-url"),
        pytest.param(_url("http://169.254.169.254/latest/meta-data"), id="metadata-url"),
        pytest.param(_url("data:image/png;base64,####"), id="unsplit-data-url"),
    ],
)
def test_sanitize_never_touches_url_images(image: ImageContent) -> None:
    messages: Messages = (_user(image), _tool(image))
    run = _run(messages, _ctx())
    assert run.unchanged
    assert run.changes == ()


def _mixed_transcript() -> Messages:
    return (
        SystemMessage(content=(_text("sys"),)),
        _user(_text(), _inline(small_png()), _inline(b"junk"), _url()),
        AssistantMessage(content=(_text("ok"),)),
        _tool(_inline(_encode(_transparent(9000, 40))), _inline(small_png(), "image/gif")),
        _user(ImageContent(data=_b64(padded_png()).rstrip("="), mime_type="image/png")),
        _user(_inline(_png_declaring(60_000, 60_000))),
    )


def test_sanitize_never_mutates_input_and_shares_untouched_messages() -> None:
    messages = _mixed_transcript()
    before = _dump(messages)
    run = _run(messages, _ctx())
    assert _dump(messages) == before
    assert run.out[0] is messages[0] and run.out[2] is messages[2]
    assert _image(run.out, 1, 1) is _image(messages, 1, 1)
    assert _kinds(run.changes) == [
        (1, "undecodable"),
        (3, "reencoded"),
        (3, "type fixed"),  # a PNG declared image/gif
        (4, "base64 padded"),
        (5, "too many pixels"),
    ]


@pytest.mark.parametrize(
    ("images", "kind"),
    [
        pytest.param(True, "image_payload", id="sanitize"),
        pytest.param(False, "image_unsupported", id="downgrade"),
    ],
)
def test_rules_are_idempotent(images: bool, kind: str) -> None:
    ctx = _ctx(images=images)
    once = _run(_mixed_transcript(), ctx)
    twice = _run(once.result, ctx)
    assert once.changes
    assert {c.kind for c in once.changes} == {kind}
    assert twice.unchanged
    assert twice.changes == ()


def test_change_details_never_carry_image_data() -> None:
    messages = _mixed_transcript()
    changes = _run(messages, _ctx()).changes
    payloads = [
        b.data[:16]
        for m in messages
        if isinstance(m, (UserMessage, ToolResultMessage))
        for b in m.content
        if isinstance(b, ImageContent) and b.data
    ]
    assert changes
    for change in changes:
        assert not any(p in change.detail for p in payloads)


# --- through sanitize_messages: OpenAI-shaped messages ---------------------------------


def _data_url(data: str, mime: str = "image/png") -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{data}"}}


def test_sanitize_messages_counts_a_leading_system_message_in_change_indices() -> None:
    padded = _b64(padded_png())
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": [{"type": "text", "text": "hi"}, _data_url(small_png_b64())]},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": [_data_url(padded.rstrip("="))]},
    ]
    result = sanitize_messages(messages, "claude-3-5-sonnet-20241022")
    assert [(c.kind, c.index, c.detail) for c in result.report.changes] == [
        ("image_payload", 3, "base64 padded: padding added")
    ]
    assert result.messages[3]["content"][0]["image_url"]["url"].endswith(padded)
    assert result.messages[:3] == messages[:3]


def test_sanitize_messages_downgrades_images_for_a_text_only_model() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "sys"},
        {
            "role": "user",
            "content": [
                _data_url(small_png_b64()),
                {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}},
                {"type": "text", "text": "and"},
                _data_url(small_png_b64()),
            ],
        },
    ]
    result = sanitize_messages(
        messages, "claude-3-5-sonnet-20241022", model_info={"supports_vision": False}
    )
    assert [(c.kind, c.index, c.detail) for c in result.report.changes] == [
        ("image_unsupported", 1, "2 image(s) -> 1 placeholder"),
        ("image_unsupported", 1, RUN_OF_ONE),
    ]
    texts = [part.get("text") for part in result.messages[1]["content"]]
    assert texts == [f"[2 images omitted: {NOT_ACCEPTED}]", "and", ONE]
