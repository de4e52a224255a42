"""What hygiene remembers of a conversation changes nothing: replayed sessions, request by request.

A coding agent's request ``n + 1`` is request ``n`` and one exchange; hygiene remembers
what it worked out per message (``_recall``) and works out only what is new. These
tests replay random sessions request by request (append; edit, drop or compact in the
middle; switch target family; switch shape; restart the process) through two engines
sharing one provenance store: one remembering (the default), one that never does
(``recall_max_mb=0``), each request parsed afresh for each. Every request's output
(the call as hygiene hands it to LiteLLM), report and every change with its position
and reason (at the core: ``read_request`` then ``sanitize_read``) must be equal.

Sessions come from the rules' own generators (ids each family rejects, foreign and
same-model thinking, droppable turns, Gemini's signed answers, stamps, results in the
wrong place), so every rule finds something in them; the edits break what was fine
and fix what was broken, in the middle of what is remembered.
"""

from __future__ import annotations

import base64
import copy
import gc
import json
import tracemalloc
from collections import UserList
from dataclasses import replace
from types import MappingProxyType
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litellm_hygiene import from_openai, resolve_target
from litellm_hygiene._anthropic import to_anthropic
from litellm_hygiene._executor import read_conversation, run_rules
from litellm_hygiene._integration._engine import HygieneEngine
from litellm_hygiene._integration._prepare import prepare_sync
from litellm_hygiene._integration._report import CallReport
from litellm_hygiene._integration._store import MemoryStore, Provenance, put_fingerprints
from litellm_hygiene._integration._store._fingerprints import fingerprints
from litellm_hygiene._openai._wire import OPENAI
from litellm_hygiene._pipeline import context_for
from litellm_hygiene._recall import Recall, Seen, build, patch
from litellm_hygiene._responses import to_responses
from litellm_hygiene._rules import Conversation, Slot
from litellm_hygiene._rules.tool_call_id import ToolCallId
from litellm_hygiene._rules.tool_pairing import ToolPairing
from litellm_hygiene._sanitize import read_request, sanitize_read
from tests.support.clock import Clock
from tests.support.strategies import agent_turn, droppable_turn, gemini_turn, message

Json = dict[str, Any]
Shape = Literal["chat", "anthropic_messages", "responses"]

TARGETS = [
    "anthropic/claude-sonnet-4-5",
    "anthropic/claude-opus-4-8",
    "anthropic/claude-3-5-haiku-20241022",
    "mistral/mistral-large-latest",
    "openai/gpt-4o",
    "gemini/gemini-2.5-pro",
    "deepseek/deepseek-reasoner",
    "bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0",
]
PROVENANCES = [
    Provenance("anthropic", "anthropic", "claude-sonnet-4-5"),
    Provenance("openai", "openai", "gpt-4o"),
    Provenance("gemini", "gemini", "gemini-2.5-pro"),
]

chunks = st.one_of(
    agent_turn(), agent_turn(), droppable_turn(), gemini_turn(), st.lists(message(), max_size=2)
)
"""A step of a session: an exchange (most often), a droppable turn, Gemini's answer,
or loose messages of every kind."""

steps = st.one_of(
    st.just(("append",)),
    st.just(("append",)),
    st.just(("append",)),
    st.tuples(st.just("edit"), st.integers(0, 1000), st.sampled_from(["text", "id", "role"])),
    st.tuples(st.just("drop"), st.integers(0, 1000)),
    st.tuples(st.just("compact"), st.integers(0, 1000)),
    st.tuples(st.just("target"), st.sampled_from(TARGETS)),
    st.tuples(st.just("target"), st.sampled_from(TARGETS)),
    st.tuples(st.just("shape"), st.sampled_from(["chat", "anthropic_messages", "responses"])),
    st.just(("restart",)),
    # Back to the history of an earlier request: a client retrying from there, or another
    # session of the same beginning, after the recall remembered a branch of it.
    st.tuples(st.just("back"), st.integers(0, 1000)),
    st.tuples(st.just("remember"), st.integers(0, 1000), st.sampled_from(PROVENANCES)),
    # The next step's answers recorded, as the proxy records each response.
    st.tuples(st.just("answered"), st.sampled_from(PROVENANCES)),
    st.tuples(st.just("answered"), st.sampled_from(PROVENANCES)),
)
"""What happens before the next request (``append``: only the next step)."""


def _edited(message: Json, how: str) -> Json:
    """``message`` changed in a way some rule cares about."""
    out = copy.deepcopy(message)
    if how == "text":
        content = out.get("content")
        out["content"] = "" if content else "now it says something"
    elif how == "id":
        for call in out.get("tool_calls") or []:
            call["id"] = "call|" + str(call.get("id"))
        if "tool_call_id" in out:
            out["tool_call_id"] = "call|" + str(out["tool_call_id"])
    else:
        out["role"] = {"assistant": "user", "user": "assistant"}.get(str(out.get("role")), "user")
    return out


def _fresh(value: Any) -> Any:
    """As a proxy parses a request afresh (JSON where it is JSON)."""
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError):
        return copy.deepcopy(value)


def _kwargs(history: list[Json], model: str, shape: Shape) -> tuple[Json, str | None] | None:
    """The request for ``history`` in ``shape``; ``None`` when it cannot be put so."""
    if shape == "chat":
        return {"model": model, "messages": history}, None
    try:
        context = from_openai(history)
        if shape == "anthropic_messages":
            blocks, _ = to_anthropic(context.model_copy(update={"system_prompt": None}))
            kwargs: Json = {"model": model, "messages": blocks, "max_tokens": 64}
            if context.system_prompt:
                kwargs["system"] = context.system_prompt
            return kwargs, shape
        items, instructions = to_responses(context)
    except Exception:  # a loose message no converter takes: this step stays on chat
        return None
    kwargs = {"model": model, "input": items}
    if instructions:
        kwargs["instructions"] = instructions
    return kwargs, shape


def _sent(engine: HygieneEngine, kwargs: Json, shape: str | None) -> tuple[Json, Json]:
    """What the hook hands LiteLLM for ``kwargs``, and the call's report (or the error
    it raises, by type and message)."""
    report = CallReport()
    try:
        prepared = prepare_sync(engine, kwargs, report, shape)
    except Exception as err:  # fail_closed refuses what it cannot read
        return {"raised": type(err).__name__, "message": str(err)}, report.as_dict()
    sent = prepared.apply(kwargs) if prepared is not None and prepared.changed else kwargs
    return sent, report.as_dict()


def _engines(
    store: MemoryStore, twin: MemoryStore | None = None, **options: Any
) -> tuple[HygieneEngine, HygieneEngine]:
    """A remembering engine on ``store`` and one that never remembers, on ``twin`` if given."""
    return HygieneEngine(store=store, **options), HygieneEngine(
        store=twin if twin is not None else store, recall_max_mb=0, **options
    )


engine_options = st.sampled_from(
    [
        {},
        {},
        {"unknown_provenance": "foreign"},
        {"unknown_provenance": "same"},
        {"window_max_messages": 5},
        {"window_max_user_turns": 2, "window_preserve_system_messages": False},
        {"fit_to_context": True, "fit_marker": True},
        {"fail_closed": True},
        {"stamp_responses": False},
    ]
)
"""The options a deployment sets that change what a request gets: the engines of a
session share them."""


stores = st.tuples(
    st.sampled_from([3, 8, 10_000]),
    st.sampled_from([None, 2.0, 5.0]),
    st.sampled_from([0, 1, 4096]),
)
"""A store's bound, its entries' lifetime in requests, and the puts it logs: evicting,
expiring, and reading what changed from each mark's last put where the log is short,
each where it meets what is remembered."""


@settings(max_examples=300, deadline=None)
@given(
    first=st.lists(chunks, min_size=1, max_size=3),
    plan=st.lists(st.tuples(steps, chunks), min_size=1, max_size=8),
    model=st.sampled_from(TARGETS),
    shape=st.sampled_from(["chat", "anthropic_messages", "responses"]),
    store_made=stores,
    options=engine_options,
)
def test_replayed_sessions_get_what_the_full_pipeline_gives(
    first: list[list[Json]],
    plan: list[tuple[tuple[Any, ...], list[Json]]],
    model: str,
    shape: Shape,
    store_made: tuple[int, float | None, int],
    options: Json,
) -> None:
    """Each engine has its own store, given the same puts: what their lookups refresh,
    drop and evict is equal too, entry by entry and in order. Both run with the same
    options (trimming to a window, fitting, failing closed, a provenance assumed)."""
    history = [m for chunk in first for m in chunk]
    clock = Clock()
    store, twin = (
        MemoryStore(store_made[0], store_made[1], clock=clock, logged_puts=store_made[2])
        for _ in range(2)
    )
    remembering, full = _engines(store, twin, **options)
    recall = Recall()  # the core's own, beside the engine's
    earlier: list[list[Json]] = []
    for step, chunk in [(("append",), []), *plan]:
        kind = step[0]
        if kind == "back" and earlier:
            history = copy.deepcopy(earlier[step[1] % len(earlier)])
        elif kind == "edit" and history:
            at = step[1] % len(history)
            history[at] = _edited(history[at], step[2])
        elif kind == "drop" and history:
            del history[step[1] % len(history)]
        elif kind == "compact" and history:
            kept = history[step[1] % len(history) :]
            history = [{"role": "user", "content": "Summary of what came before."}, *kept]
        elif kind == "target":
            model = step[1]
        elif kind == "shape":
            shape = step[1]
        elif kind == "restart":
            remembering, full = _engines(store, twin, **options)
            recall = Recall()
        elif kind in ("remember", "answered"):
            _recorded(step, history, chunk, (store, twin))
        clock.now += 1.0
        history += copy.deepcopy(chunk)
        earlier.append(copy.deepcopy(history))
        made = _kwargs(history, model, shape)
        if made is None:
            made = _kwargs(history, model, "chat")
        assert made is not None
        kwargs, called = made
        expected, expected_report = _sent(full, _fresh(kwargs), called)
        got, got_report = _sent(remembering, _fresh(kwargs), called)
        assert got == expected
        assert got_report == expected_report
        assert list(store._entries.items()) == list(twin._entries.items())
        _same_at_the_core(history, model, recall)


def _recorded(
    step: tuple[Any, ...], history: list[Json], chunk: list[Json], stores: tuple[MemoryStore, ...]
) -> None:
    """A ``remember`` step (a message of the history recorded) or an ``answered`` one
    (the next step's answers recorded, as the proxy records each response), in each store.
    """
    if step[0] == "remember":
        recorded = [history[step[1] % len(history)]] if history else []
        provenance = step[2]
    else:
        recorded = [m for m in chunk if m.get("role") == "assistant"]
        provenance = step[1]
    for answer in recorded:
        for store in stores:
            put_fingerprints(store, answer, provenance)


def _same_at_the_core(history: list[Json], model: str, recall: Recall) -> None:
    """Every change, its position and reason, with and without what ``recall`` holds."""
    messages = _fresh(history)
    ctx = context_for(resolve_target(model))
    try:
        expected = sanitize_read(read_request(_fresh(history), ctx, {}, OPENAI, _skip))
    except Exception as err:  # the core raises alike with what it remembers
        with pytest.raises(type(err)):
            _recalled(messages, model, recall)
        return
    got = _recalled(messages, model, recall)
    assert got.messages == expected.messages
    assert got.report.changes == expected.report.changes
    assert got.params == expected.params
    assert got.dropped_params == expected.dropped_params


def _recalled(messages: list[Json], model: str, recall: Recall) -> Any:
    target = resolve_target(model)
    ctx = context_for(target)
    ctx = replace(ctx, recall_key=recall.key(("OpenAIWire", target, ctx.policy, ctx.source)))
    aligned = recall.align("OpenAIWire", messages)
    if aligned.seen is None:  # the first of its beginning: read as it is
        return sanitize_read(read_request(messages, context_for(target), {}, OPENAI, _skip))
    recall.keep(aligned, messages)
    return sanitize_read(read_request(messages, ctx, {}, OPENAI, _skip, aligned.seen))


def _skip(err: Exception) -> None:
    """Keep an unreadable message, as the hook does."""


# -- the recall itself ----------------------------------------------------------------------


def _conversation(n: int, tag: str = "") -> list[Json]:
    out: list[Json] = [{"role": "system", "content": "rules" + tag}]
    for i in range(n):
        out.append({"role": "user", "content": f"step {i} " * 20})
        out.append({"role": "assistant", "content": f"done {i}"})
    return out


def _remember(recall: Recall, space: str, items: list[Any]) -> Any:
    """Align ``items`` and remember them, as the hook does for a second request."""
    aligned = recall.align(space, items)
    if aligned.seen is None:
        aligned = recall.align(space, items)
    recall.keep(aligned, items)
    return aligned


def test_the_first_request_of_a_beginning_is_only_marked() -> None:
    recall = Recall()
    one_off = _conversation(3)
    assert recall.align("chat", one_off).seen is None  # nothing copied for it
    _remember(recall, "chat", one_off)  # seen again: remembered
    assert recall.conversations == 1
    assert recall.align("chat", _fresh(one_off)).matched == len(one_off)


def test_a_continued_conversation_reuses_what_it_remembers() -> None:
    recall = Recall()
    first = _conversation(3)
    aligned = _remember(recall, "chat", first)
    assert aligned.matched == 0
    aligned.seen[1].tokens = (("tx", "marked"),)
    longer = _fresh(_conversation(5))
    again = recall.align("chat", longer)
    assert again.matched == len(first) and again.seen is not None
    assert again.seen[1].tokens == (("tx", "marked"),)
    assert all(isinstance(seen, Seen) for seen in again.seen)
    assert len(again.seen) == len(longer)


def test_an_edit_in_the_middle_is_worked_out_again_from_there() -> None:
    recall = Recall()
    first = _conversation(4)
    _remember(recall, "chat", first)
    edited = _fresh(first)
    edited[3]["content"] = "something else"
    assert recall.align("chat", edited).matched == 3
    assert recall.align("other shape", _fresh(first)).matched == 0


def test_branches_of_one_beginning_are_each_remembered() -> None:
    recall = Recall()
    base = _conversation(2)
    left = [*base, {"role": "user", "content": "left"}]
    right = [*base, {"role": "user", "content": "right"}]
    for conversation in (left, right):
        _remember(recall, "chat", conversation)
    assert recall.conversations == 2
    assert recall.align("chat", _fresh(left)).matched == len(left)
    assert recall.align("chat", _fresh(right)).matched == len(right)


def test_memory_is_bounded_and_the_least_recently_used_go_first() -> None:
    one = _conversation(40, "a")
    two = _conversation(40, "b")
    probe = Recall()
    _remember(probe, "chat", one)
    size = probe.estimated_bytes
    assert size > 10_000  # a message's strings and containers are counted
    recall = Recall(max_bytes=int(size * 1.5))
    _remember(recall, "chat", one)
    _remember(recall, "chat", two)
    assert recall.conversations == 1
    assert recall.estimated_bytes <= recall.max_bytes
    assert recall.align("chat", _fresh(one)).matched == 0  # the older one went
    assert recall.align("chat", _fresh(two)).matched == len(two)
    nothing = Recall(max_bytes=0)
    _remember(nothing, "chat", one)
    assert nothing.conversations == 0 and nothing.align("chat", one).seen is None


def _recounted(recall: Recall) -> int:
    """What the recall's records hold, each copy and each ``Seen`` counted once."""
    total = 0
    for records in recall._heads.values():
        counted: set[int] = set()
        for record in records:
            for item, size, seen in zip(record.items, record.sizes, record.seen, strict=True):
                if id(item) not in counted:
                    counted.add(id(item))
                    total += size
                if id(seen) not in counted:
                    counted.add(id(seen))
                    total += seen.size
    return total


def _aligned(recall: Recall, items: list[Any]) -> Any:
    """``items`` aligned as a remembered request (the first of a beginning is marked)."""
    aligned = recall.align("chat", items)
    if aligned.seen is None:
        aligned = recall.align("chat", items)
    assert aligned.seen is not None
    return aligned


def _work(aligned: Any, tag: str) -> None:
    """What a request works out for the messages it does not find remembered: their
    outcomes, their parts' and an edit of a part's."""
    for number, seen in enumerate(aligned.seen[aligned.matched :]):
        seen.remember(("walk", tag), f"outcome {number}", 500)
        part = seen.parts(2)[1]
        part.remember(("walk", tag), "a part's", 300)
        part.child().remember(("ids", tag), "an edit of a part", 200)


def _worked_out(recall: Recall, items: list[Any], tag: str, keep_first: bool = True) -> None:
    """A request: aligned, kept, then what is new worked out, as the hook makes it
    (``keep_first=False``: worked out, then kept)."""
    aligned = _aligned(recall, items)
    if keep_first:
        recall.keep(aligned, items)
    _work(aligned, tag)
    if not keep_first:
        recall.keep(aligned, items)


@pytest.mark.parametrize("keep_first", [True, False], ids=["kept first", "kept last"])
def test_branches_are_counted_once_while_a_record_holds_them(keep_first: bool) -> None:
    """A retry of the last turn, again and again: each branch is a record of its own
    sharing the messages before it with the others, and what they share is counted
    once; a branch forgotten takes only what no other record holds out of the bound."""
    recall = Recall()
    base = _conversation(30)
    _worked_out(recall, base, "base", keep_first)
    held = _recounted(recall)
    assert recall.estimated_bytes == held > 30 * 2 * 1000
    for retry in range(12):  # PER_HEAD branches are kept, the oldest go
        branch = [*_fresh(base[:-2]), {"role": "user", "content": f"retry {retry}"}]
        _worked_out(recall, branch, f"retry {retry}", keep_first)
        assert recall.estimated_bytes == _recounted(recall)
    assert recall.conversations == 4
    assert recall.estimated_bytes < 2 * held  # the shared messages once, not per branch
    tail = [*_fresh(base[:5]), {"role": "user", "content": "another"}]
    _worked_out(recall, tail, "short", keep_first)  # a branch early on
    assert recall.estimated_bytes == _recounted(recall)


def test_a_branch_of_a_conversation_forgotten_meanwhile_is_counted_whole() -> None:
    """A request aligned with a remembered conversation that another request's keep
    forgets before this one keeps: its record holds again what was forgotten, and
    counts it again."""
    base = _conversation(20, "a")
    probe = Recall()
    _worked_out(probe, base, "probe")
    recall = Recall(max_bytes=int(probe.estimated_bytes * 1.5))
    _worked_out(recall, base, "base")
    branch = [*_fresh(base[:-2]), {"role": "user", "content": "retry"}]
    aligned = _aligned(recall, branch)
    assert aligned.matched == len(base) - 2
    other = _conversation(20, "b")
    _worked_out(recall, other, "other", keep_first=False)  # the bound forgets the first
    assert recall.align("chat", _fresh(base)).matched == 0
    assert recall.estimated_bytes == _recounted(recall)
    recall.keep(aligned, branch)
    _work(aligned, "retry")
    assert recall.estimated_bytes == _recounted(recall)
    assert recall.align("chat", _fresh(branch)).matched == len(branch)


def test_what_a_message_let_go_of_is_counted_no_more() -> None:
    """A message that met more walks than it keeps outcomes for clears them, and what
    its parts and edits hold with them: a request still working on one of those
    changes nothing in the count."""
    recall = Recall()
    conversation = _conversation(3)
    aligned = _aligned(recall, conversation)
    recall.keep(aligned, conversation)
    seen = aligned.seen[1]
    part = seen.parts(2)[0]
    part.remember(("walk", "a"), "a part's", 300)
    edit = part.child()
    edit.remember(("ids", "a"), "an edit", 200)
    assert recall.estimated_bytes == _recounted(recall)
    for walk in range(10):  # more than a message keeps: its outcomes are cleared
        seen.remember(("walk", walk), "outcome", 100)
        assert recall.estimated_bytes == _recounted(recall)
    held, counted = seen.size, recall.estimated_bytes
    assert held == 100 * len(seen.outcomes or {})  # the outcomes since it cleared them
    part.forget(("walk", "a"), 300)  # a request still holding the part
    edit.remember(("ids", "b"), "another edit", 200)
    assert (seen.size, recall.estimated_bytes) == (held, counted)


def test_the_bound_holds_when_conversations_branch() -> None:
    """Conversations retried again and again are forgotten as the bound asks: what
    is forgotten leaves the count, what is still held stays in it."""
    probe = Recall()
    _worked_out(probe, _conversation(20, "a"), "probe")
    recall = Recall(max_bytes=probe.estimated_bytes * 3)
    for name in "abcdefgh":
        base = _conversation(20, name)
        for retry in range(8):
            branch = _fresh([*base[:-2], {"role": "user", "content": f"retry {retry}"}])
            aligned = _aligned(recall, branch)
            recall.keep(aligned, branch)  # the bound is kept here ...
            assert recall.estimated_bytes == _recounted(recall) <= recall.max_bytes
            _work(aligned, str(retry))  # ... and what is worked out after, at the next keep
            assert recall.estimated_bytes == _recounted(recall)
    assert 1 <= len(recall._heads) <= 3  # whole beginnings forgotten, the newest kept
    assert recall.align("chat", _fresh(_conversation(20, "h"))).matched > 0


def _agent_history(session: int, steps: int) -> list[Json]:
    """An agent's history: signed thinking, a call whose id Mistral rejects, its result."""
    history: list[Json] = [
        {"role": "system", "content": f"session {session} " + "rules " * 200},
        {"role": "user", "content": "go"},
    ]
    for step in range(steps):
        call = f"toolu|{session}_{step}"
        history += [
            {
                "role": "assistant",
                "content": None,
                "thinking_blocks": [
                    {"type": "thinking", "thinking": "t" * 200, "signature": "c2ln"}
                ],
                "tool_calls": [
                    {"id": call, "type": "function", "function": {"name": "ls", "arguments": "{}"}}
                ],
            },
            {"role": "tool", "tool_call_id": call, "content": "x" * 300},
            {"role": "user", "content": f"and then {step}?"},
        ]
    return history


def _sessions(engine: HygieneEngine, branching: bool) -> int:
    """Agent sessions that go on, or retry their last turn again and again, sent to
    ``engine``: the memory held after them beyond what was held before (``tracemalloc``)."""

    def send(history: list[Json]) -> None:
        kwargs = {"model": "mistral/mistral-large-latest", "messages": _fresh(history)}
        prepare_sync(engine, kwargs, CallReport())

    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for session in range(8):
            history = _agent_history(session, 30)
            send(history)
            send(history)
            for step in range(8 if branching else 4):  # more branches than a beginning keeps
                if branching:
                    send([*history[:-1], {"role": "user", "content": f"retry {step}"}])
                else:
                    history += [
                        {"role": "assistant", "content": f"answer {step}"},
                        {"role": "user", "content": f"more {step}"},
                    ]
                    send(history)
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("branching", [False, True], ids=["appending", "branching"])
def test_the_memory_held_is_about_the_bound(branching: bool) -> None:
    """Measured, not estimated: what an engine holds after agent sessions that go on
    (appending) or retry their last turn again and again (branching), beyond what an
    engine that remembers nothing holds after the same, is about ``recall_max_mb``.

    The sessions go once through an engine that remembers nothing first, so what the
    rules' own bounded caches keep of them is kept before either is measured.
    """
    bound = 1 << 20
    _sessions(HygieneEngine(provenance_store="none", recall_max_mb=0), branching)
    without = _sessions(HygieneEngine(provenance_store="none", recall_max_mb=0), branching)
    engine = HygieneEngine(provenance_store="none", recall_max_mb=1)
    held = _sessions(engine, branching) - without
    estimated = engine.recall.estimated_bytes
    assert engine.stats["recall_evictions"] > 0
    # Kept within the bound as each request is remembered; what the last request worked
    # out after that is counted at the next one's.
    assert estimated <= 1.2 * bound
    assert 0.9 * estimated <= held <= 1.5 * estimated, (held, estimated)


def test_what_is_remembered_is_its_own_copy() -> None:
    recall = Recall()
    conversation = _conversation(2)
    _remember(recall, "chat", conversation)
    conversation[1]["content"] = "changed after it was sent"  # a caller reusing its dicts
    assert recall.align("chat", _fresh(_conversation(2))).matched == len(conversation)


def test_messages_that_are_not_plain_json_end_what_is_remembered() -> None:
    recall = Recall()

    class Loose(dict[str, Any]):
        pass

    conversation: list[Any] = [*_conversation(1), Loose(role="user", content="x")]
    conversation.append({"role": "user", "content": "after"})
    _remember(recall, "chat", conversation)
    assert recall.align("chat", conversation).matched == 3


def test_what_is_worked_out_past_the_last_remembered_message_is_not_counted() -> None:
    """A message after the last one remembered is in no record: what is worked out for it
    is never evicted, so the bound does not count it."""
    recall = Recall()

    class Loose(dict[str, Any]):
        pass

    conversation: list[Any] = [*_conversation(1), Loose(role="user", content="x")]
    _remember(recall, "chat", conversation)
    before = recall.estimated_bytes
    for _ in range(3):
        aligned = recall.align("chat", conversation)
        recall.keep(aligned, conversation)
        assert aligned.seen is not None
        aligned.seen[-1].remember("worked out", "x" * 100, 1000)
    assert recall.estimated_bytes == before


@given(
    given_=st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=5),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
        max_leaves=12,
    ),
    data=st.data(),
    equal=st.booleans(),
)
def test_a_patch_rebuilds_the_output_from_an_equal_message(
    given_: Any, data: Any, equal: bool
) -> None:
    """What a rule wrote, rebuilt from a fresh equal message, is what it wrote.

    ``equal``: written anew (nothing of the message's own), and patched by equality: a
    value is taken from the message only where equal and of the same type (``1`` is
    not ``True``).
    """
    out = _rewritten(given_, data)
    if equal:
        out = copy.deepcopy(out)
    recipe, size = patch(out, given_, equal)
    fresh = copy.deepcopy(given_)
    rebuilt = build(recipe, fresh)
    assert _typed(rebuilt) == _typed(out) and size >= 0
    again = build(recipe, copy.deepcopy(given_))
    if isinstance(out, dict | list) and out is not given_:
        assert again is not rebuilt  # nothing the recall holds is handed out twice


def test_a_patch_rebuilds_from_an_equal_container_of_another_type() -> None:
    """A message may hold a read-only mapping or a list-like equal to a remembered dict
    or list (only the messages' own types are compared): the rebuild reads it as one."""
    given: Json = {"a": {"b": 1, "c": [1, 2]}, "d": "x"}
    out = {"a": {"b": 2, "c": [1, 3]}, "d": given["d"]}
    recipe, _ = patch(out, given)
    fresh = {"a": MappingProxyType({"b": 1, "c": UserList([1, 2])}), "d": "x"}
    assert fresh == given
    assert build(recipe, fresh) == out


def _typed(value: Any) -> str:
    """``value`` as JSON: equal only where equal and of the same types."""
    return json.dumps(value, sort_keys=True)


def _rewritten(value: Any, data: Any) -> Any:
    """``value`` partly shared, partly rewritten, as a rule's wire edit leaves it."""
    choice = data.draw(st.integers(0, 3))
    if choice == 0:
        return value
    if isinstance(value, dict):
        out = {k: _rewritten(v, data) for k, v in value.items()}
        if data.draw(st.booleans()) and out:
            del out[next(iter(out))]
        if data.draw(st.booleans()):
            out["added"] = [data.draw(st.text(max_size=3))]
        return out
    if isinstance(value, list):
        return [_rewritten(v, data) for v in value] + ([1] if choice == 3 else [])
    if choice == 2 and type(value) is bool:
        return int(value)  # equal, of another type
    if choice == 2 and type(value) is int and value in (0, 1):
        return bool(value)
    return data.draw(st.text(max_size=3)) if choice == 1 else value


def test_the_engine_counts_what_it_recalled_and_what_it_forgot() -> None:
    engine = HygieneEngine(provenance_store="none", recall_max_mb=0.02)  # about 20 KB
    one, two = _conversation(6, "a"), _conversation(6, "b")
    for conversation in (one, one, [*one, {"role": "user", "content": "more"}]):
        prepare_sync(
            engine, {"model": "openai/gpt-4o", "messages": _fresh(conversation)}, CallReport()
        )
    # The first is marked, the second remembered, the third finds the second's messages.
    assert engine.stats["recalled_messages"] == len(one)
    assert engine.stats["recall_evictions"] == 0
    for conversation in (two, two, _conversation(30, "c"), _conversation(30, "c")):
        prepare_sync(
            engine, {"model": "openai/gpt-4o", "messages": _fresh(conversation)}, CallReport()
        )
    assert engine.stats["recall_evictions"] >= 1
    assert engine.recall.estimated_bytes <= engine.recall.max_bytes


def _codex_items(steps: int, tag: str = "") -> list[Json]:
    """A Codex-like ``input``: a user turn, then turns of reasoning and two calls."""
    items: list[Json] = [{"role": "user", "content": f"fix the bug{tag}"}]
    for n in range(steps):
        items += [
            {"type": "reasoning", "id": f"rs_{n}", "summary": [], "encrypted_content": "e"},
            {"type": "function_call", "call_id": f"call_{n}a", "name": "ls", "arguments": "{}"},
            {"type": "function_call", "call_id": f"call_{n}b", "name": "cat", "arguments": "{}"},
            {"type": "function_call_output", "call_id": f"call_{n}a", "output": "a.py"},
            {"type": "function_call_output", "call_id": f"call_{n}b", "output": "print()"},
        ]
    return items


@pytest.mark.parametrize("model", ["openai/gpt-5", "mistral/mistral-large-latest"])
def test_a_branch_inside_a_turn_leaves_the_other_branch_as_it_was(model: str) -> None:
    """Two sessions of one beginning part in the middle of a turn's items.

    A turn's chat form is read from several items; the recall remembers it with the
    last of them, which only requests holding every item before it share. Each
    session, alternately continued, gets what the full pipeline gives.
    """
    store = MemoryStore()
    remembering, full = _engines(store)
    first = _codex_items(3)
    other = copy.deepcopy(first)
    other[7]["arguments"] = '{"path": "b"}'  # the second call of the second turn
    for items in (first, first, other, first + _codex_items(1, "!")[1:], other, first):
        kwargs = {"model": model, "input": items}
        expected = _sent(full, _fresh(kwargs), "responses")
        assert _sent(remembering, _fresh(kwargs), "responses") == expected


def _turn_calling(call_id: str) -> list[Json]:
    call = {"id": call_id, "type": "function", "function": {"name": "ls", "arguments": "{}"}}
    return [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call_id, "content": "a.txt"},
        {"role": "user", "content": "and then?"},
    ]


@pytest.mark.parametrize("shape", ["chat", "anthropic_messages", "responses"])
@pytest.mark.parametrize("model", ["anthropic/claude-sonnet-4-5", "gemini/gemini-2.5-pro"])
def test_a_message_renamed_by_what_comes_after_it_is_written_for_its_new_id(
    model: str, shape: Shape
) -> None:
    """A rename depends on the whole request: the same message may get another id.

    ``a|b`` is renamed ``a_b`` while no other call holds that id; once a later turn
    does, it is renamed to a hash. The renamed message (and what is written from it,
    remembered with it) is remembered by its new id, so each request gets its own.
    """
    store = MemoryStore()
    remembering, full = _engines(store)
    first = [{"role": "user", "content": "go"}, *_turn_calling("a|b")]
    longer = first + _turn_calling("a_b")
    for history in (first, first, longer, first, longer):
        made = _kwargs(history, model, shape)
        assert made is not None
        kwargs, called = made
        expected = _sent(full, _fresh(kwargs), called)
        assert expected[1]["changes"] == {"tool_call_id": 1}
        assert _sent(remembering, _fresh(kwargs), called) == expected


# -- walks that resume where the last request ended ----------------------------------------


def _walked_conversation(
    recall: Recall,
    messages: list[Json],
    key: int = 7,
    model: str = "mistral/mistral-large-latest",
) -> Conversation:
    """``messages`` read as the hook reads a request whose conversation a recall keeps."""
    aligned = _remember(recall, "chat", messages)
    ctx = replace(context_for(resolve_target(model)), recall_key=key)
    return read_conversation(messages, ctx, OPENAI, seen=aligned.seen)


def test_a_walk_resumes_where_the_last_request_of_its_conversation_ended() -> None:
    recall = Recall()
    first = _conversation(3)
    conv = _walked_conversation(recall, _fresh(first))
    assert conv.resumed("walk") is None  # nothing walked yet
    state = object()
    conv.walked("walk", state, 100)
    longer = _walked_conversation(recall, _fresh(_conversation(5)))
    assert longer.resumed("walk") == (len(first), state)
    assert longer.resumed("another walk") is None
    # Another target (another recall key) never resumes what this one walked.
    other = _walked_conversation(recall, _fresh(_conversation(5)), key=8)
    assert other.resumed("walk") is None


def _walked_longer(recall: Recall) -> Conversation:
    """A conversation walked over 3 exchanges, read again with 5 (the state at message 6)."""
    conv = _walked_conversation(recall, _fresh(_conversation(3)))
    conv.walked("walk", "state", 10_000)
    return _walked_conversation(recall, _fresh(_conversation(5)))


def test_a_walk_does_not_resume_where_the_facts_it_read_changed() -> None:
    """The same messages, read again into other facts (an earlier rule changed them)."""
    assert _walked_longer(Recall()).resumed("walk") == (7, "state")
    longer = _walked_longer(Recall())
    slots = list(longer.slots)
    assert slots[2].facts.role == "assistant"
    changed = Slot(slots[2].raw, slots[2].facts._replace(role="user"), None, 2)
    changed.seen = slots[2].seen
    assert longer.with_slots([*slots[:2], changed, *slots[3:]]).resumed("walk") is None
    # One slot fewer before the walk's last message: not where it ended.
    longer = _walked_longer(Recall())
    assert longer.with_slots(longer.slots[1:]).resumed("walk") is None


def test_a_state_found_of_no_use_is_forgotten() -> None:
    """A walk that cannot go on from the state it found starts over: the state goes."""
    recall = Recall()
    longer = _walked_longer(recall)
    held = recall.estimated_bytes
    slots = list(longer.slots)
    changed = Slot(slots[2].raw, slots[2].facts._replace(role="user"), None, 2)
    changed.seen = slots[2].seen
    assert longer.with_slots([*slots[:2], changed, *slots[3:]]).resumed("walk") is None
    assert longer.resumed("walk") is None
    assert held - recall.estimated_bytes >= 10_000


def test_a_conversation_keeps_one_state_per_walk() -> None:
    """A walk that resumes forgets the state it resumed from: memory grows with the walk."""
    recall = Recall()
    conv = _walked_conversation(recall, _fresh(_conversation(3)))
    conv.walked("walk", "first", 10_000)
    held = recall.estimated_bytes
    longer = _walked_conversation(recall, _fresh(_conversation(4)))
    resumed = longer.resumed("walk")
    assert resumed is not None
    longer.walked("walk", "second", 10_000, since=resumed[0])
    assert conv.resumed("walk") is None  # forgotten where it was
    assert longer.resumed("walk") == (len(longer), "second")
    grown = recall.estimated_bytes - held
    assert 0 < grown < 10_000  # the new messages, not a second state
    longer.walked("walk", "again", 10_000, since=len(longer))  # the same request again
    assert recall.estimated_bytes == held + grown


def test_a_conversation_that_failed_a_walk_is_found_failed_at_its_new_end() -> None:
    """A walk that failed once stays failed: its mark follows the conversation's end.

    Else, some requests later, the mark would be further back than a walk looks and the
    walk would read the whole conversation again.
    """
    recall = Recall()
    unanswered = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        ],
    }
    history = [*_conversation(1), unanswered, *_conversation(1)[1:]]
    for more in range(6):
        history += [
            {"role": "user", "content": f"more {more}"},
            {"role": "assistant", "content": "ok"},
        ]
        conv = _walked_conversation(recall, _fresh(history))
        assert ToolPairing().find(conv)  # the call without a result
        assert conv.resumed("tool_pairing.in_order") == (len(history), None)


def test_a_renaming_that_cannot_go_on_from_its_state_forgets_it() -> None:
    """``a|b`` renamed ``a_b``, then a later call keeps ``a_b``: the renaming starts over."""
    recall = Recall()
    model = "anthropic/claude-sonnet-4-5"
    first = [{"role": "user", "content": "go"}, *_turn_calling("a|b")]
    rule = ToolCallId()
    conv = _walked_conversation(recall, _fresh(first), model=model)
    rule.fix(conv, rule.find(conv))
    state = (7, "walked", "tool_call_id.fix")
    assert conv.slots[-1].seen.outcome(state) is not None
    longer = _walked_conversation(recall, _fresh(first + _turn_calling("a_b")), model=model)
    rule.fix(longer, rule.find(longer))
    assert longer.slots[len(first) - 1].seen.outcome(state) is None  # one state per walk
    assert longer.slots[-1].seen.outcome(state) is not None


def test_a_walk_is_not_remembered_without_a_recall() -> None:
    ctx = context_for(resolve_target("mistral/mistral-large-latest"))
    conv = read_conversation(_conversation(3), ctx, OPENAI)
    conv.walked("walk", "state", 100)
    assert conv.resumed("walk") is None


def test_a_message_of_another_mapping_type_gets_what_the_full_pipeline_gives() -> None:
    """A read-only mapping equal to a remembered message is read as the full pipeline reads it.

    It is equal to the dict it holds (``==``), and the readers read it as no message: it
    is not the remembered one.
    """
    remembering, full = _engines(MemoryStore())
    thinking = [{"type": "thinking", "thinking": "hm", "signature": "c2ln"}]
    turn = {"role": "assistant", "content": "done", "thinking_blocks": thinking}
    history = [*_conversation(1), turn, {"role": "user", "content": "next"}]
    for last in (False, False, True):
        messages: list[Any] = _fresh(history)
        if last:
            messages[3] = MappingProxyType(messages[3])
        kwargs = {"model": "openai/gpt-4o", "messages": messages}
        expected = _sent(full, {**kwargs, "messages": list(messages)}, None)
        assert _sent(remembering, kwargs, None) == expected
    assert expected[1]["unread"]  # the full pipeline reads no such message


# -- store lookups that go on where the last request left them -----------------------------


def _signed_turn(n: int) -> list[Json]:
    """An unstamped Claude turn (thinking, signed, one call), its result and a user turn."""
    signature = base64.b64encode(f"signature {n}".encode()).decode()
    call = {"id": f"toolu_{n}", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
    return [
        {
            "role": "assistant",
            "content": None,
            "thinking_blocks": [{"type": "thinking", "thinking": "t", "signature": signature}],
            "tool_calls": [call],
        },
        {"role": "tool", "tool_call_id": f"toolu_{n}", "content": "a.txt"},
        {"role": "user", "content": "and then?"},
    ]


CLAUDE = PROVENANCES[0]


class _Asked:
    """What a store was asked: each lookup's asks, as (first token tried, key given)."""

    def __init__(self, store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[list[tuple[int, bool]]] = []
        real = store.lookup

        def noting(asks: Any, *args: Any) -> Any:
            self.calls.append([(start, key is not None) for _, start, key in asks])
            return real(asks, *args)

        monkeypatch.setattr(store, "lookup", noting)


def _twins(**made: Any) -> tuple[MemoryStore, MemoryStore, HygieneEngine, HygieneEngine]:
    """Two stores on one clock that moves when a test says, an engine on each."""
    made.setdefault("clock", Clock())
    store, twin = MemoryStore(**made), MemoryStore(**made)
    return store, twin, *_engines(store, twin)


def _same(
    history: list[Json], store: MemoryStore, twin: MemoryStore, engines: Any, model: str
) -> Json:
    """The request for ``history`` through both engines: equal outputs, equal stores."""
    remembering, full = engines
    kwargs = {"model": model, "messages": history}
    expected = _sent(full, _fresh(kwargs), None)
    assert _sent(remembering, _fresh(kwargs), None) == expected
    assert list(store._entries.items()) == list(twin._entries.items())
    return expected[1]


def test_store_lookups_go_on_where_the_last_request_left_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A turn that found nothing is not asked again, a found one by the key that found it.

    Every answer but the first is recorded as the proxy records a response: the turns
    found are refreshed in the store as the full lookup refreshes them, in its order.
    """
    store, twin, *engines = _twins()
    asked = _Asked(store, monkeypatch)
    history = [{"role": "user", "content": "go"}, *_signed_turn(0)]  # never recorded
    for n in range(1, 6):
        _same(history, store, twin, engines, "anthropic/claude-sonnet-4-5")
        answer = _signed_turn(n)
        put_fingerprints(store, answer[0], CLAUDE)
        put_fingerprints(twin, answer[0], CLAUDE)
        history += answer
    report = _same(history, store, twin, engines, "anthropic/claude-sonnet-4-5")
    assert report["restored"] == 5
    # The last request asked the four turns found before by their keys, and the new one.
    assert asked.calls[-1] == [(0, True)] * 4 + [(0, False)]


@pytest.mark.parametrize("marked", [True, False])
def test_a_put_of_what_found_nothing_has_its_turn_looked_up_again(marked: bool) -> None:
    """A turn that found nothing finds its provenance once a put records it.

    Unmarked: a put without the marks of its keys (as a shared store's writer puts)
    may hold any token.
    """
    store, twin, *engines = _twins()
    history = [{"role": "user", "content": "go"}, *_signed_turn(0), *_signed_turn(1)]
    model = "anthropic/claude-sonnet-4-5"
    for _ in range(2):
        assert _same(history, store, twin, engines, model)["restored"] == 0
    for each in (store, twin):
        if marked:
            put_fingerprints(each, history[1], CLAUDE)
        else:
            each.put(fingerprints(history[1]), CLAUDE)
    assert _same(history, store, twin, engines, model)["restored"] == 1


@pytest.mark.parametrize("logged_puts", [0, 1])
def test_lookups_past_the_puts_logged_see_every_put_since(logged_puts: int) -> None:
    """Past the puts the store logs, what changed is read from each mark's last put."""
    store, twin, *engines = _twins(logged_puts=logged_puts)
    history = [{"role": "user", "content": "go"}, *_signed_turn(0), *_signed_turn(1)]
    model = "anthropic/claude-sonnet-4-5"
    for _ in range(2):
        _same(history, store, twin, engines, model)
    # Two puts, the first past a log of one: the turn it records is found all the same.
    for turn in (history[1], _signed_turn(2)[0]):
        put_fingerprints(store, turn, CLAUDE)
        put_fingerprints(twin, turn, CLAUDE)
    assert _same(history, store, twin, engines, model)["restored"] == 1


def test_a_found_turn_whose_entry_expired_is_looked_up_as_the_full_lookup_does() -> None:
    """The key that found a turn is gone: the lookup goes on from the turn's next token."""
    clock = Clock()
    store, twin, *engines = _twins(ttl_seconds=10.0, clock=clock)
    history = [{"role": "user", "content": "go"}, *_signed_turn(0), *_signed_turn(1)]
    model = "anthropic/claude-sonnet-4-5"
    for turn in (history[1], history[4]):
        put_fingerprints(store, turn, CLAUDE)
        put_fingerprints(twin, turn, CLAUDE)
    for _ in range(2):
        assert _same(history, store, twin, engines, model)["restored"] == 2
    clock.now += 20.0
    assert _same(history, store, twin, engines, model)["restored"] == 0
    assert len(store) == len(twin)


@pytest.mark.parametrize("shape", ["chat", "anthropic_messages"])
def test_a_request_the_store_only_recognised_goes_out_as_it_came(shape: Shape) -> None:
    """Provenance restored to turns no rule changes informs the rules, and nothing else.

    The call is not rewritten (a ``/v1/messages`` call was re-encoded whole from the
    neutral model, on every request of a session whose answers the proxy records).
    """
    store = MemoryStore()
    engine = HygieneEngine(store=store)
    history = [{"role": "user", "content": "go"}, *_signed_turn(0), *_signed_turn(1)]
    for turn in (history[1], history[4]):
        put_fingerprints(
            store, turn, Provenance("anthropic", "anthropic-messages", "claude-sonnet-4-5")
        )
    made = _kwargs(history, "anthropic/claude-sonnet-4-5", shape)
    assert made is not None
    kwargs, called = made
    report = CallReport()
    prepared = prepare_sync(engine, _fresh(kwargs), report, called)
    assert prepared is not None
    assert (prepared.restored, prepared.changed, prepared.changes) == (2, False, {})
    assert _sent(engine, _fresh(kwargs), called)[0] == kwargs


def test_a_remembered_walk_reports_its_changes_where_it_is_replayed() -> None:
    """The change records a remembered walk makes are made again where the message sits
    elsewhere: a message's ``Seen`` is at one place in its conversation, but what the
    walk reports must not lean on that."""
    turn: Json = {
        "role": "assistant",
        "content": "done",
        "thinking_blocks": [{"type": "thinking", "thinking": "hmm", "signature": "c2ln"}],
    }
    target = resolve_target("openai/gpt-4o")
    ctx = replace(context_for(target), recall_key=11)
    shifted = [{"role": "user", "content": "go"}, {"role": "user", "content": "on"}, turn]
    plain = run_rules(read_conversation(_fresh(shifted), context_for(target), OPENAI))[1]
    assert plain and {change.index for change in plain} == {2}
    user, mine = Seen(), Seen()
    for messages, seen in (
        ([shifted[0], turn], [user, mine]),
        ([shifted[0], turn], [user, mine]),  # made once, then replayed at index 1
        (shifted, [user, Seen(), mine]),
    ):
        changes = run_rules(read_conversation(_fresh(messages), ctx, OPENAI, seen=seen))[1]
    assert [(c.kind, c.index, c.detail) for c in changes] == [
        (c.kind, c.index, c.detail) for c in plain
    ]
