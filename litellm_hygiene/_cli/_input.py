"""Reading a transcript from a file or stdin, with errors that say where the problem is.

A transcript is what a user already has on disk: a JSON list of OpenAI-shaped messages,
a request body (an object with ``messages`` and maybe ``tools``), or JSONL with one
message per line. Every element's line number is kept, so a message the converter
cannot read is reported as ``FILE:LINE: messages[3].role: missing``, not as a traceback.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

__all__ = ["Transcript", "UnreadableInput", "read_source", "read_transcript"]

Format = Literal["json", "request", "jsonl"]

_DECODER = json.JSONDecoder()


class UnreadableInput(Exception):
    """The input cannot be read as a transcript; the message names file, line and field."""


@dataclass(frozen=True)
class Transcript:
    """Messages read from one input, and where each came from.

    Attributes:
        name: The file name as given (``<stdin>`` for ``-``).
        form: ``json`` (a list), ``request`` (an object with ``messages``) or ``jsonl``.
        messages: The messages, as parsed.
        lines: The 1-based line each message starts on.
        tools: The request's ``tools``, when the input was a request body.
        document: The whole parsed object, for a request body (written back by ``fix``).
    """

    name: str
    form: Format
    messages: list[Any]
    lines: list[int]
    tools: list[Any] | None = None
    document: dict[str, Any] = field(default_factory=dict)

    def where(self, index: int | None) -> str:
        """``FILE:LINE`` of message ``index`` (just ``FILE`` for the whole request)."""
        if index is None or not 0 <= index < len(self.lines):
            return self.name
        return f"{self.name}:{self.lines[index]}"


def read_source(path: str) -> tuple[str, str]:
    """``(name, text)`` of a file, or of stdin for ``-``."""
    if path == "-":
        return "<stdin>", sys.stdin.read()
    try:
        return path, Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UnreadableInput(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UnreadableInput(f"{path}: is a directory, not a transcript file") from None
    except UnicodeDecodeError as err:
        raise UnreadableInput(f"{path}: not UTF-8 text (byte {err.start})") from None
    except OSError as err:
        raise UnreadableInput(f"{path}: cannot be read ({err.strerror})") from None


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _skip(text: str, offset: int) -> int:
    while offset < len(text) and text[offset] in " \t\r\n":
        offset += 1
    return offset


def _bad_json(name: str, err: json.JSONDecodeError, line_offset: int = 0) -> UnreadableInput:
    return UnreadableInput(f"{name}:{err.lineno + line_offset}: invalid JSON: {err.msg}")


def _array(name: str, text: str, start: int) -> tuple[list[Any], list[int]]:
    """Decode the JSON array at ``start``, keeping each element's line."""
    items: list[Any] = []
    lines: list[int] = []
    offset = _skip(text, start + 1)
    line, counted = 1, 0  # lines counted incrementally: a 10,000-message file stays linear
    while offset < len(text) and text[offset] != "]":
        try:
            item, end = _DECODER.raw_decode(text, offset)
        except json.JSONDecodeError as err:
            raise _bad_json(name, err) from None
        items.append(item)
        line += text.count("\n", counted, offset)
        counted = offset
        lines.append(line)
        offset = _skip(text, end)
        if offset < len(text) and text[offset] == ",":
            offset = _skip(text, offset + 1)
    return items, lines


def _messages_offset(text: str, start: int) -> int | None:
    """Where the value of the top-level ``messages`` key starts, in an object at ``start``."""
    offset = _skip(text, start + 1)
    while offset < len(text) and text[offset] == '"':
        key, end = _DECODER.raw_decode(text, offset)
        offset = _skip(text, _skip(text, end) + 1)  # past the colon
        if key == "messages":
            return offset
        _, end = _DECODER.raw_decode(text, offset)
        offset = _skip(text, end)
        if offset < len(text) and text[offset] == ",":
            offset = _skip(text, offset + 1)
    return None


def _read_json(name: str, text: str) -> Transcript:
    try:
        document = json.loads(text)
    except json.JSONDecodeError as err:
        raise _bad_json(name, err) from None
    start = _skip(text, 0)
    if isinstance(document, list):
        messages, lines = _array(name, text, start)
        return Transcript(name, "json", messages, lines)
    if isinstance(document, dict) and isinstance(document.get("messages"), list):
        at = _messages_offset(text, start)
        messages, lines = _array(name, text, at) if at is not None else (document["messages"], [])
        tools = document.get("tools")
        if tools is not None and not isinstance(tools, list):
            raise UnreadableInput(f"{name}: tools: expected a list, got {type(tools).__name__}")
        return Transcript(name, "request", messages, lines, tools, document)
    if isinstance(document, dict) and "role" in document:  # JSONL holding one message
        return Transcript(name, "jsonl", [document], [_line(text, start)])
    found = type(document).__name__
    if isinstance(document, dict):
        keys = ", ".join(sorted(document)[:5]) or "none"
        found = f"an object without a 'messages' list (keys: {keys})"
    raise UnreadableInput(
        f"{name}:{_line(text, start)}: expected a JSON list of messages or an object with a "
        f"'messages' list, got {found}"
    )


def _read_jsonl(name: str, text: str) -> Transcript:
    messages: list[Any] = []
    lines: list[int] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            messages.append(json.loads(raw))
        except json.JSONDecodeError as err:
            raise _bad_json(name, err, number - 1) from None
        lines.append(number)
    return Transcript(name, "jsonl", messages, lines)


def _looks_like_jsonl(text: str) -> bool:
    stripped = text.lstrip()
    if not stripped.startswith("{"):
        return False
    try:
        _, end = _DECODER.raw_decode(stripped)
    except json.JSONDecodeError:
        return False
    return bool(stripped[end:].strip())  # a second document follows the first


def read_transcript(path: str) -> Transcript:
    """Read ``path`` (``-`` for stdin) as a transcript.

    Raises:
        UnreadableInput: The file is missing or not a transcript; the message says where.
    """
    name, text = read_source(path)
    if not text.strip():
        raise UnreadableInput(f"{name}: empty input, expected a transcript")
    if path.endswith(".jsonl") or _looks_like_jsonl(text):
        return _read_jsonl(name, text)
    return _read_json(name, text)
