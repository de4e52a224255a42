"""Content rules: images and empty text.

Images are measured only when inline (``data:<mime>;base64,...``): a remote URL is
never fetched (from a hook that is a server-side request forgery path), so only the
capability rule applies to it. Dimensions come from the image header, read by Pillow
without decoding pixels.

Empty text: LiteLLM's Anthropic converter (1.106) rewrites empty or whitespace-only
user and assistant text into the visible placeholder ``[System: Empty message content
sanitised to satisfy protocol]`` rather than letting Anthropic reject it, and its
Gemini and Bedrock converters skip empty parts; the rule still reports them for
``Policy.reject_empty_text`` targets, since what reaches the model is then not what the
caller sent. An assistant message that carries tool calls is exempt whatever its text
(``""`` or ``None`` beside tool calls is how OpenAI-shaped clients write "no text").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._openai._parts import DATA_URL
from ._passes._image_codec import ImageFacts, ImageProblem, inspect_inline_image
from ._validate_report import ErrorKind, Request
from ._validate_violation import Violation
from ._validate_wire import Msg

__all__ = ["check_empty_text", "check_images", "check_null_content"]

_IMAGE_ROLES = frozenset({"user", "tool", "function"})
_MB = 1024 * 1024
_SHOWN = 64


@dataclass(frozen=True)
class _Inline:
    """A measured inline image."""

    index: int
    field: str
    local: int
    size: int
    encoded: int
    sides: tuple[int, int] | None


def _image_url(part: Any) -> str | None:
    if not isinstance(part, dict) or part.get("type") != "image_url":
        return None
    value = part.get("image_url")
    if isinstance(value, dict):
        value = value.get("url")
    return value if isinstance(value, str) else None


def _image_parts(req: Request) -> list[tuple[int, int, str]]:
    """Every image part of a user or tool message: (message index, part index, url)."""
    found: list[tuple[int, int, str]] = []
    for index, msg in enumerate(req.messages):
        if msg is None or msg.get("role") not in _IMAGE_ROLES:
            continue
        content = msg.get("content")
        for k, part in enumerate(content if isinstance(content, list) else ()):
            url = _image_url(part)
            if url is not None:
                found.append((index, k, url))
    return found


def _measure(req: Request, index: int, k: int, url: str) -> _Inline | Violation | None:
    """Measure an inline image exactly as the sanitization pass does (shared code)."""
    match = DATA_URL.fullmatch(url)
    if match is None:
        return None
    payload = match.group(2)
    field = f"content[{k}].image_url"
    facts = inspect_inline_image(payload)
    if (isinstance(facts, ImageProblem) and facts.reason == "invalid_base64") or (
        isinstance(facts, ImageFacts) and facts.missing_padding
    ):
        shown = payload if len(payload) <= _SHOWN else f"{payload[:_SHOWN]}..."
        reason = "inline image data is not valid base64"
        return req.report(
            "image_invalid_base64", index, field, reason, kind="image_base64", local=k, sig=shown
        )
    if isinstance(facts, ImageProblem):
        return req.report("image_unreadable", index, field, f"inline image: {facts.detail}")
    sides = (facts.width, facts.height)
    return _Inline(index, field, k, facts.byte_size, len(payload), sides)


def _too_large(req: Request, image: _Inline) -> Violation | None:
    limit = req.policy.max_image_bytes
    if image.size <= limit:
        return None
    encoded_limit = (limit * 4 + 2) // 3  # some providers measure the base64 text
    return req.report(
        "image_too_large",
        image.index,
        image.field,
        f"inline image is {image.size} bytes; the target accepts at most {limit}",
        kind="image_too_large",
        local=image.local,
        n=image.size,
        limit=limit,
        n_b64=image.encoded,
        limit_b64=encoded_limit,
        limit_b64_mb=f"{encoded_limit / _MB:g}",
    )


def _side_limit(req: Request, count: int) -> tuple[int, bool]:
    """The per-side limit for a request with ``count`` images; whether it is many-image."""
    policy = req.policy
    many = policy.many_images_count is not None and count > policy.many_images_count
    if many and policy.many_images_max_side is not None:
        return min(policy.max_image_side, policy.many_images_max_side), True
    return policy.max_image_side, False


def _too_wide(req: Request, image: _Inline, limit: int, many: bool) -> Violation | None:
    if image.sides is None or max(image.sides) <= limit:
        return None
    width, height = image.sides
    return req.report(
        "image_side_too_large",
        image.index,
        image.field,
        f"image is {width}x{height} px; the target accepts at most {limit} px per side",
        kind="image_side_many" if many else "image_side",
        local=image.local,
        limit=limit,
    )


def _unsupported(req: Request, index: int, k: int) -> Violation:
    return req.report(
        "image_unsupported",
        index,
        f"content[{k}]",
        f"{req.target.model_id} does not accept images",
        kind="image_unsupported",
        local=k,
    )


def _total(req: Request, images: list[_Inline]) -> list[Violation]:
    limit = req.policy.max_total_image_bytes
    total = sum(image.size for image in images)
    if limit is None or total <= limit:
        return []
    reason = f"inline images total {total} bytes; the target accepts at most {limit}"
    return [
        req.report("images_total_too_large", None, "", reason, kind="images_total", limit=limit)
    ]


def check_images(req: Request) -> list[Violation]:
    """Images the target cannot take: unsupported, unreadable, or over a size limit."""
    parts = _image_parts(req)
    if req.target.capabilities.images is False and req.policy.downgrade_images:
        return [_unsupported(req, index, k) for index, k, _ in parts]
    out: list[Violation] = []
    images: list[_Inline] = []
    for index, k, url in parts:
        measured = _measure(req, index, k, url)
        if isinstance(measured, Violation):
            out.append(measured)
        elif measured is not None:
            images.append(measured)
    limit, many = _side_limit(req, len(parts))
    for image in images:
        out += [v for v in (_too_large(req, image), _too_wide(req, image, limit, many)) if v]
    return out + _total(req, images)


def _blank(text: str) -> ErrorKind | None:
    """The error kind for an empty or whitespace-only text, else ``None``."""
    if not text:
        return "empty_text"
    return "blank_text" if not text.strip() else None


_ASSISTANT_PAYLOAD = ("thinking_blocks", "reasoning_content", "reasoning_items")


def _carries_nothing(msg: Msg) -> bool:
    """A user message, or an assistant message without reasoning, that has no content."""
    if msg.get("role") == "user":
        return True
    return msg.get("role") == "assistant" and not any(msg.get(k) for k in _ASSISTANT_PAYLOAD)


def _empty_texts(req: Request, index: int, msg: Msg) -> list[Violation]:
    content = msg.get("content")
    found: list[tuple[str, ErrorKind | None, int]] = []
    if content == [] or (content is None and _carries_nothing(msg)):
        found.append(("content", "empty_text", 0))
    if isinstance(content, str):
        found.append(("content", _blank(content), 0))
    for k, part in enumerate(content if isinstance(content, list) else ()):
        if isinstance(part, dict) and part.get("type") == "text":
            text = part.get("text")
            found.append((f"content[{k}].text", _blank(text) if isinstance(text, str) else None, k))
    return [
        req.report("empty_text", index, where, "empty or whitespace-only text", kind=kind, local=k)
        for where, kind, k in found
        if kind is not None
    ]


def _has_text_signatures(msg: Msg) -> bool:
    """Gemini text-part signatures ride in ``provider_specific_fields``."""
    fields = msg.get("provider_specific_fields")
    return isinstance(fields, dict) and bool(fields.get("thought_signatures"))


def check_empty_text(req: Request) -> list[Violation]:
    """Empty or whitespace-only text, for targets that reject it.

    Checked in user, assistant (not beside tool calls), system and developer messages:
    Anthropic moves system text into ``system``, which rejects empty blocks too.
    """
    if not req.policy.reject_empty_text:
        return []
    out: list[Violation] = []
    for index, msg in enumerate(req.messages):
        if msg is None or msg.get("role") not in ("user", "assistant", "system", "developer"):
            continue
        if msg.get("tool_calls") or msg.get("function_call") is not None:
            continue
        if req.policy.keep_signed_empty_text and _has_text_signatures(msg):
            continue
        out += _empty_texts(req, index, msg)
    return out


_NULL_ERROR = "Invalid value for 'content': expected a string, got null."


def check_null_content(req: Request) -> list[Violation]:
    """``null`` content outside assistant messages (OpenAI: ``expected a string, got null``)."""
    return [
        Violation(
            index=index,
            field="content",
            code="null_content",
            provider_error=_NULL_ERROR,
            message=f"a {msg.get('role')} message with null content",
        )
        for index, msg in enumerate(req.messages)
        if msg is not None
        and msg.get("role") in ("user", "system", "developer", "tool", "function")
        and "content" in msg
        and msg["content"] is None
    ]
