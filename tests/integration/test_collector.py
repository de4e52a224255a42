"""The garbage collector is paused while hygiene works on a request, and only then."""

from __future__ import annotations

import asyncio
import gc
import threading
from collections.abc import Iterator, Mapping, Sequence
from types import SimpleNamespace
from typing import Any

import pytest

from litellm_hygiene._executor import run_rules as real_run_rules
from litellm_hygiene._integration import _request, _steps
from litellm_hygiene._integration._collector import collector_paused
from litellm_hygiene._integration._options import HygieneOptions
from litellm_hygiene._integration._shapes import ChatView, anthropic_view
from litellm_hygiene._integration._store import MemoryStore, Provenance
from litellm_hygiene._integration._store._fingerprints import fingerprints
from litellm_hygiene._integration._store._memory import Ask, Found
from litellm_hygiene._recall import Recall
from tests.support import preparing


@pytest.fixture(autouse=True)
def _collector_enabled() -> Iterator[None]:
    """Every test starts with the collector on and leaves it as it found it."""
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_it_is_paused_during_the_call_and_enabled_after() -> None:
    assert collector_paused(gc.isenabled) is False
    assert gc.isenabled()


def test_it_is_enabled_again_when_the_call_raises() -> None:
    def broken() -> None:
        assert not gc.isenabled()
        raise ValueError("broken")

    with pytest.raises(ValueError, match="broken"):
        collector_paused(broken)
    assert gc.isenabled()


def test_a_collector_the_application_disabled_stays_disabled() -> None:
    gc.disable()
    assert collector_paused(gc.isenabled) is False
    assert not gc.isenabled()


def test_work_inside_another_request_s_pause_leaves_it_paused() -> None:
    """A short request worked on while a long one has the collector paused."""
    inside = threading.Event()
    release = threading.Event()
    seen: list[bool] = []

    def long_request() -> None:
        inside.set()
        assert release.wait(10)
        seen.append(gc.isenabled())

    worker = threading.Thread(target=collector_paused, args=(long_request,))
    worker.start()
    assert inside.wait(10)
    assert collector_paused(gc.isenabled) is False  # the short one, inside the long one
    assert not gc.isenabled()  # the long request still works: still paused
    release.set()
    worker.join(10)
    assert seen == [False]
    assert gc.isenabled()


def test_a_pause_never_outlasts_the_request_that_began_it() -> None:
    """Under overlapping work the collector still runs: the first request's pause ends
    with its own work, though a request that started inside it is still working."""
    inside = threading.Event()
    release = threading.Event()
    seen: list[bool] = []

    def first_request() -> None:
        worker = threading.Thread(target=collector_paused, args=(second_request,))
        worker.start()
        assert inside.wait(10)
        first.append(worker)

    def second_request() -> None:
        inside.set()
        assert release.wait(10)
        seen.append(gc.isenabled())

    first: list[threading.Thread] = []
    collector_paused(first_request)
    assert gc.isenabled()  # the first request is done: the collector runs again
    release.set()
    first[0].join(10)
    assert seen == [True]  # the second request finished with the collector on
    assert gc.isenabled()


class _Store:
    """A provenance store that notes whether the collector runs while it is asked."""

    def __init__(self) -> None:
        self.collector_on: list[bool] = []

    def get_many(self, key_sets: Sequence[Sequence[str]]) -> list[Provenance | None]:
        self.collector_on.append(gc.isenabled())
        return [None] * len(key_sets)

    async def aget_many(self, key_sets: Sequence[Sequence[str]]) -> list[Provenance | None]:
        await asyncio.sleep(0)  # other requests run here: the collector must be on
        return self.get_many(key_sets)

    async def aget(self, keys: Sequence[str]) -> Provenance | None:
        raise AssertionError("asked through aget_many")

    async def aput(self, keys: Sequence[str], provenance: Provenance) -> None:
        raise AssertionError("nothing is recorded here")

    def get(self, keys: Sequence[str]) -> Provenance | None:
        raise AssertionError("asked through get_many")

    def put(self, keys: Sequence[str], provenance: Provenance) -> None:
        raise AssertionError("nothing is recorded here")


_KWARGS: dict[str, Any] = {
    "model": "anthropic/claude-sonnet-4-5",
    "messages": [
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "content": "a",
            "thinking_blocks": [{"type": "thinking", "thinking": "t", "signature": "c2ln"}],
        },
        {"role": "user", "content": "next"},
    ],
}


@pytest.mark.parametrize("pause", [True, False])
@pytest.mark.parametrize("entry", ["async", "sync"])
def test_the_rules_run_paused_and_the_store_lookup_does_not(
    monkeypatch: pytest.MonkeyPatch, pause: bool, entry: str
) -> None:
    """Paused around the synchronous work only (never across the store's await); with
    ``pause_gc`` off, never."""
    rules_saw: list[bool] = []

    def noting(conv: Any) -> Any:
        rules_saw.append(gc.isenabled())
        return real_run_rules(conv)

    monkeypatch.setattr(_request, "run_rules", noting)
    store = _Store()
    options = HygieneOptions(pause_gc=pause)
    if entry == "async":
        prepared = asyncio.run(preparing.prepare_request(_KWARGS, options, store))
    else:
        prepared = preparing.prepare_request_sync(_KWARGS, options, store)
    assert prepared.messages == _KWARGS["messages"]
    assert rules_saw == [not pause]
    assert store.collector_on == [True]
    assert gc.isenabled()


@pytest.mark.parametrize("store_kind", ["memory", "none"])
def test_with_nothing_to_await_the_request_is_one_paused_step(
    monkeypatch: pytest.MonkeyPatch, store_kind: str
) -> None:
    """An in-process store's lookups are calls: read, lookups and rules run in one
    pause, so a collection never lands on a request half done."""
    pauses: list[str] = []
    real_paused = collector_paused

    def counting(func: Any, *args: Any) -> Any:
        pauses.append(func.__name__)
        return real_paused(func, *args)

    monkeypatch.setattr(_steps, "collector_paused", counting)
    store = MemoryStore() if store_kind == "memory" else None
    lookups: list[bool] = []
    if store is not None:
        answer = _KWARGS["messages"][1]
        store.put(fingerprints(answer), Provenance("anthropic", "anthropic-messages", "x"))
        real_many = store.lookup

        def noting(asks: Sequence[Ask]) -> Found | None:
            lookups.append(gc.isenabled())
            return real_many(asks)

        monkeypatch.setattr(store, "lookup", noting)
    prepared = asyncio.run(preparing.prepare_request(_KWARGS, HygieneOptions(), store))
    assert pauses == ["_prepare_here"]
    assert lookups == ([False] if store is not None else [])
    # The store's answer was used: the turn is another model's, so its thinking goes.
    assert prepared.restored == (1 if store is not None else 0)
    assert ("thinking_blocks" in prepared.messages[1]) is (store is None)
    assert gc.isenabled()


_MESSAGES_CALL: dict[str, Any] = {
    "model": "anthropic/claude-sonnet-4-5",
    "messages": [
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "t", "signature": "c2ln"},
                {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}},
            ],
        },
        {"role": "user", "content": "next"},
    ],
}
"""A ``/v1/messages`` call whose interrupted call gets a result (read, fixed, written),
and whose unstamped thinking turn is looked up in the store."""


def _view_noting(seen: list[tuple[str, bool, bool]]) -> Any:
    """``anthropic_view``, noting for its read and its write whether the collector ran
    and whether it ran on the event loop's thread."""
    main = threading.get_ident()

    def view_of(kwargs: Mapping[str, Any], recall: Recall | None = None) -> Any:
        seen.append(("read", gc.isenabled(), threading.get_ident() == main))
        view = anthropic_view(kwargs, recall)

        def written(prepared: Any) -> Any:
            seen.append(("write", gc.isenabled(), threading.get_ident() == main))
            return ChatView.written(view, prepared)

        return SimpleNamespace(kwargs=view.kwargs, wire=view.wire, written=written, seen=view.seen)

    return view_of


@pytest.mark.parametrize("store_kind", ["memory", "async"])
def test_another_shapes_reading_and_writing_run_paused(store_kind: str) -> None:
    """A ``/v1/messages`` or ``/v1/responses`` call is read into chat messages and written
    back as part of the work: with the collector paused, never across the store's await."""
    seen: list[tuple[str, bool, bool]] = []
    store: Any = MemoryStore() if store_kind == "memory" else _Store()
    options = HygieneOptions()
    call, prepared = asyncio.run(
        preparing.prepare_shaped(_MESSAGES_CALL, options, store, _view_noting(seen))
    )
    assert [(step, on) for step, on, _ in seen] == [("read", False), ("write", False)]
    assert all(main for _, _, main in seen)  # a light call stays on the loop
    assert call["messages"][1]["tool_calls"][0]["id"] == "toolu_1"  # the chat form read
    sent = prepared.apply(_MESSAGES_CALL)
    assert sent["messages"][2]["content"][0]["type"] == "tool_result"  # written back
    if store_kind == "async":
        assert store.collector_on == [True]
    assert gc.isenabled()


def test_a_heavy_call_of_another_shape_is_read_off_the_event_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Reading a long ``/v1/messages`` history is work like the rules': on a worker
    thread once the call is heavy, so the event loop serves other requests meanwhile."""
    monkeypatch.setattr(_request, "HEAVY_MESSAGES", 2)
    seen: list[tuple[str, bool, bool]] = []
    asyncio.run(
        preparing.prepare_shaped(_MESSAGES_CALL, HygieneOptions(), None, _view_noting(seen))
    )
    assert [(step, main) for step, _, main in seen] == [("read", False), ("write", False)]
