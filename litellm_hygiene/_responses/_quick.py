"""The chat form of the Responses items Codex sends, without the neutral model.

As ``_anthropic._quick`` does for Claude Code: most of a Codex request is a few kinds of
plain items (user messages of text, reasoning with a summary and encrypted content,
function calls (Gemini's signed ones too, as LiteLLM bridges a Gemini session), their
text outputs, assistant messages of text). Their chat form is
written here straight from the wire, and a request the rules leave alone is never
decoded. A request holding anything else goes the long way, whole.
``tests/shapes/test_responses_shape.py`` holds the two equal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, TypeGuard

from .._recall import Seen, resumed, walked
from .._wire._keys import PROVIDER_FIELDS
from ._parts import ABSENT

__all__ = ["quick_items"]

_MESSAGE_KEYS: Final = frozenset({"type", "role", "content"})
_REASONING_KEYS: Final = frozenset({"type", "id", "summary", "encrypted_content"})
_PSF: Final = PROVIDER_FIELDS
_CALL_KEYS: Final = frozenset({"type", "id", "call_id", "name", "arguments", "status", _PSF})
_OUTPUT_KEYS: Final = frozenset({"type", "id", "call_id", "output", "status"})
_ASSISTANT_KEYS: Final = frozenset({"type", "role", "id", "status", "content"})
_OUTPUT_TEXT_KEYS: Final = frozenset({"type", "text", "annotations"})
_SIDES: Final = frozenset({"user", "system", "developer"})

Span = tuple[int, int]
"""The items a chat message was read from: ``input[start:stop]``."""


def _str(value: Any) -> TypeGuard[str]:
    return type(value) is str


def _input_texts(content: Any) -> list[dict[str, Any]] | None:
    if type(content) is not list:
        return None
    parts: list[dict[str, Any]] = []
    for part in content:
        if type(part) is not dict or part.keys() != {"type", "text"}:
            return None
        if part["type"] != "input_text" or not _str(part["text"]):
            return None
        parts.append({"type": "text", "text": part["text"]})
    return parts


def _message(item: dict[str, Any]) -> dict[str, Any] | None:
    """A user, system or developer message of text: its chat message."""
    if not _MESSAGE_KEYS.issuperset(item) or item.get("role") not in _SIDES:
        return None
    if "type" in item and item["type"] != "message":
        return None
    content = item.get("content")
    if not _str(content):
        content = _input_texts(content)
        if content is None:
            return None
    out: dict[str, Any] = {"type": "message"} if "type" in item else {}
    out["role"] = item["role"]
    out["content"] = content
    return out


def _reasoning(item: dict[str, Any]) -> dict[str, Any] | None:
    """A reasoning item of summary texts: its ``reasoning_items`` entry (itself)."""
    if not _REASONING_KEYS.issuperset(item) or "summary" not in item:
        return None
    if "id" in item and not _str(item["id"]):
        return None
    if "encrypted_content" in item and not _str(item["encrypted_content"]):
        return None
    summary = item["summary"]
    if type(summary) is not list:
        return None
    for entry in summary:
        if type(entry) is not dict or entry.keys() != {"type", "text"}:
            return None
        if entry["type"] != "summary_text" or not _str(entry["text"]):
            return None
    return item


def _call(item: dict[str, Any]) -> dict[str, Any] | None:
    """A function call's chat call.

    A Gemini signature (in the id, in provider fields, or both) stays where the item
    carries it: the decoder reads it there, and both encoders write it back there.
    """
    if not _CALL_KEYS.issuperset(item):
        return None
    call_id, name, arguments = item.get("call_id"), item.get("name"), item.get("arguments")
    if not (_str(call_id) and _str(name) and _str(arguments)):
        return None
    if any(key in item and not _str(item[key]) for key in ("id", "status")):
        return None
    out = {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
    psf = item.get(_PSF, ABSENT)
    if psf is not ABSENT:
        if type(psf) is not dict:
            return None
        out[_PSF] = psf
    return out


def _assistant_texts(item: dict[str, Any]) -> list[dict[str, Any]] | None:
    """An assistant message's ``output_text`` parts as chat text parts."""
    if not _ASSISTANT_KEYS.issuperset(item) or item.get("type", "message") != "message":
        return None
    if any(key in item and not _str(item[key]) for key in ("id", "status")):
        return None
    content = item.get("content")
    if type(content) is not list or not content:
        return None
    parts: list[dict[str, Any]] = []
    for part in content:
        if type(part) is not dict or not _OUTPUT_TEXT_KEYS.issuperset(part):
            return None
        if part.get("type") != "output_text" or not _str(part.get("text")):
            return None
        text = {k: v for k, v in part.items() if k not in ("type", "text")}
        text["type"] = "text"
        text["text"] = part["text"]
        parts.append(text)
    return parts


def _output(item: dict[str, Any]) -> dict[str, Any] | None:
    if not _OUTPUT_KEYS.issuperset(item):
        return None
    call_id, output = item.get("call_id"), item.get("output")
    if not (_str(call_id) and _str(output)):
        return None
    out: dict[str, Any] = {k: item[k] for k in ("id", "status") if k in item}
    out["role"] = "tool"
    out["tool_call_id"] = call_id
    out["content"] = output
    return out


class _Turn:
    """An assistant turn being gathered from consecutive model-side items."""

    def __init__(self) -> None:
        self.reasoning: list[dict[str, Any]] = []
        self.parts: list[dict[str, Any]] = []
        self.calls: list[dict[str, Any]] = []

    def add(self, item: dict[str, Any], kind: Any) -> bool:
        """Take a model-side item; ``False`` when it is not one this module reads."""
        if kind == "reasoning":
            entry = _reasoning(item)
            target = self.reasoning
        elif kind == "function_call":
            entry = _call(item)
            target = self.calls
        else:
            parts = _assistant_texts(item)
            if parts is None:
                return False
            self.parts += parts
            return True
        if entry is None:
            return False
        target.append(entry)
        return True

    def chat(self) -> dict[str, Any]:
        out: dict[str, Any] = {"role": "assistant"}
        if self.reasoning:
            out["reasoning_items"] = self.reasoning
        if self.calls:
            out["tool_calls"] = self.calls
        out["content"] = self.parts or None
        return out


def quick_items(
    items: Sequence[Any], seen: Sequence[Seen] | None = None, matched: int = 0
) -> list[tuple[dict[str, Any], Span]] | None:
    """Each chat message of ``items`` with the items it was read from.

    ``None`` when an item is of a kind or form this module does not read: the whole
    request then goes the long way.

    ``seen``: what a recall remembers of each item (``_recall``), its first ``matched``
    items equal to the ones remembered. A chat message is remembered in the ``Seen`` of
    the last item it was read from (which only requests holding every item before it
    share), and taken from there when all its items are among the ``matched``. And the
    reading of a request up to its last message that is not an assistant turn's (what
    follows cannot change it) is remembered with that item: the next request of the
    conversation reads only the items after it.
    """
    out: list[tuple[dict[str, Any], Span]] = []
    begin = 0
    found = None if seen is None else _resumed(seen, matched)
    if found is not None:
        begin, known = found
        out = list(known)
    start = -1  # the first item of the assistant turn being gathered
    whole = len(out)  # the messages read up to the last one not an assistant turn's
    for index in range(begin, len(items)):
        item = items[index]
        if type(item) is not dict:
            return None
        kind = item.get("type")
        if kind in ("reasoning", "function_call") or item.get("role") == "assistant":
            if start < 0:
                start = index
            continue
        if start >= 0:
            turn = _read(items, start, index, seen, matched, True)
            if turn is None:
                return None
            out.append((turn, (start, index)))
            start = -1
        chat = _read(items, index, index + 1, seen, matched, False)
        if chat is None:
            return None
        out.append((chat, (index, index + 1)))
        whole = len(out)
    if start >= 0:
        turn = _read(items, start, len(items), seen, matched, True)
        if turn is None:
            return None
        out.append((turn, (start, len(items))))
    if seen is not None and whole:
        _remember_read(seen, out, whole, begin, found)
    return out


_READ: Final = "responses read"
"""What a recall remembers with the last item of a request's last message that is not
an assistant turn's: the chat messages read up to it, each the recall's own copy."""


def _resumed(
    seen: Sequence[Seen], matched: int
) -> tuple[int, list[tuple[dict[str, Any], Span]]] | None:
    """Where the reading of an earlier request of the conversation ended, and its messages.

    Only among the ``matched`` items: those equal to the ones it was read from.
    """
    return resumed(lambda index: seen[index], min(matched, len(seen)), _READ)


def _remember_read(
    seen: Sequence[Seen],
    out: list[tuple[dict[str, Any], Span]],
    whole: int,
    begin: int,
    known: tuple[int, list[tuple[dict[str, Any], Span]]] | None,
) -> None:
    """Remember the first ``whole`` messages of ``out`` with the last item read for them.

    As the recall's own copies: each message read anew here is the copy its last item's
    ``Seen`` keeps (``_read``); where one has none (not plain JSON), only the messages
    before it are remembered.
    """
    kept: list[tuple[dict[str, Any], Span]] = [] if known is None else known[1]
    done = len(kept)
    if done >= whole:
        return  # nothing read anew up to there
    copies = list(kept)
    for _, span in out[done:whole]:
        start, stop = span
        copy: dict[str, Any] | None = seen[stop - 1].outcome((_CHAT_FORM, stop - start))
        if copy is None:
            break
        copies.append((copy, span))
    if len(copies) == done:
        return
    end = copies[-1][1][1]  # the last item read for the last message remembered
    walked(lambda index: seen[index], begin, end, _READ, copies, 64 + 72 * len(copies))


def _read(
    items: Sequence[Any],
    start: int,
    stop: int,
    seen: Sequence[Seen] | None,
    matched: int,
    turn: bool,
) -> dict[str, Any] | None:
    """The chat message of ``items[start:stop]``: an assistant turn, or one message."""
    if seen is None:
        return _chat(items, start, stop, turn)
    known = seen[stop - 1]
    key = (_CHAT_FORM, stop - start)
    if stop <= matched:
        kept: dict[str, Any] | None = known.outcome(key)
        if kept is not None:
            # The recall's own copy: the core reads it and never hands it on (a message
            # it leaves as it is goes back as the request's own items).
            return kept
    chat = _chat(items, start, stop, turn)
    if chat is not None:
        known.remember_copy(key, chat)
    return chat


_CHAT_FORM: Final = "responses chat form"
"""What a recall remembers of the last item of a chat message's items: the message."""


def _chat(items: Sequence[Any], start: int, stop: int, turn: bool) -> dict[str, Any] | None:
    if not turn:
        item = items[start]
        return _output(item) if item.get("type") == "function_call_output" else _message(item)
    gathered = _Turn()
    for item in items[start:stop]:
        if not gathered.add(item, item.get("type")):
            return None
    return gathered.chat()
