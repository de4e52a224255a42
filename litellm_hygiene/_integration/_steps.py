"""Hygiene's side of a call, written once, and the sync and async drivers that run it.

What hygiene does for a call (read the request, look its turns up in the provenance
store, run the rules, write the result; or stamp an answer and record it) is a
generator of steps (:data:`Step`): the synchronous work itself (:class:`Work`) and what only
a driver knows how to do with the store (:class:`Lookup`, :class:`Record`). The async
driver (:func:`run`, for LiteLLM's async hooks) awaits the store and runs heavy work on
a worker thread; the sync driver (:func:`run_sync`, for the SDK's sync wrappers) calls
both. Either way each piece of work runs with the garbage collector paused (see
:mod:`._collector`), and never across a store round trip.

A step that fails is thrown into the generator where it yielded, so the generator
decides, once for both drivers, which failures it survives (a store failure never costs
the transformation) and which it lets through.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ._collector import collector_paused
from ._options import HygieneOptions
from ._store import (
    Provenance,
    ProvenanceStore,
    aget_many,
    aput_fingerprints,
    get_many,
    put_fingerprints,
)

__all__ = ["Lookup", "Record", "Step", "Steps", "Work", "run", "run_sync"]

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Work:
    """Synchronous work: ``func(*args)``, with the collector paused.

    Attributes:
        func: What to run.
        args: Its arguments.
        heavy: Long enough to stall an event loop: the async driver runs it on a
            worker thread (Pillow and the store's hashing release the GIL).
    """

    func: Callable[..., Any]
    args: tuple[Any, ...] = ()
    heavy: bool = False


@dataclass(frozen=True, slots=True)
class Lookup:
    """The store's provenance for each set of fingerprints (one round trip)."""

    key_sets: Sequence[Sequence[str]]


@dataclass(frozen=True, slots=True)
class Record:
    """Record ``provenance`` under ``message``'s fingerprints in the store."""

    message: Any
    provenance: Provenance


Step = Work | Lookup | Record
Steps = Generator[Step, Any, _T]
"""Hygiene's side of a call: the steps it takes, and what it returns at the end."""


async def run(steps: Steps[_T], options: HygieneOptions, store: ProvenanceStore | None) -> _T:
    """Run ``steps`` in an event loop: the store awaited, heavy work on a worker thread."""
    outcome: _Outcome = (None, None)
    while True:
        step = _next(steps, outcome)
        if isinstance(step, _Done):
            result: _T = step.value
            return result
        try:
            if isinstance(step, Work):
                if step.heavy:
                    value = await asyncio.to_thread(_paused, options, step.func, step.args)
                else:
                    value = _paused(options, step.func, step.args)
            elif isinstance(step, Lookup):
                value = await aget_many(_the(store), step.key_sets)
            else:
                await aput_fingerprints(_the(store), step.message, step.provenance)
                value = None
            outcome = (value, None)
        except Exception as err:
            outcome = (None, err)


def run_sync(steps: Steps[_T], options: HygieneOptions, store: ProvenanceStore | None) -> _T:
    """Run ``steps`` here: the store called, every piece of work on this thread."""
    outcome: _Outcome = (None, None)
    while True:
        step = _next(steps, outcome)
        if isinstance(step, _Done):
            result: _T = step.value
            return result
        try:
            if isinstance(step, Work):
                value = _paused(options, step.func, step.args)
            elif isinstance(step, Lookup):
                value = get_many(_the(store), step.key_sets)
            else:
                put_fingerprints(_the(store), step.message, step.provenance)
                value = None
            outcome = (value, None)
        except Exception as err:
            outcome = (None, err)


_Outcome = tuple[Any, Exception | None]
"""What the last step gave (its value, or the exception it raised)."""


@dataclass(frozen=True, slots=True)
class _Done:
    value: Any


def _next(steps: Steps[Any], outcome: _Outcome) -> Step | _Done:
    """The next step, given what the last one gave; ``_Done`` with the steps' result."""
    value, failure = outcome
    try:
        return steps.send(value) if failure is None else steps.throw(failure)
    except StopIteration as done:
        return _Done(done.value)


def _paused(options: HygieneOptions, func: Callable[..., _T], args: tuple[Any, ...]) -> _T:
    """``func(*args)`` with the collector paused, unless ``options.pause_gc`` is off."""
    return collector_paused(func, *args) if options.pause_gc else func(*args)


def _the(store: ProvenanceStore | None) -> ProvenanceStore:
    if store is None:  # a step of the store is only yielded when there is one
        raise RuntimeError("a store step without a store")
    return store
