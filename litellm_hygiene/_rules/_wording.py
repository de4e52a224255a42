"""How provider error wordings are written and filled in.

Each family's profile holds its words for every rule it enforces (rule -> kind of
breakage -> template, :mod:`litellm_hygiene._families`); this module holds what
they share: the kinds of breakage, the kinds of path ``{where}`` names, and the
formatter. Templates name wire positions as placeholders
(``{m}`` wire message, ``{c}`` block inside it, ``{i}`` and ``{j}`` the caller's message
and list positions, ``{where}`` the family's path to the offending field). The texts
come from PROVIDER_RULES.md and from errors seen in public issue threads; a kind
missing from a table means no known provider error, and the violation then carries
``provider_error=None``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal

__all__ = ["DEFAULTS", "ErrorKind", "PathKind", "wording"]

ErrorKind = Literal[
    "id_chars",
    "id_too_long",
    "id_length",
    "id_empty",
    "item_id_chars",
    "item_id_prefix",
    "call_without_result",
    "result_without_call",
    "result_without_call_unnamed",
    "duplicate_result",
    "id_collision",
    "user_after_user",
    "assistant_after_assistant",
    "assistant_first",
    "assistant_first_with_calls",
    "user_after_tool",
    "system_after_turn",
    "system_unsupported",
    "system_misplaced",
    "assistant_last",
    "foreign_thinking",
    "foreign_redacted",
    "foreign_thought_signature",
    "foreign_reasoning_item",
    "non_base64_signature",
    "extra_field",
    "image_unsupported",
    "image_base64",
    "image_too_large",
    "image_side",
    "image_side_many",
    "images_total",
    "empty_text",
    "blank_text",
    "null_content",
    "invalid_arguments",
    "lone_reasoning_item",
    "image_media_type",
    "missing_reasoning",
    "thinking_not_first",
]
"""What went wrong, as a provider words it (several kinds may share one code)."""

PathKind = Literal["call_id", "result_id", "item_id"]
"""Which field ``{where}`` names in a family's wording."""

DEFAULTS: Final[dict[str, Any]] = {
    "j": 0,
    "id": "",
    "n": 0,
    "limit": 0,
    "exact": 0,
    "key": "",
    "sig": "",
    "item": "rs_...",
    "role": "user",
    "n_b64": 0,
    "limit_b64": 0,
    "limit_b64_mb": "0",
    "declared": "",
    "actual": "",
    "found": "tool_use",
}


_FALLBACK: Final[dict[ErrorKind, ErrorKind]] = {
    "result_without_call_unnamed": "result_without_call",
    "assistant_first_with_calls": "assistant_first",
}
"""A more specific kind falls back to the general one where a family has no own text."""


def wording(
    table: Mapping[ErrorKind, str],
    paths: Mapping[PathKind, str],
    kind: ErrorKind,
    path: PathKind | None,
    values: dict[str, Any],
) -> str | None:
    """A family's error text for ``kind``, formatted with ``values``; ``None`` if unknown.

    ``table``: the family's words for the rule (``Profile.words``); ``paths``: where its
    errors point (``Profile.paths``), for ``{where}``.
    """
    template = table.get(kind) or table.get(_FALLBACK.get(kind, kind))
    if template is None:
        return None
    if path is not None:
        values["where"] = paths.get(path, path).format_map(values)
    return template.format_map(values)
