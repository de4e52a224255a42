"""Hypothesis strategies for the fuzz tests: valid, odd and malformed transcripts.

This is a test-support module, not a test file. It builds on ``tests.support.strategies`` (valid
and odd transcripts, agent transcripts at each rule's edge, unstamped Gemini answers) and
corrupts them the ways clients, proxies and attackers do: wrong types, missing and
duplicate ids, huge, broken and decompression-bomb images, remote image URLs, deep
nesting, unicode edge cases (lone surrogates, NUL, bidi controls, combining marks, astral
emoji). Big payloads are built from a drawn seed and size, so Hypothesis never has to
generate megabytes itself (its health checks stay on).
"""

from __future__ import annotations

import base64
import copy
import io
import random
import struct
import zlib
from typing import Any

from hypothesis import strategies as st
from PIL import Image

from tests.support.strategies import agent_transcripts, gemini_transcripts, transcripts

__all__ = [
    "REMOTE_IMAGE_HOST",
    "bomb_png",
    "corrupted",
    "fuzz_transcripts",
    "long_transcripts",
    "odd_unicode",
]

Json = dict[str, Any]

REMOTE_IMAGE_HOST = "127.0.0.1:9"
"""Host of the remote image URLs generated: the discard port, never to be contacted."""

odd_unicode = st.sampled_from(
    [
        "\ud800",  # a lone surrogate: not encodable as UTF-8
        "a\udfffb",
        "\x00",
        "\u202eevil\u202c",  # bidi override
        "\ufeff",
        "e\u0301\u0301\u0301",  # stacked combining marks
        "👩\u200d👩\u200d👧\u200d👦",
        "\U0010ffff",
        "\uff21",  # fullwidth A
        "\r\n\x1b[31m",
        "\U0001d518\U0001d52b\U0001d526" * 50,  # astral letters
    ]
)
"""Strings that break naive encoders, terminals and length checks."""


def bomb_png(width: int = 60_000, height: int = 60_000) -> bytes:
    """A tiny PNG whose header declares ``width`` x ``height`` pixels (a decompression bomb)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00" * 64)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def _png(width: int, height: int, seed: int) -> bytes:
    noise = random.Random(seed).randbytes(width * height * 3)
    out = io.BytesIO()
    Image.frombytes("RGB", (width, height), noise).save(out, format="PNG", compress_level=1)
    return out.getvalue()


def _data_url(mime: str, data: bytes) -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


def _image_url(seed: int, kind: str) -> str:
    rng = random.Random(seed)
    if kind == "huge":  # 6 MB of noise declared as a PNG: over every provider's limit
        return _data_url("image/png", rng.randbytes(6 * 1024 * 1024))
    if kind == "large_valid":  # a real PNG over Anthropic's 8,000-pixel edge
        return _data_url("image/png", _png(8100, 2, seed))
    if kind == "bomb":
        return _data_url("image/png", bomb_png())
    if kind == "truncated":
        return _data_url("image/png", _png(4, 4, seed)[: rng.randint(8, 40)])
    if kind == "bad_base64":
        return "data:image/png;base64,iVBORw0KGgo*&^%" + "A" * rng.randint(0, 9)
    if kind == "wrong_mime":
        return _data_url("image/gif", _png(2, 2, seed))
    return f"http://{REMOTE_IMAGE_HOST}/{seed}.png"  # remote: must never be fetched


images = st.builds(
    _image_url,
    st.integers(0, 2**16),
    st.sampled_from(
        ["huge", "large_valid", "bomb", "truncated", "bad_base64", "wrong_mime", "remote"]
    ),
).map(lambda url: {"type": "image_url", "image_url": {"url": url}})


def _nested(depth: int, leaf: Any) -> Any:
    value = leaf
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


deep_values = st.builds(_nested, st.integers(50, 400), st.sampled_from([1, "x", None]))
deep_json = st.integers(200, 5000).map(lambda n: "[" * n + "]" * n)
"""Arguments nested deeper than ``json``'s recursion limit allows decoding."""

wrong_types: st.SearchStrategy[Any] = st.sampled_from(
    [None, 0, -1, 3.5, True, "", "x", [], {}, [None], [1, "a"]]
)


def _message_indices(messages: list[Any]) -> list[int]:
    return [i for i, m in enumerate(messages) if isinstance(m, dict)]


def _calls(messages: list[Any]) -> list[dict[str, Any]]:
    return [
        call
        for m in messages
        if isinstance(m, dict) and isinstance(m.get("tool_calls"), list)
        for call in m["tool_calls"]
        if isinstance(call, dict)
    ]


@st.composite
def _corrupt_once(draw: st.DrawFn, messages: list[Any]) -> list[Any]:
    """One corruption of ``messages`` (a deep copy; ``messages`` itself is kept)."""
    out = copy.deepcopy(messages)
    dicts = _message_indices(out)
    kind = draw(
        st.sampled_from(
            ["not_a_dict", "drop_key", "wrong_type", "dup_id", "image", "deep", "unicode", "call"]
        )
    )
    if kind == "not_a_dict" or not dicts:
        out.insert(draw(st.integers(0, len(out))), draw(wrong_types))
        return out
    target = out[draw(st.sampled_from(dicts))]
    if kind == "drop_key" and target:
        target.pop(draw(st.sampled_from(sorted(target))))
    elif kind == "wrong_type":
        key = draw(st.sampled_from(["role", "content", "tool_calls", "tool_call_id", "name"]))
        target[key] = draw(wrong_types | st.sampled_from(["robot", "tool", "assistant"]))
    elif kind == "dup_id":
        calls = _calls(out)
        if len(calls) >= 2:
            calls[-1]["id"] = calls[0].get("id")
        elif target.get("role") == "tool":
            target["tool_call_id"] = draw(st.sampled_from(["", "dup", "call_1"]))
        else:
            out.append(copy.deepcopy(target))  # the same turn twice: its ids repeat
    elif kind == "image":
        parts = target.get("content")
        image = draw(images)
        target["content"] = [*parts, image] if isinstance(parts, list) else [image]
    elif kind == "deep":
        target[draw(st.sampled_from(["content", "x_extra", "tool_calls"]))] = draw(deep_values)
    elif kind == "unicode":
        key = draw(st.sampled_from(["content", "name", "tool_call_id"]))
        target[key] = draw(odd_unicode)
    else:
        _corrupt_call(draw, out, target)
    return out


def _corrupt_call(draw: st.DrawFn, messages: list[Any], target: dict[str, Any]) -> None:
    calls = _calls(messages)
    if not calls:
        target["tool_calls"] = [draw(wrong_types | st.just({"function": None}))]
        return
    call = draw(st.sampled_from(calls))
    field = draw(st.sampled_from(["id", "function", "arguments", "name", "type"]))
    if field in ("arguments", "name"):
        function = call.get("function")
        if isinstance(function, dict):
            function[field] = draw(wrong_types | deep_json | odd_unicode)
            return
    call[field] = draw(wrong_types | odd_unicode)


def corrupted(base: st.SearchStrategy[list[Any]]) -> st.SearchStrategy[list[Any]]:
    """``base`` transcripts with one to three corruptions applied."""

    def apply(messages: list[Any], times: int) -> st.SearchStrategy[list[Any]]:
        strategy: st.SearchStrategy[list[Any]] = st.just(messages)
        for _ in range(times):
            strategy = strategy.flatmap(_corrupt_once)
        return strategy

    return st.tuples(base, st.integers(1, 3)).flatmap(lambda pair: apply(*pair))


base_transcripts = st.one_of(transcripts, agent_transcripts, gemini_transcripts).filter(bool)

fuzz_transcripts: st.SearchStrategy[list[Any]] = st.one_of(
    base_transcripts,  # valid and odd
    corrupted(base_transcripts),  # malformed, and almost well-formed
)
"""Valid, odd and malformed transcripts, about half each."""


def _repeat_to(messages: list[Json], count: int) -> list[Json]:
    out: list[Json] = []
    while len(out) < count:
        out.extend(copy.deepcopy(messages))
    return [{"role": "user", "content": "start"}, *out[: count - 1]]


_long = st.tuples(agent_transcripts.filter(lambda m: len(m) >= 3), st.integers(9_000, 10_000)).map(
    lambda pair: _repeat_to(*pair)
)
long_transcripts: st.SearchStrategy[list[Any]] = st.one_of(_long, corrupted(_long))
"""Agent transcripts repeated to 9,000-10,000 messages (ids repeat: pairing and renames
work across the whole request), half of them corrupted somewhere."""
