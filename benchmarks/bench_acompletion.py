"""What the hook adds to LiteLLM's own request time, through ``litellm.acompletion``.

Each request goes through LiteLLM's real request path (transformation, HTTP client,
response parsing, logging) to the local provider stand-in, run in its own process on
127.0.0.1 so the stand-in's work never shares this interpreter. Each round sends the
same request once with the callback registered (``on``) and once without (``off``), and
a third time (``sent``) with a callback on the same entry point that hands LiteLLM the
messages the hook sends (captured once, through the shipped callback, before the
rounds), in an order that turns every round (every order of the three in turn: round
counts that are multiples of 6 give each the same share). The overhead is the median
over rounds of ``(on - off) / off``, a ratio taken at one moment, so the load of a
shared machine cancels out. Target (issue "One rule, one place"): at most 10 % at 200
exchanges.

The third request splits that overhead in two. It goes through all that the hook's does
but the hook's own work: LiteLLM's steps before the hook see the caller's messages, the
callback dispatch runs, and LiteLLM then sends hygiene's messages. ``body``, the median
of ``(sent - off) / off``, is what LiteLLM and the stand-in spend more (or less) on
hygiene's messages than on the caller's, plus the dispatch of one callback (a Mistral
request gains a turn between tool results and the next user turn, and LiteLLM's
Mistral path costs about 80 us a message); ``hook``, the median of ``(on - sent) /
off``, is the hook's own work inside LiteLLM's request (the rewrite, its report in the
request's metadata, its metrics, and its work after the call).

``bench_routes.py`` measures the same for ``/v1/messages`` and ``/v1/responses`` with this
module's pieces (:func:`compared`, :func:`captured`, :func:`run_cases`).

Run: LITELLM_LOCAL_MODEL_COST_MAP=True python benchmarks/bench_acompletion.py [exchanges ...]
     (default 10 50 200; add 1000 for the long case); --rounds N sets the rounds per
     case (default 30, and 12 above 200 exchanges); --real runs the cases on transcripts
     shaped like the recorded sessions instead. Prints; asserts nothing.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import itertools
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import litellm
from litellm.integrations.custom_logger import CustomLogger
from machine import describe
from transcripts import MODELS, SANITIZE_CASES, Source, agent_transcript

from litellm_hygiene import HygieneCallback, resolve_target
from litellm_hygiene._integration._annotate import provenance_of
from litellm_hygiene._integration._store import put_fingerprints

HERE = os.path.dirname(os.path.abspath(__file__))

RECORDED_CASE: tuple[str, Source, bool, str] = (
    "same-model claude, recorded",
    "claude",
    False,
    "claude",
)
# (label, source, stamped, target): the sanitize cases the issue names, and the unstamped
# one with its turns recorded.
CASES: list[tuple[str, Source, bool, str]] = [
    case for case in SANITIZE_CASES if case[0] != "cross-model claude -> gemini"
]
CASES.insert(1, RECORDED_CASE)
REAL_CASES: list[tuple[str, Source, bool, str]] = [
    ("real-shaped claude, recorded", "claude", False, "claude"),
    ("real-shaped claude, stamped", "claude", True, "claude"),
    ("real-shaped claude -> gpt", "claude", True, "gpt"),
]
"""The cases on transcripts shaped like the recorded sessions (``agent_transcript(real=
True)``: real-length signatures, long tool results); ``--real`` runs these."""
RECORDED = frozenset({RECORDED_CASE[0], REAL_CASES[0][0]})
"""Unstamped cases whose turns the hook has seen answered: each turn's provenance is in
the in-process store (a client that drops stamps, talking through this proxy), so its
lookup finds it by its first key."""
BASE_PATHS = {"claude": "", "gemini": "/v1beta", "gpt": "/v1", "mistral": "/v1"}
"""The path of each real API's base URL, kept so the stand-in's routes match."""
TARGET_OVERHEAD = 0.10


class StandInProcess:
    """The stand-in in a child process; stopped by PID when the benchmark ends."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "_standin_process.py")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        self.base_url = self.process.stdout.readline().strip()
        if not self.base_url.startswith("http://127.0.0.1:"):
            self.close()
            raise RuntimeError("the stand-in did not start")

    def close(self) -> None:
        """Close its stdin (it stops), then wait; kill it if it does not."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class Registration:
    """Registers and unregisters one callback, from every list LiteLLM copied it into."""

    def __init__(self, callback: CustomLogger) -> None:
        self.callback = callback

    def on(self) -> None:
        litellm.callbacks = [self.callback]

    def off(self) -> None:
        for name in dir(litellm):
            value = getattr(litellm, name, None)
            if isinstance(value, list) and any(item is self.callback for item in value):
                value[:] = [item for item in value if item is not self.callback]


class Hook(Registration):
    """The hygiene callback's registration."""

    callback: HygieneCallback

    def __init__(self, callback: HygieneCallback | None = None) -> None:
        super().__init__(callback or HygieneCallback())


async def timed(messages: list[dict[str, Any]], target: str, base_url: str) -> float:
    start = time.perf_counter()
    response = await litellm.acompletion(
        model=MODELS[target],
        messages=messages,
        api_base=base_url + BASE_PATHS[target],
        api_key="sk-benchmark",
        num_retries=0,
    )
    elapsed = time.perf_counter() - start
    assert response.choices[0].message.content == "Done.", response
    return elapsed


Send = Callable[[], Awaitable[float]]
"""One request through LiteLLM, its answer checked: its time in seconds."""


async def measure(
    case: tuple[str, Source, bool, str], hook: Hook, base_url: str, exchanges: int, rounds: int
) -> Measured:
    """The medians of one case over ``rounds`` rounds."""
    label, source, stamp, target = case
    real = label.startswith("real-shaped")
    messages = agent_transcript(exchanges, source=source, stamp=stamp, real=real)
    if label in RECORDED:
        record(hook, messages, source)
    sent = await what_the_hook_sends(
        messages, target, base_url, source if label in RECORDED else None
    )
    send = functools.partial(timed, messages, target, base_url)
    return await compared(hook, send, {"messages": sent}, len(messages), rounds)


async def compared(
    hook: Hook, send: Send, sent: dict[str, Any], size: int, rounds: int
) -> Measured:
    """The medians of one request over ``rounds`` rounds of ``off``, ``on`` and ``sent``.

    ``sent``: the fields the hook hands LiteLLM for this request (see :func:`captured`);
    ``size``: the request's messages (or items), for the table.
    """
    substitute = Registration(_Substitute(sent))
    before = hook.callback.stats["requests"]
    times = await interleaved({"off": None, "on": hook, "sent": substitute}, send, rounds)
    assert hook.callback.stats["requests"] - before == rounds + 1  # once a round, on only
    off, on, through = times["off"], times["on"], times["sent"]
    return Measured(
        messages=size,
        off_ms=statistics.median(off) * 1e3,
        on_ms=statistics.median(on) * 1e3,
        added=statistics.median([(b - a) / a for a, b in zip(off, on, strict=True)]),
        body=statistics.median([(c - a) / a for a, c in zip(off, through, strict=True)]),
        hook=statistics.median([(b - c) / a for a, b, c in zip(off, on, through, strict=True)]),
    )


async def interleaved(
    registered: dict[str, Registration | None], send: Send, rounds: int
) -> dict[str, list[float]]:
    """Each mode's request times: every round sends once per mode (its callback alone
    registered), every order of the modes in turn, so none always goes first; round -1
    warms every path and is not kept."""
    orders = list(itertools.permutations(registered))
    times: dict[str, list[float]] = {mode: [] for mode in registered}
    for number in range(-1, rounds):
        for mode in orders[number % len(orders)]:
            registration = registered[mode]
            if registration is not None:
                registration.on()
            elapsed = await send()
            if registration is not None:
                registration.off()
            if number >= 0:
                times[mode].append(elapsed)
    return times


@dataclass(frozen=True)
class Measured:
    """One case's medians: request times, and the ratios to LiteLLM's own time."""

    messages: int
    off_ms: float
    on_ms: float
    added: float
    body: float
    hook: float


class _Substitute(CustomLogger):
    """A callback on the hook's entry point that hands LiteLLM the given fields."""

    def __init__(self, fields: dict[str, Any]) -> None:
        super().__init__()
        self.fields = fields

    async def async_pre_call_deployment_hook(
        self, kwargs: dict[str, Any], call_type: Any
    ) -> dict[str, Any] | None:
        fresh = {k: list(v) if isinstance(v, list) else v for k, v in self.fields.items()}
        return {**kwargs, **fresh}


class _Capture(HygieneCallback):
    """The shipped callback, keeping the conversation fields it hands LiteLLM.

    ``fields``: the request's conversation (``messages``; ``messages`` and ``system``
    for ``/v1/messages``; ``input`` and ``instructions`` for ``/v1/responses``).
    """

    def __init__(self, fields: Sequence[str] = ("messages",)) -> None:
        super().__init__()
        self.fields = tuple(fields)
        self.sent: dict[str, Any] | None = None
        self.dropped: set[str] = set()

    async def async_pre_call_deployment_hook(
        self, kwargs: dict[str, Any], call_type: Any
    ) -> dict[str, Any] | None:
        new_kwargs = await super().async_pre_call_deployment_hook(kwargs, call_type)
        out = new_kwargs or kwargs
        self.sent = {k: copy.deepcopy(out[k]) for k in self.fields if k in out}
        self.dropped = set(kwargs) - set(out)
        return new_kwargs


async def captured(send: Send, capture: _Capture) -> dict[str, Any]:
    """The fields ``capture`` hands LiteLLM in one request sent by ``send``.

    Raises ``SystemExit`` when the hook dropped a parameter: a substitute handing LiteLLM
    these fields alone would not send what the hook sends.
    """
    registration = Hook(capture)
    registration.on()
    try:
        await send()
    finally:
        registration.off()
    assert capture.sent is not None, "the callback saw the request"
    if capture.dropped:
        raise SystemExit(f"the hook dropped {sorted(capture.dropped)}: no substitute for that")
    return capture.sent


async def what_the_hook_sends(
    messages: list[dict[str, Any]], target: str, base_url: str, recorded: Source | None = None
) -> list[dict[str, Any]]:
    """The messages the callback sends for ``messages``, from one request through it.

    ``recorded``: the model whose answers the store holds (see :func:`record`).
    """
    capture = _Capture()
    if recorded is not None:
        record(Hook(capture), messages, recorded)
    sent = await captured(functools.partial(timed, messages, target, base_url), capture)
    messages_sent: list[dict[str, Any]] = sent["messages"]
    return messages_sent


def record(hook: Hook, messages: list[dict[str, Any]], source: Source) -> None:
    """Put each assistant turn's provenance in the hook's store, as its answer did.

    ``source``: the model that answered (each turn passed through the hook on its way).
    """
    store = hook.callback.store
    assert store is not None, "the benchmark's callback has the in-process store"
    provenance = provenance_of(resolve_target(MODELS[source]))
    for message in messages:
        if message["role"] == "assistant":
            put_fingerprints(store, message, provenance)


Measure = Callable[[Hook, str, int, int], Awaitable[Measured]]
"""One case's measurement: ``(hook, stand-in base URL, exchanges, rounds)``."""


async def run(
    sizes: list[int],
    rounds: int | None = None,
    cases: list[tuple[str, Source, bool, str]] = CASES,
) -> None:
    await run_cases([(case[0], functools.partial(measure, case)) for case in cases], sizes, rounds)


async def run_cases(
    cases: Sequence[tuple[str, Measure]], sizes: list[int], rounds: int | None, size: str = "msgs"
) -> None:
    """Measure each case at each size against one stand-in and one hook; print the table.

    ``size``: the column header of the request's size (its messages, or items).
    """
    litellm.suppress_debug_info = True
    stand_in = StandInProcess()
    hook = Hook()
    try:
        print(f"{describe()}, LiteLLM {_litellm_version()}")
        print(
            f"{'case':<32} {'exch':>5} {size:>6} {'off ms':>8} {'on ms':>8} {'added':>7}"
            f" {'body':>7} {'hook':>7}"
        )
        for label, measured in cases:
            for exchanges in sizes:
                m = await measured(
                    hook, stand_in.base_url, exchanges, rounds or (30 if exchanges <= 200 else 12)
                )
                mark = "  missed" if exchanges == 200 and m.added > TARGET_OVERHEAD else ""
                print(
                    f"{label:<32} {exchanges:>5} {m.messages:>6} {m.off_ms:8.1f}"
                    f" {m.on_ms:8.1f} {m.added:+7.1%} {m.body:+7.1%} {m.hook:+7.1%}{mark}"
                )
        print("\nadded: (on - off) / off; body: (sent - off) / off; hook: (on - sent) / off;")
        print("sent: a callback hands LiteLLM what the hook sends. Medians over rounds.")
        print(f"\ntarget: at most {TARGET_OVERHEAD:.0%} added at 200 exchanges")
    finally:
        stand_in.close()


def _litellm_version() -> str:
    from importlib.metadata import version

    return version("litellm")


_USAGE = "usage: {name} [exchanges ...] [--rounds N]"


def _arguments(
    argv: list[str], default: Sequence[int] = (10, 50, 200)
) -> tuple[list[int], int | None]:
    """(exchanges, rounds) from the command line; ``SystemExit`` with usage when wrong."""
    usage = _USAGE.format(name=os.path.basename(sys.argv[0]))
    rounds: int | None = None
    if "--rounds" in argv:
        at = argv.index("--rounds")
        try:
            rounds = int(argv[at + 1])
        except (IndexError, ValueError):
            raise SystemExit(usage) from None
        if rounds < 1:
            raise SystemExit("--rounds must be at least 1")
        argv = argv[:at] + argv[at + 2 :]
    try:
        sizes = [int(a) for a in argv] or list(default)
    except ValueError:
        raise SystemExit(usage) from None
    return sizes, rounds


if __name__ == "__main__":
    arguments = sys.argv[1:]
    chosen = REAL_CASES if "--real" in arguments else CASES
    asyncio.run(run(*_arguments([a for a in arguments if a != "--real"]), cases=chosen))
