"""The package's error tree.

Every error litellm_hygiene raises on purpose derives from :class:`HygieneError`, so a
caller can catch the package's failures in one place without catching LiteLLM's or
pydantic's::

    HygieneError
    ├── ConfigurationError     misuse: a bad option, an unknown policy name
    └── InvalidMessageError    an input message the converter cannot read

Errors carry structured fields (``code``, ``index``, ``field``) so an integration can
report them without parsing prose. Foreign errors are chained with ``raise ... from``.
"""

from __future__ import annotations

__all__ = ["ConfigurationError", "HygieneError", "InvalidMessageError"]


class HygieneError(Exception):
    """Base class of every error raised by litellm_hygiene.

    Attributes:
        code: A short, stable, machine-readable name of the failure.
    """

    code: str = "hygiene_error"


class ConfigurationError(HygieneError, ValueError):
    """The package was configured or called in a way it cannot honour."""

    code = "configuration_error"


class InvalidMessageError(HygieneError, ValueError):
    """An OpenAI-shaped message that cannot be read, named by index and field.

    Raised instead of dropping the message: nothing the caller sent is discarded
    without a report.

    Attributes:
        index: Position of the offending message in the caller's list.
        field: Dotted path of the offending field inside that message
            (``"role"``, ``"content[2].image_url"``, ``"tool_calls[0].function"``).
        reason: What is wrong, in words.
    """

    code = "invalid_message"

    def __init__(self, index: int, field: str, reason: str) -> None:
        """Build the error and its message from its structured parts."""
        self.index = index
        self.field = field
        self.reason = reason
        super().__init__(f"messages[{index}].{field}: {reason}")
