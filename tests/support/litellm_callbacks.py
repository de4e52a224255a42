"""Save and restore LiteLLM's callback lists around a test.

LiteLLM copies each ``litellm.callbacks`` entry into its input/success/failure lists on
the first call and skips an instance of a class it already holds, so a callback one
test registered would otherwise receive the next test's events.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import litellm

from litellm_hygiene._demo._run import CALLBACK_LISTS


@contextmanager
def restored_callbacks(*, empty: bool = False) -> Iterator[None]:
    """Restore every callback list on exit; with ``empty``, start the block with none."""
    saved = {name: list(getattr(litellm, name)) for name in CALLBACK_LISTS}
    if empty:
        for name in CALLBACK_LISTS:
            setattr(litellm, name, [])
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(litellm, name, value)
