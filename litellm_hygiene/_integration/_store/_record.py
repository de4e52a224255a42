"""What a store records: the provenance of an assistant message (the stamp's contents)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..._openai._decode import read_stamp

__all__ = ["Provenance"]


@dataclass(frozen=True, slots=True)
class Provenance:
    """Who produced an assistant message: the contents of litellm_hygiene's stamp.

    Attributes:
        provider: LiteLLM's provider name (``"anthropic"``, ``"gemini"``).
        api: The wire protocol (an ``Api`` value); signatures are valid only within one.
        model: The model name the response came from.
    """

    provider: str | None
    api: str | None
    model: str | None

    def as_stamp(self) -> dict[str, str | None]:
        """The stamp written under ``STAMP_KEY`` on an assistant message."""
        return {"provider": self.provider, "api": self.api, "model": self.model}

    @classmethod
    def from_stamp(cls, stamp: Any) -> Provenance | None:
        """Read a stamp (or a stored value); ``None`` unless it is well-formed.

        Well-formed as the wire reader demands of a stamp on a message
        (:func:`~litellm_hygiene._openai._decode.read_stamp`: only the keys
        ``provider``, ``api`` and ``model``, each a string or ``None``, ``api`` one of
        the known protocols), and with at least one of them set: anything else is not
        ours to trust.
        """
        if isinstance(stamp, Mapping) and not isinstance(stamp, dict):
            stamp = dict(stamp)
        read = read_stamp(stamp)
        if read is None or read == _UNKNOWN:
            return None
        return cls(*read)


_UNKNOWN = (None, None, None)
"""A stamp that names no part of its producer."""
