"""Deterministic provider-shaped ids and signatures, derived from a seed string.

Re-recording a cassette must reproduce it byte for byte when nothing changed, so nothing
the stand-in answers is random: every id, signature and timestamp is a function of a
seed the test script chose.
"""

from __future__ import annotations

import base64
import hashlib
import string

__all__ = ["BASE62", "CREATED", "HEX", "b64_token", "token"]

BASE62 = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
CREATED = 1_760_000_000
"""The fixed ``created`` timestamp (2025-10-09) of every stand-in response."""


def _stream(seed: str, size: int) -> bytes:
    out = b""
    counter = 0
    while len(out) < size:
        out += hashlib.sha256(f"{seed}#{counter}".encode()).digest()
        counter += 1
    return out[:size]


def token(seed: str, length: int, alphabet: str = BASE62) -> str:
    """``length`` characters of ``alphabet``, a pure function of ``seed``."""
    return "".join(alphabet[b % len(alphabet)] for b in _stream(seed, length))


def b64_token(seed: str, nbytes: int) -> str:
    """Standard base64 of ``nbytes`` pseudo-random bytes: the shape of real signatures."""
    return base64.b64encode(_stream(seed, nbytes)).decode("ascii")
