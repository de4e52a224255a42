"""Hygiene's side of a call is written once as steps; a sync and an async driver run it."""

from __future__ import annotations

import asyncio
import gc
import threading
from collections.abc import Sequence
from typing import Any

import pytest

from litellm_hygiene._integration._options import HygieneOptions
from litellm_hygiene._integration._steps import Lookup, Record, Steps, Work, run, run_sync
from litellm_hygiene._integration._store import MemoryStore, Provenance

_PROVENANCE = Provenance("anthropic", "anthropic-messages", "claude-sonnet-4-5")
_TURN = {"role": "assistant", "content": "Done.", "tool_calls": []}


class _FailingStore(MemoryStore):
    """An in-process store whose lookups fail."""

    def get_many(self, key_sets: Sequence[Any]) -> list[Provenance | None]:
        raise ConnectionError("down")

    async def aget_many(self, key_sets: Sequence[Sequence[str]]) -> list[Provenance | None]:
        raise ConnectionError("down")


def _where() -> tuple[bool, bool]:
    """Whether the collector runs, and the thread's identity (for the test)."""
    return gc.isenabled(), threading.get_ident() == _MAIN


_MAIN = threading.get_ident()


def _steps(seen: list[Any], heavy: bool) -> Steps[str]:
    """Work, a record and a lookup of what was recorded, a failing lookup survived."""
    seen.append((yield Work(_where, (), heavy)))
    yield Record(_TURN, _PROVENANCE)
    found = yield Lookup([["no such key"]])
    seen.append(found)
    try:
        yield Work(_boom)
    except ValueError as err:
        seen.append(str(err))
    return "done"


def _boom() -> None:
    raise ValueError("thrown back where it was yielded")


def _drive(driver: str, steps: Steps[str], store: Any) -> str:
    options = HygieneOptions()
    if driver == "async":
        return asyncio.run(run(steps, options, store))
    return run_sync(steps, options, store)


@pytest.mark.parametrize("driver", ["async", "sync"])
def test_both_drivers_run_the_same_steps_alike(driver: str) -> None:
    seen: list[Any] = []
    store = MemoryStore()
    assert _drive(driver, _steps(seen, heavy=False), store) == "done"
    assert seen == [(False, True), [None], "thrown back where it was yielded"]
    assert len(store) > 0  # the record reached the store


@pytest.mark.parametrize(("driver", "on_loop"), [("async", False), ("sync", True)])
def test_heavy_work_leaves_the_event_loop_only_in_the_async_driver(
    driver: str, on_loop: bool
) -> None:
    seen: list[Any] = []
    _drive(driver, _steps(seen, heavy=True), MemoryStore())
    assert seen[0] == (False, on_loop)  # paused either way


@pytest.mark.parametrize("driver", ["async", "sync"])
def test_a_failing_step_is_thrown_into_the_steps(driver: str) -> None:
    def steps() -> Steps[str]:
        try:
            yield Lookup([["k"]])
        except ConnectionError:
            return "survived"
        return "not reached"

    assert _drive(driver, steps(), _FailingStore()) == "survived"


@pytest.mark.parametrize("driver", ["async", "sync"])
def test_a_failure_the_steps_do_not_catch_reaches_the_caller(driver: str) -> None:
    def steps() -> Steps[str]:
        yield Work(_boom)
        return "not reached"

    with pytest.raises(ValueError, match="thrown back"):
        _drive(driver, steps(), None)
