"""``/v1/messages`` (Claude Code) through LiteLLM, sent as it is, with the same rules.

Each history is sent with ``litellm.anthropic.messages.acreate`` to the project's
stand-in, once with LiteLLM alone and once with hygiene registered; the stand-in judges
the body as the provider does. Native routes only: where LiteLLM bridges the call to a
chat completion, hygiene acts on that inner call (``tests/integration/test_callback.py`` and the
chat tests cover it), and the outer call goes out as it came.
"""

from __future__ import annotations

import asyncio
import copy
from collections import Counter
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import litellm
import pytest
from litellm.anthropic_interface import messages as anthropic_messages
from litellm.exceptions import BadRequestError
from litellm.litellm_core_utils.core_helpers import map_finish_reason

from litellm_hygiene import HygieneCallback
from litellm_hygiene._anthropic import _chat as anthropic_chat
from litellm_hygiene._integration._metadata import REPORT_KEY, SUMMARY_KEY
from litellm_hygiene._integration._shapes import anthropic_answer
from litellm_hygiene._integration._store._fingerprints import lookup_keys
from litellm_hygiene._standin import Reply, StandIn, anthropic
from litellm_hygiene._standin.serve import ANSWER, answer
from tests.support.cassettes import FAKE_AWS, warm_up_litellm
from tests.support.litellm_callbacks import restored_callbacks
from tests.support.litellm_version import litellm_version
from tests.support.payload_recorder import PayloadRecorder, records_tagged
from tests.support.streams import anthropic_content, remembered, sse_events, warm_up_streams

SIGNATURE = "EqQBCkgIAxABGAIiQL0t1cJmUMqzNvJ0MPLKbFQyB7gqEpOPh0hY0y4xeA==" * 3
THINKING = {"type": "enabled", "budget_tokens": 2048}
CLAUDE = "anthropic/claude-sonnet-4-5"
OPUS_48 = "anthropic/claude-opus-4-8"
CLAUDE_BEDROCK = "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0"
DEEPSEEK = "deepseek/deepseek-chat"

GPT = "openai/gpt-4o"

_ROUTES: dict[str, tuple[str, dict[str, str]]] = {
    CLAUDE: ("", {}),
    OPUS_48: ("", {}),
    CLAUDE_BEDROCK: ("", FAKE_AWS),
    DEEPSEEK: ("/anthropic", {}),
    GPT: ("/v1", {}),
}
NATIVE = [CLAUDE, CLAUDE_BEDROCK, DEEPSEEK]
STREAMED = [CLAUDE, DEEPSEEK]
"""The native routes the stand-in streams (Bedrock streams Claude on another path,
``invoke-with-response-stream``, in AWS's own event framing)."""


@pytest.fixture(scope="module", autouse=True)
def _warm() -> None:
    """LiteLLM's first use of some types warns (an error here): use them once first."""
    warm_up_litellm()
    warm_up_streams()


@pytest.fixture(scope="module")
def standin() -> Iterator[StandIn]:
    with StandIn(respond=answer) as server:
        yield server


async def _call(standin: StandIn, model: str, messages: list[Any], **params: Any) -> Any:
    standin.reset()
    base, extra = _ROUTES[model]
    credentials: dict[str, Any] = dict(extra)
    return await anthropic_messages.acreate(
        model=model,
        messages=messages,
        api_base=standin.base_url + base,
        api_key="sk-test",
        max_tokens=4096,
        tools=[{"name": "Bash", "input_schema": {"type": "object"}}],
        **credentials,
        **params,
    )


async def _send(standin: StandIn, model: str, messages: list[Any], **params: Any) -> dict[str, Any]:
    response = await _call(standin, model, messages, **params)
    assert isinstance(response, dict)
    return response


async def _streamed(
    standin: StandIn, model: str, messages: list[Any], **params: Any
) -> list[dict[str, Any]]:
    """The events of the call sent with ``stream=True``, the stream read to its end."""
    stream = await _call(standin, model, messages, stream=True, **params)
    return sse_events([chunk async for chunk in stream])


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def _claude_turn(call_id: str = "toolu_01A") -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "Run it.", "signature": SIGNATURE},
            {"type": "text", "text": "Running."},
            {"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": "ls"}},
        ],
    }


def _result(call_id: str = "toolu_01A", text: str = "a.py") -> dict[str, Any]:
    return {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": call_id, "content": text}],
    }


INTERRUPTED = [
    _user("list the files"),
    _claude_turn(),
    _user("[Request interrupted by user for tool use]"),
]
"""Claude Code after the user stopped a call: the call has no result."""

GPT_LOOP = [
    _user("list the files"),
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Listing."},
            {"type": "tool_use", "id": "call_Xk2", "name": "Bash", "input": {"command": "ls"}},
        ],
    },
    _result("call_Xk2"),
]
"""A GPT turn mid tool loop (as LiteLLM's bridge gave it back to Claude Code)."""

GEMINI_EMPTY_SIGNATURE = [
    _user("list the files"),
    {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "Listing them.", "signature": ""},
            {"type": "text", "text": "Done: a.py"},
        ],
    },
    _user("thanks, and now?"),
]
"""A Gemini 3 turn through LiteLLM's bridge: thinking with an empty signature."""


def _sent(standin: StandIn) -> dict[str, Any]:
    (request,) = standin.received
    assert isinstance(request.body, dict)
    return request.body


@pytest.mark.parametrize("model", NATIVE)
async def test_an_interrupted_call_is_answered(standin: StandIn, model: str) -> None:
    before = copy.deepcopy(INTERRUPTED)
    with restored_callbacks(empty=True):
        with pytest.raises(BadRequestError, match="tool_use"):
            await _send(standin, model, INTERRUPTED)
        litellm.callbacks = [HygieneCallback(provenance_store="none")]
        response = await _send(standin, model, INTERRUPTED)
    body = _sent(standin)
    after = [block for message in body["messages"][2:] for block in message["content"]]
    assert [message["role"] for message in body["messages"][2:]] == ["user"] * len(
        body["messages"][2:]
    )
    assert after[0]["type"] == "tool_result" and after[0]["tool_use_id"] == "toolu_01A"
    assert after[1] == INTERRUPTED[2]["content"][0]
    assert response["content"][0]["text"].startswith("Hello from the litellm-hygiene")
    assert INTERRUPTED == before


@pytest.mark.parametrize("model", STREAMED)
async def test_a_streamed_interrupted_call_is_answered(standin: StandIn, model: str) -> None:
    """Rejected before any event is sent; with hygiene, streamed to its ``message_stop``."""
    with restored_callbacks(empty=True):
        with pytest.raises(BadRequestError, match="tool_use"):
            await _streamed(standin, model, INTERRUPTED)
        litellm.callbacks = [HygieneCallback(provenance_store="none")]
        events = await _streamed(standin, model, INTERRUPTED)
    body = _sent(standin)
    assert body["stream"] is True
    results = [b for m in body["messages"][2:] for b in m["content"] if b["type"] == "tool_result"]
    assert [result["tool_use_id"] for result in results] == ["toolu_01A"]
    kinds = [event["type"] for event in events]
    assert (kinds[0], kinds[-2:]) == ("message_start", ["message_delta", "message_stop"])
    (text,) = anthropic_content(events)
    assert text == {"type": "text", "text": ANSWER.format(api="anthropic-messages")}


@pytest.mark.parametrize("model", [CLAUDE, CLAUDE_BEDROCK])
async def test_another_models_open_loop_goes_without_thinking(standin: StandIn, model: str) -> None:
    with restored_callbacks(empty=True):
        with pytest.raises(BadRequestError, match="Expected `thinking` or"):
            await _send(standin, model, GPT_LOOP, thinking=THINKING)
        litellm.callbacks = [HygieneCallback(provenance_store="none")]
        await _send(standin, model, GPT_LOOP, thinking=THINKING)
    body = _sent(standin)
    assert "thinking" not in body
    assert body["messages"] == GPT_LOOP


async def test_an_empty_signature_is_not_sent(standin: StandIn) -> None:
    with restored_callbacks(empty=True):
        litellm.callbacks = [HygieneCallback(provenance_store="none")]
        await _send(standin, CLAUDE, GEMINI_EMPTY_SIGNATURE, thinking=THINKING)
    turn = _sent(standin)["messages"][1]["content"]
    assert all(block["type"] != "thinking" for block in turn), turn


async def test_claude_codes_own_session_goes_out_as_it_came(standin: StandIn) -> None:
    messages = [_user("list the files"), _claude_turn(), _result(), _user("and then?")]
    system = [
        {"type": "text", "text": "You are Claude Code.", "cache_control": {"type": "ephemeral"}}
    ]
    with restored_callbacks(empty=True):
        await _send(standin, CLAUDE, messages, system=system, thinking=THINKING)
        alone = _sent(standin)
        litellm.callbacks = [HygieneCallback(provenance_store="none")]
        await _send(standin, CLAUDE, messages, system=system, thinking=THINKING)
    assert _sent(standin) == alone


async def test_ids_and_blocks_anthropic_accepts_stay_accepted(standin: StandIn) -> None:
    """Kimi-style ``functions.Bash:0`` ids are sent as they are (LiteLLM's own fix)."""
    messages = [_user("go"), _claude_turn("functions.Bash:0"), _result("functions.Bash:0")]
    with restored_callbacks(empty=True):
        litellm.callbacks = [HygieneCallback(provenance_store="none")]
        await _send(standin, CLAUDE, messages)
    ids = [
        b.get("id") or b.get("tool_use_id")
        for m in _sent(standin)["messages"]
        for b in m["content"]
        if b["type"] in ("tool_use", "tool_result")
    ]
    assert ids[0] == ids[1]


async def test_the_report_reaches_the_spend_logs_not_the_provider(standin: StandIn) -> None:
    """``metadata`` is Anthropic's own field: the report rides in ``litellm_metadata``."""
    recorder = PayloadRecorder()
    tag = "messages-route-report"
    with restored_callbacks(empty=True):
        litellm.callbacks = [HygieneCallback(provenance_store="none"), recorder]
        await _send(
            standin,
            CLAUDE,
            INTERRUPTED,
            metadata={"user_id": "u-1"},
            litellm_metadata={"spend_logs_metadata": {"test": tag}},
        )
        for _ in range(200):
            mine = [
                r for r in recorder.records if (r["spend_logs_metadata"] or {}).get("test") == tag
            ]
            if mine:
                break
            await asyncio.sleep(0.02)
    assert _sent(standin)["metadata"] == {"user_id": "u-1"}
    (record,) = mine
    report = record["spend_logs_metadata"][REPORT_KEY]
    assert report["target"] == CLAUDE
    assert report["changes"] == {"tool_pairing": 1}
    assert record["spend_logs_metadata"][SUMMARY_KEY] == "changed"


# -- what Claude Code sends beyond what hygiene reads: kept, and the rest fixed ----------

CLAUDE_CODE_SYSTEM = {"role": "system", "content": "Available agent types for the Agent tool: ..."}
"""The system message Claude Code puts at ``messages[1]`` of every request."""

CONTEXT_MANAGEMENT = {"edits": [{"type": "clear_thinking_20251015", "keep": "all"}]}


def _result_ids(body: dict[str, Any]) -> list[str]:
    """The ids the tool results of a sent body answer, in order."""
    blocks = [b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]]
    return [b["tool_use_id"] for b in blocks if b.get("type") == "tool_result"]


def _claude_code_interrupted() -> list[dict[str, Any]]:
    """An interrupted call, as Claude Code sends it with its mid-conversation system
    message, a cache marker and a block type no reader knows."""
    first = _user("list the files")
    first["content"].append({"type": "x_future_block", "data": {"k": 1}})
    first["content"][0]["cache_control"] = {"type": "ephemeral"}
    return [first, CLAUDE_CODE_SYSTEM, _claude_turn(), _user("never mind")]


@pytest.mark.parametrize(
    ("model", "kept"),
    [(CLAUDE, False), (OPUS_48, True)],
)
async def test_claude_codes_system_message_is_kept_where_the_model_takes_it(
    standin: StandIn, model: str, kept: bool
) -> None:
    """Read, not given up on: the interrupted call is answered, ``context_management``
    and every block hygiene does not know go as they came, and the system message stays
    a system message where Claude takes one (Opus 4.8 on) or becomes a user note."""
    messages = _claude_code_interrupted()
    before = copy.deepcopy(messages)
    params = {"context_management": CONTEXT_MANAGEMENT, "metadata": {"user_id": "u"}}
    with restored_callbacks(empty=True):
        hygiene = HygieneCallback(provenance_store="none")
        litellm.callbacks = [hygiene]
        await _send(standin, model, messages, **params)
    body = _sent(standin)
    assert messages == before
    assert hygiene.stats["invalid_input"] == 0 and hygiene.stats["errors"] == 0
    head = body["messages"][0]["content"][:2]
    assert head == before[0]["content"]  # the unknown block and the marker, as they came
    assert body["context_management"] == CONTEXT_MANAGEMENT
    if kept:
        assert body["messages"][1] == CLAUDE_CODE_SYSTEM
        roles = [m["role"] for m in body["messages"]]
        assert roles[:3] == ["user", "system", "assistant"] and set(roles[3:]) == {"user"}
    else:
        roles = [m["role"] for m in body["messages"]]
        assert "system" not in roles
        notes = [
            b for m in body["messages"] for b in m["content"] if "Available agent types" in str(b)
        ]
        assert notes == [{"type": "text", "text": "System note: " + CLAUDE_CODE_SYSTEM["content"]}]
    assert _result_ids(body) == ["toolu_01A"]


async def test_a_message_no_reader_knows_is_kept_and_the_rest_fixed(standin: StandIn) -> None:
    """A role hygiene cannot read does not turn it off for the request: that message
    goes as it came, at its place, reported; the interrupted call is still answered."""
    odd = {"role": "critic", "content": "looks fine"}
    messages = [*INTERRUPTED, odd]
    with restored_callbacks(empty=True):
        hygiene = HygieneCallback(provenance_store="none")
        litellm.callbacks = [hygiene]
        try:
            await _send(standin, CLAUDE, messages)
        except BadRequestError as err:  # a provider that knows its roles refuses this one
            assert "role" in str(err)
    body = _sent(standin)
    assert body["messages"][-1] == odd
    assert _result_ids(body) == ["toolu_01A"]
    assert hygiene.stats["unread_messages"] == 1
    assert hygiene.stats["invalid_input"] == 0


async def test_fail_closed_still_rejects_a_message_no_reader_knows(standin: StandIn) -> None:
    messages = [*INTERRUPTED, {"role": "critic", "content": "looks fine"}]
    with restored_callbacks(empty=True):
        litellm.callbacks = [HygieneCallback(provenance_store="none", fail_closed=True)]
        with pytest.raises(BadRequestError, match=r"litellm_hygiene: messages\[3\]\.role"):
            await _send(standin, CLAUDE, messages)
    assert standin.received == []


# -- the answers: provenance and overflow ----------------------------------------------


@pytest.fixture
def queue() -> Iterator[StandIn]:
    """A stand-in that serves the replies a test queues, in order."""
    with StandIn() as server:
        yield server


async def _queued(server: StandIn, model: str, messages: list[Any], **params: Any) -> Any:
    return await anthropic_messages.acreate(
        model=model,
        messages=messages,
        api_base=server.base_url,
        api_key="sk-test",
        max_tokens=4096,
        **params,
    )


def _sonnet_answers_then_ok(queue: StandIn) -> Reply:
    """Queue Claude Sonnet's thinking-and-call answer, then a plain one; the first."""
    answer_turn = anthropic.message(
        anthropic.thinking("List first.", seed="s"),
        anthropic.tool_use("Bash", {"command": "ls"}, seed="s"),
        model="claude-sonnet-4-5",
        seed="s",
    )
    queue.enqueue(answer_turn, anthropic.message(anthropic.text("ok"), model="m", seed="t"))
    return answer_turn


async def test_an_answer_is_known_as_its_models_own_next_time(queue: StandIn) -> None:
    """Claude Sonnet's answer, sent next to Claude Opus, is another model's thinking."""
    _sonnet_answers_then_ok(queue)
    asked = [_user("list the files")]
    with restored_callbacks(empty=True):
        hygiene = HygieneCallback(provenance_store="memory")
        litellm.callbacks = [hygiene]
        first = await _queued(queue, CLAUDE, asked, thinking=THINKING)
        call = first["content"][1]["id"]
        history = [*asked, {"role": "assistant", "content": first["content"]}, _result(call)]
        await _queued(queue, "anthropic/claude-opus-4-1", history, thinking=THINKING)
    sent = queue.received[-1].body
    assert isinstance(sent, dict)
    turn = sent["messages"][1]["content"]
    assert [block["type"] for block in turn] == ["text", "tool_use"]
    assert turn[0]["text"] == "List first."
    assert "thinking" not in sent  # the loop's last turn no longer starts with thinking
    assert hygiene.stats["restored"] == 1


async def test_a_streamed_answer_is_known_as_its_models_own_next_time(queue: StandIn) -> None:
    """The same, streamed: the turn Claude Code rebuilds from the events is recognised."""
    answer_turn = _sonnet_answers_then_ok(queue)
    asked = [_user("list the files")]
    with restored_callbacks(empty=True):
        hygiene = HygieneCallback(provenance_store="memory")
        litellm.callbacks = [hygiene]
        stream = await _queued(queue, CLAUDE, asked, thinking=THINKING, stream=True)
        content = anthropic_content(sse_events([chunk async for chunk in stream]))
        turn = {"role": "assistant", "content": content}
        found = await remembered(hygiene.store, anthropic_answer(turn)[0])
        history = [*asked, turn, _result(content[1]["id"])]
        await _queued(queue, "anthropic/claude-opus-4-1", history, thinking=THINKING)
    assert content == answer_turn.body["content"]
    assert (found.provider, found.api, found.model) == (
        "anthropic",
        "anthropic-messages",
        "claude-sonnet-4-5",
    )
    streamed, sent = (request.body for request in queue.received)
    assert isinstance(streamed, dict) and streamed["stream"] is True
    assert isinstance(sent, dict)
    turn_sent = sent["messages"][1]["content"]
    assert [block["type"] for block in turn_sent] == ["text", "tool_use"]
    assert turn_sent[0]["text"] == "List first."
    assert "thinking" not in sent
    assert hygiene.stats["restored"] == 1


async def test_an_overflow_error_is_in_the_spend_logs(queue: StandIn) -> None:
    queue.enqueue(
        anthropic.error(
            400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum", "o"
        )
    )
    recorder = PayloadRecorder()
    tag = "messages-route-overflow"
    with restored_callbacks(empty=True):
        litellm.callbacks = [HygieneCallback(provenance_store="none"), recorder]
        with pytest.raises(Exception, match="prompt is too long"):
            await _queued(
                queue,
                CLAUDE,
                [_user("a long one")],
                litellm_metadata={"spend_logs_metadata": {"test": tag}},
            )
        (record,) = await records_tagged(recorder, tag)
    spend = record["spend_logs_metadata"]
    assert spend[SUMMARY_KEY] == "overflow"
    assert spend[REPORT_KEY]["overflow"]["input_tokens"] == 210000


async def test_an_answer_cut_by_the_window_is_flagged(queue: StandIn) -> None:
    queue.enqueue(
        anthropic.message(
            anthropic.text("partial"),
            model="claude-sonnet-4-5",
            seed="w",
            stop_reason="model_context_window_exceeded",
            input_tokens=199000,
        )
    )
    recorder = PayloadRecorder()
    tag = "messages-route-window"
    with restored_callbacks(empty=True):
        hygiene = HygieneCallback(provenance_store="none")
        litellm.callbacks = [hygiene, recorder]
        await _queued(
            queue, CLAUDE, [_user("go")], litellm_metadata={"spend_logs_metadata": {"test": tag}}
        )
        (record,) = await records_tagged(recorder, tag)
    assert record["spend_logs_metadata"][SUMMARY_KEY] == "overflow"
    assert hygiene.stats["overflow_flagged"] == 1


async def _streamed_stats(queue: StandIn, answer: Any) -> Counter[str]:
    """Stream ``answer`` to the end through the callback; its stats once LiteLLM logged it."""
    queue.enqueue(answer)
    with restored_callbacks(empty=True):
        hygiene = HygieneCallback(provenance_store="none")
        litellm.callbacks = [hygiene]
        stream = await _queued(queue, CLAUDE, [_user("go")], stream=True)
        assert [chunk async for chunk in stream]
        for _ in range(100):
            if hygiene.stats["stream_answers"]:
                break
            await asyncio.sleep(0.02)
    assert hygiene.stats["stream_answers"] == 1
    return hygiene.stats


async def test_a_streamed_answer_over_the_window_is_flagged(queue: StandIn) -> None:
    """A native stream has no success deployment hook: its overflow is flagged once
    LiteLLM logs the assembled answer (counted, logged and in the metrics; the stream's
    headers went out before its end was known)."""
    over = anthropic.message(
        anthropic.text("partial"), model="claude-sonnet-4-5", seed="w", input_tokens=200_100
    )
    stats = await _streamed_stats(queue, over)
    assert stats["overflow_flagged"] == 1


async def test_a_streamed_answers_window_stop_reason_is_lost_on_the_way(queue: StandIn) -> None:
    """What LiteLLM hands over of a native stream has lost Anthropic's raw
    ``model_context_window_exceeded`` (no raw stream is kept on the call): 1.106 and 1.108
    map it to ``stop``, 1.109 to ``length``, with the one output token ``message_start``
    reports. Within the window, nothing then says the window ended it: not flagged
    (docs/litellm-routes.md); unstreamed, the same answer is (the test above)."""
    cut = anthropic.message(
        anthropic.text(""),
        model="claude-sonnet-4-5",
        seed="w",
        stop_reason="model_context_window_exceeded",
        input_tokens=199_500,
        output_tokens=0,
    )
    mapped = map_finish_reason("model_context_window_exceeded")
    assert mapped == ("length" if litellm_version() >= (1, 109, 0) else "stop")
    stats = await _streamed_stats(queue, cut)
    assert stats["overflow_flagged"] == 0


async def test_a_streamed_answer_is_remembered_as_its_routes_model() -> None:
    """A native stream has no deployment hook: LiteLLM's assembled answer is recorded,
    as Claude on Bedrock's invoke route (Anthropic's protocol), not Converse."""
    hygiene = HygieneCallback(provenance_store="memory")
    message = {
        "role": "assistant",
        "content": "Listing.",
        "tool_calls": [
            {"id": "toolu_01S", "type": "function", "function": {"name": "Bash", "arguments": "{}"}}
        ],
    }
    answer = litellm.ModelResponse(choices=[{"message": message, "finish_reason": "tool_calls"}])
    kwargs = {"model": CLAUDE_BEDROCK, "stream": True, "call_type": "anthropic_messages"}
    await hygiene.async_log_success_event(kwargs, answer, None, None)
    turn = {
        "role": "assistant",
        "content": [{"type": "text", "text": "Listing."}, _tool_use("toolu_01S")],
    }
    store = hygiene.store
    assert store is not None
    chat = anthropic_answer(turn)[0]
    found = store.get(lookup_keys(chat))
    assert found is not None
    assert (found.provider, found.api) == ("bedrock", "anthropic-messages")


@pytest.mark.parametrize(
    ("model", "remembered"), [("openai/gpt-5", False), ("gemini/gemini-2.5-pro", True)]
)
async def test_a_bridged_stream_is_remembered_once_by_the_call_that_saw_it(
    model: str, remembered: bool
) -> None:
    """A ``/v1/messages`` stream LiteLLM bridged to ``/v1/responses`` was remembered by the
    inner call's hooks, as that route's; one bridged to chat completions is remembered
    here, from LiteLLM's assembled answer."""
    hygiene = HygieneCallback(provenance_store="memory")
    message = {"role": "assistant", "content": "Bridged."}
    answer = litellm.ModelResponse(choices=[{"message": message, "finish_reason": "stop"}])
    kwargs = {"model": model, "stream": True, "call_type": "anthropic_messages"}
    await hygiene.async_log_success_event(kwargs, answer, None, None)
    store = hygiene.store
    assert store is not None
    assert (store.get(lookup_keys(message)) is not None) is remembered
    assert hygiene.stats["errors"] == 0


def _tool_use(call_id: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": "Bash", "input": {}}


async def test_a_fitted_claude_code_request_keeps_its_notes_in_system() -> None:
    """Fitting to the window adds a note as a system message: it goes into ``system``."""
    messages: list[dict[str, Any]] = []
    for n in range(30):
        messages += [_user(f"question {n} " + "word " * 200)]
        messages += [{"role": "assistant", "content": "answer " * 200}]
    messages.append(_user("final"))
    kwargs = {
        "model": CLAUDE,
        "custom_llm_provider": "anthropic",
        "messages": messages,
        "system": "You are Claude Code.",
        "max_tokens": 1000,
        "litellm_call_id": "fitted-messages",
        "model_info": {"max_input_tokens": 8000, "max_tokens": 8000},
    }
    hygiene = HygieneCallback(provenance_store="none", fit_to_context=True, fit_marker=True)
    sent = await hygiene.async_pre_call_deployment_hook(dict(kwargs), "anthropic_messages")
    assert sent is not None
    assert len(sent["messages"]) < len(messages)
    assert sent["messages"][-1] == messages[-1]
    system = sent["system"]
    assert system[0] == {"type": "text", "text": "You are Claude Code."}
    assert len(system) == 2 and system[1]["type"] == "text"
    report = hygiene.report_for("fitted-messages")
    assert report is not None and report.trimmed is not None


async def test_a_failure_writing_the_request_back_sends_it_unchanged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Writing a changed request back in its shape happens where hygiene fails open."""
    read = anthropic_chat.read_as_chat

    def unwritable(messages: Any, system: Any, seen: Any = None) -> Any:
        chat = read(messages, system, seen)

        def broken(messages: Any) -> Any:
            raise RuntimeError("no")

        return SimpleNamespace(
            messages=chat.messages,
            written=broken,
            unread=chat.unread,
            lifted=chat.lifted,
            seen=chat.seen,
        )

    # The integration reads the shape through the module (its own functions, compiled,
    # call each other directly: patching one of them would change nothing there).
    monkeypatch.setattr(anthropic_chat, "read_as_chat", unwritable)
    hygiene = HygieneCallback(provenance_store="none")
    kwargs = {
        "model": CLAUDE,
        "messages": INTERRUPTED,
        "max_tokens": 100,
        "litellm_call_id": "broken-write",
    }
    sent = await hygiene.async_pre_call_deployment_hook(dict(kwargs), "anthropic_messages")
    assert sent is not None and sent["messages"] is INTERRUPTED
    report = hygiene.report_for("broken-write")
    assert report is not None and report.error == "RuntimeError"
    assert hygiene.stats["error:RuntimeError"] == 1


async def test_a_fallback_hop_after_a_bridged_one_is_transformed() -> None:
    """Router fallbacks share the call id: a bridged hop's chat report, once the hop
    failed, does not stop the next, native hop."""
    hygiene = HygieneCallback(provenance_store="none")
    call_id = {"litellm_call_id": "two-hops"}
    chat = {"model": "gemini/gemini-2.5-pro", "messages": [{"role": "user", "content": "hi"}]}
    await hygiene.async_pre_call_deployment_hook({**chat, **call_id}, "acompletion")
    await hygiene.async_post_call_failure_deployment_hook(
        {**chat, **call_id}, RuntimeError("hop 1 failed"), "acompletion"
    )
    native = {"model": CLAUDE, "messages": INTERRUPTED, "max_tokens": 100, **call_id}
    sent = await hygiene.async_pre_call_deployment_hook(dict(native), "anthropic_messages")
    assert sent is not None and sent["messages"] is not INTERRUPTED
    report = hygiene.report_for("two-hops")
    assert report is not None and report.changes == {"tool_pairing": 1}


async def test_claude_code_switched_to_gpt_gets_its_interrupted_call_answered(
    standin: StandIn,
) -> None:
    """LiteLLM sends ``/v1/messages`` to OpenAI as an inner Responses call: hygiene acts
    there, once, and the call's output is in the Responses form."""
    with restored_callbacks(empty=True):
        with pytest.raises(BadRequestError, match="No tool output found"):
            await _send(standin, GPT, INTERRUPTED)
        hygiene = HygieneCallback(provenance_store="none")
        litellm.callbacks = [hygiene]
        response = await _send(standin, GPT, INTERRUPTED)
    outputs = [i for i in _sent(standin)["input"] if i.get("type") == "function_call_output"]
    assert [o["call_id"] for o in outputs] == ["toolu_01A"]
    assert response["content"][0]["text"].startswith("Hello from the litellm-hygiene")
    assert hygiene.stats["requests"] == 1
