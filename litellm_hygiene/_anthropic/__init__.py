"""The Anthropic Messages shape (``/v1/messages``: Claude Code) to and from the neutral model."""

from ._decode import from_anthropic
from ._encode import to_anthropic

__all__ = ["from_anthropic", "to_anthropic"]
