"""Test-wide setup: LiteLLM's model map is read from the installed package, never fetched."""

from __future__ import annotations

import asyncio
import inspect
import os
from collections.abc import Iterator

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from hypothesis import settings

# CI replays a fixed set of examples, so a landing is never decided by a random draw;
# local runs keep searching new transcripts (that search found most of the bugs).
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture
def isolated_litellm_callbacks() -> Iterator[None]:
    """Empty every LiteLLM callback list for the test and restore them afterwards."""
    from tests.support.litellm_callbacks import restored_callbacks

    with restored_callbacks(empty=True):
        yield


@pytest.fixture
def vertex_token(monkeypatch: pytest.MonkeyPatch) -> None:
    """Vertex AI's routes without Google credentials: a token, never fetched."""
    from litellm.llms.vertex_ai.vertex_llm_base import VertexBase

    def token(self: object, *args: object, **kwargs: object) -> tuple[str, str]:
        return "token", "project"

    async def token_async(self: object, *args: object, **kwargs: object) -> tuple[str, str]:
        return "token", "project"

    monkeypatch.setattr(VertexBase, "_ensure_access_token", token)
    monkeypatch.setattr(VertexBase, "_ensure_access_token_async", token_async)


@pytest.fixture(autouse=True)
def _event_loop_for_sync_tests(request: pytest.FixtureRequest) -> Iterator[None]:
    """Give each sync test an event loop of its own, and close it afterwards.

    LiteLLM's sync paths call ``asyncio.get_event_loop()``, which on Python 3.11 creates
    and installs a loop when there is none. The next async test replaces it without
    closing it, and its garbage collection later fails an unrelated test with an
    "unclosed event loop" ResourceWarning. A loop owned and closed here never leaks.
    """
    if inspect.iscoroutinefunction(getattr(request.node, "function", None)):
        yield
        return
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        yield
    finally:
        asyncio.set_event_loop(None)
        loop.close()
