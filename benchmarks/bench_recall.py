"""The hook's own time per request on agent sessions, with and without what it remembers.

Issue 38: request ``n + 1`` of an agent session is request ``n`` and one step, so the
hook should cost what the step costs. This replays sessions built from the corpus's
recorded answers (``transcripts.agent_session``, as ``bench_sessions.py`` does) through
the hook's core (``HygieneEngine.prepare_sync``: what LiteLLM's hook runs, store
lookups, reports and all), request by request, each parsed afresh from JSON as a proxy
parses it (``orjson``, LiteLLM's proxy's parser, where installed: it shares the objects
of repeated keys across requests, which makes comparing with what is remembered
cheaper than after ``json.loads``), on the three shapes. Each answer of the session is
recorded in the engine's provenance store before the request that holds it, as the proxy
records each response (``--unrecorded``: none is, the store stays empty). Per case and
session length it prints the median over the last ``--window`` requests of:

- ``full``: the engine that remembers nothing (``recall_max_mb=0``: the whole pipeline
  on every request, what the previous build did);
- ``recalled``: the shipped engine, having seen the session's earlier requests (two at
  least: the one before and the one it copied the conversation on);
- ``first``: the shipped engine on a request of a session it has not seen (it works
  everything out and only marks the conversation's beginning: nothing is copied);
- ``copying``: the shipped engine on the second request of a session it has seen once
  (the one before, untimed): it works everything out and copies the whole conversation,
  as a process does for a conversation it meets already long (one followed from its
  start is copied while short, and extended after);

and ``recalled`` at the most steps over ``recalled`` at the fewest (issue 38's goal: at
most 1.5x). Prints; asserts nothing.

``--collector N``: instead, what the recall costs the cyclic garbage collector. One
engine remembers ``N`` sessions of the first case (a chat case) at the first length
(each with its own system prompt, two requests each), and every fifth session it prints
the objects the collector tracks, the recall's estimated size and a full collection's
time (the fastest of three ``gc.collect()``): the recall's copies are containers the
collector scans at every full collection while they are remembered.

Run: LITELLM_LOCAL_MODEL_COST_MAP=True python benchmarks/bench_recall.py [steps ...]
     (default 50 200 1000); --window N (default 8); --cases WORD (repeatable);
     --unrecorded; --collector N.
     Run from outside the checkout to measure an installed (compiled) build.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench_sessions import CASES, SessionCase, as_blocks_kept
from machine import describe
from transcripts import MODELS, STAMPS, agent_session, session_requests, stamp_session

import litellm_hygiene
import litellm_hygiene._executor
from litellm_hygiene import HygieneOptions, from_openai
from litellm_hygiene._anthropic import to_anthropic
from litellm_hygiene._integration._engine import HygieneEngine
from litellm_hygiene._integration._prepare import prepare_sync
from litellm_hygiene._integration._report import CallReport
from litellm_hygiene._integration._store import Provenance, put_fingerprints
from litellm_hygiene._responses import to_responses

NO_RECALL: dict[str, Any] = (
    {"recall_max_mb": 0} if "recall_max_mb" in HygieneOptions.model_fields else {}
)
"""The engine that remembers nothing; ``{}`` on a build before the recall (issue 38),
which is measured as ``full`` only (its other columns repeat it)."""
try:
    from orjson import loads as parse
except ImportError:  # the proxy's parser missing: the standard library's
    from json import loads as parse
GROWTH = 1.5
"""Issue 38's goal: the time per request at the most steps over that at the fewest."""


def request_blob(case: SessionCase, messages: list[dict[str, Any]]) -> tuple[str, str | None]:
    """``case``'s request for the chat history ``messages`` as JSON, and its shape."""
    model = MODELS[case.target]
    if case.shape == "chat":
        return json.dumps({"model": model, "messages": stamp_session(messages, case.source)}), None
    context = from_openai(as_blocks_kept(messages))
    if case.shape == "messages":
        blocks, _ = to_anthropic(context.model_copy(update={"system_prompt": None}))
        body = {"model": model, "messages": blocks, "system": context.system_prompt}
        return json.dumps(body | {"max_tokens": 4096}), "anthropic_messages"
    items, instructions = to_responses(context)
    body = {"model": model, "input": items, "instructions": instructions}
    return json.dumps(body), "responses"


def timed(engine: HygieneEngine, blob: str, shape: str | None) -> float:
    """Seconds the hook's core takes on ``blob``, parsed afresh."""
    kwargs = parse(blob)
    started = time.perf_counter()
    prepare_sync(engine, kwargs, CallReport(), shape)
    return time.perf_counter() - started


def measure(
    case: SessionCase, session: list[dict[str, Any]], window: int, recorded: bool = True
) -> dict[str, float]:
    """Median ms over the session's last ``window`` requests, each way.

    ``recorded``: the session's answers are put in each engine's store before the
    request that holds them, as the proxy records each response (not timed).
    """
    ends = session_requests(session)[-window - 2 :]
    if len(ends) < 3:
        raise SystemExit(f"{case.label}: the session has {len(ends)} requests; at least 3")
    blobs = [request_blob(case, session[:end]) for end in ends]
    full = HygieneEngine(**NO_RECALL)
    shipped = HygieneEngine()
    answers = Answers(session, case, recorded)
    times: dict[str, list[float]] = {"full": [], "recalled": [], "first": [], "copying": []}
    # The two requests before the window: the first marks the session's beginning, the
    # second copies the conversation; the window's are recalled.
    for end, (blob, shape) in zip(ends[:2], blobs[:2], strict=True):
        timed(answers.record(shipped, end), blob, shape)
    for at in range(2, len(ends)):
        end, (blob, shape) = ends[at], blobs[at]
        gc.collect()
        times["full"].append(timed(answers.record(full, end), blob, shape))
        if not NO_RECALL:  # a build before the recall: the full pipeline only
            continue
        times["recalled"].append(timed(answers.record(shipped, end), blob, shape))
        first = answers.record(HygieneEngine(), end)
        times["first"].append(timed(first, blob, shape))
        copying = answers.record(HygieneEngine(), ends[at - 1])
        timed(copying, *blobs[at - 1])  # its first sight of the session: marked only
        times["copying"].append(timed(answers.record(copying, end), blob, shape))
        for done in (first, copying):  # what they remember, out of the next samples' heap
            answers.done.pop(done)
    if not NO_RECALL:
        times["recalled"] = times["first"] = times["copying"] = times["full"]
    return {mode: statistics.median(values) * 1e3 for mode, values in times.items()}


class Answers:
    """A session's answers, recorded in each engine's store as the proxy records them."""

    def __init__(self, session: list[dict[str, Any]], case: SessionCase, recorded: bool) -> None:
        self.session = session
        self.provenance = Provenance(**STAMPS[case.source])
        self.recorded = recorded
        self.done: dict[HygieneEngine, int] = {}  # messages recorded so far, by engine

    def record(self, engine: HygieneEngine, end: int) -> HygieneEngine:
        """``engine`` with the answers of ``session[:end]`` in its store."""
        store = engine.store
        done = self.done.get(engine, 0)
        if self.recorded and store is not None:
            for message in self.session[done:end]:
                if message["role"] == "assistant":
                    put_fingerprints(store, message, self.provenance)
        self.done[engine] = end
        return engine


def collector(case: SessionCase, steps: int, count: int) -> None:
    """``--collector``: tracked objects and a full collection's time as sessions are remembered.

    Chat cases only: the sessions differ by their system prompt, which the other shapes'
    alignment does not read (it is their ``system`` or ``instructions``).
    """
    if case.shape != "chat":
        raise SystemExit(f"--collector measures a chat case, not {case.label!r}")
    base = agent_session(steps, case.source)
    ends = session_requests(base)[-2:]
    engine = HygieneEngine()
    text = json.dumps(base)
    prompt = base[0]["content"]
    assert isinstance(prompt, str) and prompt in text

    def line(done: int) -> None:
        gc.collect()
        times = []
        for _ in range(3):
            started = time.perf_counter()
            gc.collect()
            times.append(time.perf_counter() - started)
        size = engine.recall.estimated_bytes / 2**20
        print(
            f"{done:>3} sessions: {len(gc.get_objects()):>9,} tracked objects, recall"
            f" {size:6.1f} MiB, full collection {min(times) * 1e3:6.1f} ms",
            flush=True,
        )

    print(f"{describe()}; {case.label}, {steps} steps, two requests per session")
    line(0)
    for number in range(count):
        session = json.loads(text.replace(prompt, f"Session {number}. {prompt}", 1))
        answers = Answers(session, case, True)
        for end in ends:
            blob, shape = request_blob(case, session[:end])
            timed(answers.record(engine, end), blob, shape)
        del session, answers  # only what the engine keeps stays alive
        if (number + 1) % 5 == 0 or number + 1 == count:
            line(number + 1)


def main() -> None:
    """Parse the command line, measure, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("steps", nargs="*", type=int, default=[50, 200, 1000])
    parser.add_argument("--window", type=int, default=8)
    parser.add_argument("--cases", action="append", default=[])
    parser.add_argument("--unrecorded", action="store_true")
    parser.add_argument("--collector", type=int, default=0, metavar="N")
    options = parser.parse_args()
    cases = [c for c in CASES if not options.cases or any(w in c.label for w in options.cases)]
    sizes = sorted(options.steps)
    if options.collector:
        collector(cases[0], sizes[0], options.collector)
        return
    compiled = not str(litellm_hygiene._executor.__file__).endswith(".py")
    build = ("compiled" if compiled else "pure") + ("" if NO_RECALL else ", before the recall")
    recorded = "store empty" if options.unrecorded else "answers recorded"
    print(f"{describe()}, {build} build, window {options.window}, {recorded}")
    print(
        f"{'case':<26} {'steps':>5} {'full ms':>8} {'recalled':>8} {'first':>8}"
        f" {'copying':>8} {'x full':>7}"
    )
    growth: dict[str, list[float]] = {}
    try:
        for steps in sizes:
            sessions = {source: agent_session(steps, source) for source in ("claude", "gemini")}
            for case in cases:
                m = measure(case, sessions[case.source], options.window, not options.unrecorded)
                growth.setdefault(case.label, []).append(m["recalled"])
                print(
                    f"{case.label:<26} {steps:>5} {m['full']:8.2f} {m['recalled']:8.2f}"
                    f" {m['first']:8.2f} {m['copying']:8.2f} {m['recalled'] / m['full']:7.2f}",
                    flush=True,
                )
    except FileNotFoundError as missing:
        raise SystemExit(f"skipped: {missing}") from None
    if len(sizes) > 1:
        print(f"\nrecalled ms per request, {sizes[-1]} vs {sizes[0]} steps (goal <= {GROWTH}x)")
        for label, values in growth.items():
            grew = values[-1] / values[0]
            print(f"{label:<26} {grew:6.2f}x{'' if grew <= GROWTH else '  missed'}")


if __name__ == "__main__":
    main()
