"""What a check already found true of a string, remembered by the string's hash.

A conversation sends its whole history again on every request, so the same tool-call
ids and arguments are checked again and again; hashing a string costs a fraction of
checking it. Only hashes are kept, never the strings (no conversation content stays in
memory). A ``str`` hash is keyed per process: no one can make a string collide with
another, and one does by chance once in 2**64 (a check then passes a string it would
have failed, and the request goes out as it would without hygiene). Bounded: emptied
when full.
"""

from __future__ import annotations

from typing import Final

__all__ = ["Remembered"]

LIMIT: Final = 65_536
"""The most hashes one memo keeps before it starts again."""


class Remembered:
    """The hashes of the strings a check passed, in this process."""

    __slots__ = ("hashes",)

    def __init__(self) -> None:
        self.hashes: set[int] = set()

    def __contains__(self, value: str) -> bool:
        return hash(value) in self.hashes

    def add(self, value: str) -> None:
        """Remember that ``value`` passed."""
        hashes = self.hashes
        if len(hashes) >= LIMIT:
            hashes.clear()
        hashes.add(hash(value))
