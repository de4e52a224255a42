"""``/v1/responses`` (Codex) through LiteLLM, sent as it is, with the same rules.

Each history is sent with ``litellm.aresponses`` to the project's stand-in, once with
LiteLLM alone and once with hygiene registered; the stand-in judges the body as OpenAI
does. Native routes only (OpenAI, Azure): where LiteLLM bridges the call to a chat
completion, hygiene acts on that inner call.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import litellm
import pytest
from litellm.exceptions import BadRequestError
from litellm.types.llms.openai import ResponseCompletedEvent, ResponsesAPIResponse

from litellm_hygiene import HygieneCallback
from litellm_hygiene._integration._metadata import REPORT_KEY, SUMMARY_KEY
from litellm_hygiene._integration._shapes import responses_answer
from litellm_hygiene._integration._store._fingerprints import lookup_keys
from litellm_hygiene._standin import StandIn, openai_responses
from litellm_hygiene._standin.serve import ANSWER, answer
from tests.support.cassettes import warm_up_litellm
from tests.support.litellm_callbacks import restored_callbacks
from tests.support.payload_recorder import PayloadRecorder, records_tagged
from tests.support.streams import done_items, remembered

GPT = "openai/gpt-4o"
GEMINI_SIGNATURE = "CiQBVKhc7mO4GPk1KLSHYaBB4gK1dAAYD4sAj1x0qQ4rFO0+iRoKWgFUqFzu" * 4
ENCRYPTED = "gAAAAABo" + "x" * 120


@pytest.fixture(scope="module", autouse=True)
def _warm() -> None:
    """LiteLLM's first use of some types warns (an error here): use them once first."""
    warm_up_litellm()


@pytest.fixture(scope="module")
def standin() -> Iterator[StandIn]:
    with StandIn(respond=answer) as server:
        yield server


async def _send(server: StandIn, items: list[Any], **params: Any) -> Any:
    server.reset()
    return await litellm.aresponses(
        model=GPT,
        input=items,
        api_base=server.base_url + "/v1",
        api_key="sk-test",
        **params,
    )


async def _streamed(server: StandIn, items: list[Any], **params: Any) -> list[Any]:
    """The events of the call sent with ``stream=True``, the stream read to its end."""
    stream = await _send(server, items, stream=True, **params)
    return [event async for event in stream]


def _sent(server: StandIn) -> dict[str, Any]:
    (request,) = server.received
    assert isinstance(request.body, dict)
    return request.body


def _user(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def _codex_turn(call_id: str = "call_Ab12") -> list[dict[str, Any]]:
    return [
        {
            "type": "reasoning",
            "id": "rs_01",
            "summary": [{"type": "summary_text", "text": "Run the tests."}],
            "encrypted_content": ENCRYPTED,
        },
        {
            "type": "function_call",
            "id": "fc_01",
            "call_id": call_id,
            "name": "shell",
            "arguments": '{"command": ["pytest"]}',
        },
    ]


INTERRUPTED = [_user("run the tests"), *_codex_turn(), _user("stop, do something else")]
"""Codex after the user stopped a call: the call has no output."""


def _gemini_turn() -> list[dict[str, Any]]:
    call_id = f"call_G1__thought__{GEMINI_SIGNATURE}"
    return [
        {
            "type": "function_call",
            "id": f"fc_{call_id}",
            "call_id": call_id,
            "name": "shell",
            "arguments": "{}",
            "provider_specific_fields": {"thought_signature": GEMINI_SIGNATURE},
        },
        {"type": "function_call_output", "call_id": call_id, "output": "ok"},
    ]


GEMINI_SESSION = [_user("list the files"), *_gemini_turn(), _user("and now?")]
"""A Codex session that went through Gemini on LiteLLM: its ids carry the signature."""


async def test_an_interrupted_call_gets_its_output(standin: StandIn) -> None:
    before = copy.deepcopy(INTERRUPTED)
    with restored_callbacks(empty=True):
        with pytest.raises(BadRequestError, match="No tool output found"):
            await _send(standin, INTERRUPTED)
        litellm.callbacks = [HygieneCallback(provenance_store="none")]
        await _send(standin, INTERRUPTED)
    items = _sent(standin)["input"]
    assert items[:3] == INTERRUPTED[:3]  # Codex's own reasoning and call, as they came
    assert items[3] == {
        "type": "function_call_output",
        "call_id": "call_Ab12",
        "output": "No result provided",
    }
    assert items[4] == INTERRUPTED[3]
    assert before == INTERRUPTED


async def test_an_output_sent_late_goes_back_after_its_call(standin: StandIn) -> None:
    """The items move (the output before the user's message): each is sent once, in order.

    Twice, as an agent sends it: the second time the hook remembers the conversation.
    """
    late = {"type": "function_call_output", "call_id": "call_Ab12", "output": "3 passed"}
    items = [_user("run the tests"), *_codex_turn(), _user("meanwhile, a question"), late]
    with restored_callbacks(empty=True):
        litellm.callbacks = [HygieneCallback(provenance_store="none")]
        for _ in range(2):
            await _send(standin, copy.deepcopy(items))
            assert _sent(standin)["input"] == [*items[:3], late, items[3]]


async def test_items_no_reader_knows_are_kept_and_the_rest_fixed(standin: StandIn) -> None:
    """A developer message mid-conversation is read; an item of a type hygiene does not
    interpret and one it cannot read (a role it does not know) go as they came, at their
    places; the interrupted call still gets its output, and nothing turns hygiene off."""
    developer = {
        "type": "message",
        "role": "developer",
        "content": [{"type": "input_text", "text": "Be brief."}],
    }
    unknown_type = {"type": "x_future_item", "payload": {"k": 1}}
    unreadable = {"type": "message", "role": "critic", "content": "looks fine"}
    items = [developer, INTERRUPTED[0], unknown_type, *INTERRUPTED[1:3], unreadable]
    items.append(INTERRUPTED[3])
    before = copy.deepcopy(items)
    with restored_callbacks(empty=True):
        hygiene = HygieneCallback(provenance_store="none")
        litellm.callbacks = [hygiene]
        try:
            await _send(standin, items)
        except BadRequestError as err:  # a provider that knows its roles refuses this one
            assert "role" in str(err)
    sent = _sent(standin)["input"]
    assert items == before
    assert sent[:5] == items[:5]
    outputs = [item for item in sent if item.get("type") == "function_call_output"]
    assert outputs == [
        {"type": "function_call_output", "call_id": "call_Ab12", "output": "No result provided"}
    ]
    assert unreadable in sent and sent.index(unreadable) > sent.index(outputs[0])
    assert hygiene.stats["unread_messages"] == 1 and hygiene.stats["invalid_input"] == 0


async def test_a_streamed_interrupted_call_gets_its_output(standin: StandIn) -> None:
    """Rejected before any event is sent; with hygiene, streamed to ``response.completed``."""
    with restored_callbacks(empty=True):
        with pytest.raises(BadRequestError, match="No tool output found"):
            await _streamed(standin, INTERRUPTED)
        litellm.callbacks = [HygieneCallback(provenance_store="none")]
        events = await _streamed(standin, INTERRUPTED)
    body = _sent(standin)
    assert body["stream"] is True
    assert body["input"][3] == {
        "type": "function_call_output",
        "call_id": "call_Ab12",
        "output": "No result provided",
    }
    kinds = [event.type for event in events]
    assert (kinds[0], kinds[-1]) == ("response.created", "response.completed")
    (item,) = done_items(events)
    assert item["content"][0]["text"] == ANSWER.format(api="openai-responses")
    assert events[-1].response.output[0].content[0].text == item["content"][0]["text"]


async def test_a_gemini_sessions_ids_go_out_in_openais_limits(standin: StandIn) -> None:
    with restored_callbacks(empty=True):
        with pytest.raises(BadRequestError, match="string too long"):
            await _send(standin, GEMINI_SESSION)
        litellm.callbacks = [HygieneCallback(provenance_store="none")]
        await _send(standin, GEMINI_SESSION)
    call, output = _sent(standin)["input"][1:3]
    assert call["call_id"] == output["call_id"] == "call_G1"
    assert "provider_specific_fields" not in call
    assert "id" not in call or (call["id"].startswith("fc") and len(call["id"]) <= 64)


async def test_codexs_own_session_goes_out_as_it_came(standin: StandIn) -> None:
    items = [
        _user("run the tests"),
        *_codex_turn(),
        {"type": "function_call_output", "call_id": "call_Ab12", "output": "1 failed"},
        {
            "type": "message",
            "role": "assistant",
            "id": "msg_01",
            "status": "completed",
            "content": [{"type": "output_text", "text": "One test fails.", "annotations": []}],
        },
        _user("fix it"),
    ]
    with restored_callbacks(empty=True):
        await _send(standin, items, instructions="You are Codex.")
        alone = _sent(standin)
        litellm.callbacks = [HygieneCallback(provenance_store="none")]
        await _send(standin, items, instructions="You are Codex.")
    assert _sent(standin) == alone


async def test_a_claude_sessions_minted_items_stay_accepted(standin: StandIn) -> None:
    """``/v1/messages`` to OpenAI gave Claude Code's turns ``fc_toolu_`` ids and minted
    reasoning; sent to OpenAI again they are accepted."""
    items = [
        _user("list"),
        {"type": "reasoning", "summary": [{"type": "summary_text", "text": "List them."}]},
        {
            "type": "function_call",
            "id": "fc_toolu_01A",
            "call_id": "toolu_01A",
            "name": "Bash",
            "arguments": "{}",
        },
        {"type": "function_call_output", "call_id": "toolu_01A", "output": "a.py"},
    ]
    with restored_callbacks(empty=True):
        litellm.callbacks = [HygieneCallback(provenance_store="none")]
        response = await _send(standin, items)
    assert response.output[0].content[0].text.startswith("Hello from the litellm-hygiene")


async def test_the_report_reaches_the_spend_logs_not_openai(standin: StandIn) -> None:
    """``metadata`` is OpenAI's own field: the report rides in ``litellm_metadata``."""
    recorder = PayloadRecorder()
    tag = "responses-route-report"
    with restored_callbacks(empty=True):
        litellm.callbacks = [HygieneCallback(provenance_store="none"), recorder]
        await _send(
            standin,
            INTERRUPTED,
            metadata={"session": "s-1"},
            litellm_metadata={"spend_logs_metadata": {"test": tag}},
        )
        records = await records_tagged(recorder, tag)
    assert _sent(standin).get("metadata") == {"session": "s-1"}
    (record,) = records
    spend = record["spend_logs_metadata"]
    assert spend[REPORT_KEY]["changes"] == {"tool_pairing": 1}
    assert spend[SUMMARY_KEY] == "changed"


async def test_an_answer_is_known_as_its_models_own_next_time() -> None:
    """GPT-4o's reasoning, sent next to o3, is another model's: it is not replayed."""
    with StandIn() as server:
        server.enqueue(
            openai_responses.response(
                openai_responses.reasoning(["Look first."], seed="r1"),
                openai_responses.function_call("shell", {"command": ["ls"]}, seed="r1"),
                model="gpt-4o",
                seed="r1",
            ),
            openai_responses.response(
                openai_responses.message("ok", seed="r2"), model="o3", seed="r2"
            ),
        )
        asked = [_user("list the files")]
        with restored_callbacks(empty=True):
            hygiene = HygieneCallback(provenance_store="memory")
            litellm.callbacks = [hygiene]
            first = await litellm.aresponses(
                model=GPT, input=asked, api_base=server.base_url + "/v1", api_key="sk-test"
            )
            assert isinstance(first, ResponsesAPIResponse)
            output = [_dumped(item) for item in first.output]
            call = next(item for item in output if item["type"] == "function_call")
            history = [
                *asked,
                *output,
                {"type": "function_call_output", "call_id": call["call_id"], "output": "a.py"},
            ]
            await litellm.aresponses(
                model="openai/o3", input=history, api_base=server.base_url + "/v1", api_key="k"
            )
        sent = server.received[-1].body
    assert isinstance(sent, dict)
    assert all(item.get("type") != "reasoning" for item in sent["input"])
    assert hygiene.stats["restored"] == 1


async def test_a_streamed_answer_is_known_as_its_models_own_next_time() -> None:
    """The same, streamed: the items Codex keeps from the events are recognised."""
    first = openai_responses.response(
        openai_responses.reasoning(["Look first."], seed="r1"),
        openai_responses.function_call("shell", {"command": ["ls"]}, seed="r1"),
        model="gpt-4o",
        seed="r1",
    )
    with StandIn() as server:
        server.enqueue(
            first,
            openai_responses.response(
                openai_responses.message("ok", seed="r2"), model="o3", seed="r2"
            ),
        )
        asked = [_user("list the files")]
        base = server.base_url + "/v1"
        with restored_callbacks(empty=True):
            hygiene = HygieneCallback(provenance_store="memory")
            litellm.callbacks = [hygiene]
            stream: Any = await litellm.aresponses(
                model=GPT, input=asked, api_base=base, api_key="sk-test", stream=True
            )
            output = done_items([event async for event in stream])
            (turn,) = responses_answer({"output": output})
            found = await remembered(hygiene.store, turn)
            call = next(item for item in output if item["type"] == "function_call")
            history = [
                *asked,
                *output,
                {"type": "function_call_output", "call_id": call["call_id"], "output": "a.py"},
            ]
            await litellm.aresponses(model="openai/o3", input=history, api_base=base, api_key="k")
        streamed, sent = (request.body for request in server.received)
    assert output == first.body["output"]
    assert (found.provider, found.api, found.model) == ("openai", "openai-responses", "gpt-4o")
    assert isinstance(streamed, dict) and streamed["stream"] is True
    assert isinstance(sent, dict)
    assert all(item.get("type") != "reasoning" for item in sent["input"])
    assert hygiene.stats["restored"] == 1


def _dumped(item: Any) -> dict[str, Any]:
    """An output item as a client keeps it (a dict, without unset fields)."""
    return dict(item) if isinstance(item, dict) else item.model_dump(exclude_none=True)


async def test_a_streamed_answer_is_remembered_from_its_closing_event() -> None:
    """A native stream's answer arrives as its ``response.completed`` event's response."""
    hygiene = HygieneCallback(provenance_store="memory")
    call = openai_responses.function_call("shell", {"command": ["ls"]}, seed="st")
    body = openai_responses.response(call, model="gpt-4o", seed="st").body
    event = ResponseCompletedEvent(type="response.completed", response=ResponsesAPIResponse(**body))
    kwargs = {"model": GPT, "stream": True, "call_type": "aresponses", "input": [_user("ls")]}
    await hygiene.async_log_success_event(kwargs, event, None, None)
    store = hygiene.store
    assert store is not None
    (turn,) = responses_answer({"output": [call]})  # as the call comes back next time
    found = store.get(lookup_keys(turn))
    assert found is not None
    assert (found.provider, found.api, found.model) == ("openai", "openai-responses", "gpt-4o")


@pytest.mark.parametrize(
    "stored",
    [
        {"previous_response_id": "resp_stored"},
        {"extra_body": {"conversation": "conv_stored"}},
    ],
)
async def test_a_call_continuing_a_stored_history_goes_out_untouched(
    standin: StandIn, stored: dict[str, Any]
) -> None:
    """Its first output answers a call OpenAI holds: nothing here is hygiene's to judge."""
    items = [
        {"type": "function_call_output", "call_id": "call_Stored1", "output": "a.py"},
        _user("and now?"),
    ]
    with restored_callbacks(empty=True):
        hygiene = HygieneCallback(provenance_store="none")
        litellm.callbacks = [hygiene]
        await _send(standin, items, **stored)
    assert _sent(standin)["input"] == items
    assert hygiene.stats["requests"] == 0


async def test_a_chat_completion_bridged_to_responses_is_one_request(standin: StandIn) -> None:
    """``openai/responses/`` models: LiteLLM turns the chat call into an inner Responses
    call; hygiene works on the chat messages, once, and reports that work."""
    chat = [
        {"role": "user", "content": "run the tests"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_Ab12",
                    "type": "function",
                    "function": {"name": "shell", "arguments": "{}"},
                }
            ],
        },
        {"role": "user", "content": "stop"},
    ]
    with restored_callbacks(empty=True):
        hygiene = HygieneCallback(provenance_store="none")
        litellm.callbacks = [hygiene]
        standin.reset()
        response = await litellm.acompletion(
            model="openai/responses/gpt-5",
            messages=chat,
            api_base=standin.base_url + "/v1",
            api_key="sk-test",
        )
    assert response._hidden_params["litellm_hygiene"]["changes"] == {"tool_pairing": 1}
    assert hygiene.stats["requests"] == 1


async def test_a_call_id_over_openais_limit_is_renamed_with_its_output(standin: StandIn) -> None:
    long_id = "call_" + "x" * 95
    items = [
        _user("go"),
        {"type": "function_call", "call_id": long_id, "name": "shell", "arguments": "{}"},
        {"type": "function_call_output", "call_id": long_id, "output": "ok"},
    ]
    with restored_callbacks(empty=True):
        with pytest.raises(Exception, match="string too long"):
            await _send(standin, items)
        litellm.callbacks = [HygieneCallback(provenance_store="none")]
        await _send(standin, items)
    call, output = _sent(standin)["input"][1:]
    assert call["call_id"] == output["call_id"]
    assert len(call["call_id"]) <= 64


async def test_a_changed_turn_keeps_each_reasoning_item_before_its_item(standin: StandIn) -> None:
    """A rule renames a call of a turn of two reasoning items: each still leads an item."""
    long_id = "call_" + "y" * 95
    items = [
        _user("go"),
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": ENCRYPTED},
        {
            "type": "message",
            "role": "assistant",
            "id": "msg_1",
            "content": [{"type": "output_text", "text": "Looking.", "annotations": []}],
        },
        {"type": "reasoning", "id": "rs_2", "summary": [], "encrypted_content": ENCRYPTED},
        {
            "type": "function_call",
            "id": "fc_2",
            "call_id": long_id,
            "name": "shell",
            "arguments": "{}",
        },
        {"type": "function_call_output", "call_id": long_id, "output": "ok"},
    ]
    with restored_callbacks(empty=True):
        litellm.callbacks = [HygieneCallback(provenance_store="none")]
        await _send(standin, items)
    kinds = [item.get("type") for item in _sent(standin)["input"]]
    assert kinds == [
        "message",
        "reasoning",
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
    ]
