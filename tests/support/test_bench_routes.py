"""The route benchmark measures what it says, on every route it sends.

``benchmarks/bench_routes.py`` splits what the hook adds to a ``/v1/messages`` or
``/v1/responses`` call into LiteLLM's work on hygiene's request (``sent``: a callback
handing LiteLLM the conversation fields the hook wrote) and the hook's own. That split
means something only while ``sent`` puts the hook's very body on the wire: these tests
hold it to that, check that each case's request with hygiene is one its API accepts,
and run each case's measurement once, small.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

import pytest

from benchmarks._standin_process import replies
from benchmarks.bench_acompletion import Hook, Registration, _Capture, _Substitute, captured
from benchmarks.bench_routes import CASES, FIELDS, REAL_CASES, RouteCase, measure, request, timed
from litellm_hygiene._standin import ReceivedRequest, StandIn
from litellm_hygiene._standin.serve import answer
from tests.support.cassettes import warm_up_litellm
from tests.support.litellm_callbacks import restored_callbacks

ALL = [*CASES, *REAL_CASES]


@pytest.fixture(scope="module", autouse=True)
def _warm() -> None:
    """LiteLLM's first use of some types warns (an error here): use them once first."""
    warm_up_litellm()


@pytest.fixture(scope="module")
def standin() -> Iterator[StandIn]:
    """The benchmark's replies ("Done." on every route), served here and logged."""
    canned = replies()
    with StandIn(respond=lambda request: canned.get(request.route or "")) as server:
        yield server


def _only(server: StandIn) -> ReceivedRequest:
    (received,) = server.received
    server.reset()
    return received


@pytest.mark.parametrize("case", ALL, ids=[case.label for case in ALL])
async def test_sent_puts_the_hooks_body_on_the_wire(standin: StandIn, case: RouteCase) -> None:
    kwargs = request(case, 3, standin.base_url)
    send = functools.partial(timed, case.shape, kwargs)
    standin.reset()
    with restored_callbacks(empty=True):
        await send()
        alone = _only(standin)
        sent = await captured(send, _Capture(FIELDS[case.shape]))
        hooked = _only(standin)
        substitute = Registration(_Substitute(sent))
        substitute.on()
        await send()
        substitute.off()
        substituted = _only(standin)
    assert substituted.path == hooked.path
    assert substituted.body == hooked.body
    accepted = answer(hooked)
    assert accepted is not None and accepted.status == 200, accepted
    if case.source == "gemini":
        assert hooked.body != alone.body  # the one case with something to repair


async def test_claude_on_bedrock_goes_out_on_the_invoke_route(standin: StandIn) -> None:
    """``/v1/messages`` to Claude on Bedrock is Anthropic's protocol on ``.../invoke``."""
    (case,) = [case for case in CASES if case.credentials]
    standin.reset()
    with restored_callbacks(empty=True):
        await timed(case.shape, request(case, 1, standin.base_url))
    assert _only(standin).path.endswith("/invoke")


@pytest.mark.parametrize("case", CASES, ids=[case.label for case in CASES])
async def test_a_case_is_measured(standin: StandIn, case: RouteCase) -> None:
    with restored_callbacks(empty=True):
        measured = await measure(case, Hook(), standin.base_url, 2, 1)
    kwargs = request(case, 2, standin.base_url)
    assert measured.messages == len(kwargs["messages" if case.shape == "messages" else "input"])
    assert measured.off_ms > 0 and measured.on_ms > 0
