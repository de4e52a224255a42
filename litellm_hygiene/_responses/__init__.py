"""The OpenAI Responses shape (``/v1/responses``: Codex) to and from the neutral model.

A request's ``input`` (a string, or a list of items) and ``instructions`` are read by
:func:`from_responses` and written back by :func:`to_responses`; for every request the
reader accepts, ``to_responses(from_responses(input, instructions))`` is
``(input, instructions)``. The module docstrings of ``_decode`` and ``_encode`` say where
each item and key lives in the neutral model.
"""

from ._decode import from_responses
from ._encode import to_responses

__all__ = ["from_responses", "to_responses"]
