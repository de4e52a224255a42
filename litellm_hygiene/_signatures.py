"""Opaque provider signatures: the one check Google applies to them.

A signature is only ever stored and replayed, never read; the single thing the package
checks of its value is whether it is canonical base64, because Google decodes thought
signatures as bytes (``Base64 decoding failed``) and real ones always are.
"""

from __future__ import annotations

import base64
import binascii
import functools

__all__ = ["is_canonical_base64"]


@functools.lru_cache(maxsize=4096)
def is_canonical_base64(value: str) -> bool:
    """``value`` decodes as base64 and re-encodes to itself (Google's check).

    Real Gemini thought signatures always are; anything else (an Anthropic ``msg_`` id
    forwarded by a router, an empty string) is neither valid for Google nor evidence.
    """
    if not value or len(value) % 4:
        return False
    try:
        return base64.b64encode(base64.b64decode(value, validate=True)).decode() == value
    except (binascii.Error, ValueError):
        return False
