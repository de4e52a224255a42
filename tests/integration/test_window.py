"""SlidingWindow: the seed's semantics exactly, and exchanges kept whole."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from litellm_hygiene import ConfigurationError, SlidingWindow
from litellm_hygiene._trim._thinking import THINKING_OMITTED, thinking_only, without_thinking

Json = dict[str, Any]


def system(text: str = "Be brief.", role: str = "system") -> Json:
    return {"role": role, "content": text}


def user(text: str = "hi") -> Json:
    return {"role": "user", "content": text}


def calls(*ids: str, text: str | None = None) -> Json:
    return {
        "role": "assistant",
        "content": text,
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}} for i in ids
        ],
    }


def result(call_id: str) -> Json:
    return {"role": "tool", "tool_call_id": call_id, "content": f"result {call_id}"}


def answer(text: str = "done") -> Json:
    return {"role": "assistant", "content": text}


S, U = system(), user()
A12, R1, R2 = calls("1", "2"), result("1"), result("2")
A3, R3 = calls("3"), result("3")
SEED = [S, U, A12, R1, R2, A3, R3]


def kept(window: SlidingWindow, messages: list[Json]) -> list[Json]:
    before = copy.deepcopy(messages)
    out = window.apply(messages)
    assert messages == before, "the input is never modified"
    assert out is not messages
    return out


def test_the_seed_example() -> None:
    """takeLast(4) with one system message would start with Result(2), whose call is gone."""
    assert kept(SlidingWindow(4), SEED) == [S, A3, R3]


def test_unchanged_under_the_limit() -> None:
    assert kept(SlidingWindow(7), SEED) == SEED
    assert kept(SlidingWindow(100), SEED) == SEED
    assert kept(SlidingWindow(max_user_turns=1), SEED) == SEED


def test_truncated_to_the_limit() -> None:
    history = [U, answer("a"), user("b"), answer("c"), user("d"), answer("e")]
    assert kept(SlidingWindow(3), history) == history[-3:]
    assert kept(SlidingWindow(1), history) == history[-1:]


def test_several_system_messages_are_preserved_by_type_wherever_they_are() -> None:
    developer = system("Use tools.", role="developer")
    late = system("Now answer in French.")
    history = [S, U, answer("a"), developer, user("b"), answer("c"), late, user("d"), answer("e")]
    assert kept(SlidingWindow(5), history) == [S, developer, late, user("d"), answer("e")]


def test_system_messages_are_cut_like_others_when_not_preserved() -> None:
    history = [S, U, answer("a"), user("b"), answer("c")]
    window = SlidingWindow(2, preserve_system_messages=False)
    assert kept(window, history) == [user("b"), answer("c")]
    assert kept(SlidingWindow(5, preserve_system_messages=False), history) == history


def test_more_system_messages_than_the_limit_keeps_only_them() -> None:
    history = [S, system("two"), U, answer()]
    assert kept(SlidingWindow(1), history) == [S, system("two")]


def test_several_orphans_are_dropped_after_truncation() -> None:
    a123 = calls("1", "2", "3")
    history = [U, a123, R1, R2, R3, answer()]
    # The last three would be Result(2), Result(3), answer: both results lost their call.
    assert kept(SlidingWindow(3), history) == [answer()]


def test_valid_call_result_pairs_are_kept() -> None:
    history = [U, A12, R1, R2, A3, R3, answer()]
    assert kept(SlidingWindow(6), history) == [A12, R1, R2, A3, R3, answer()]
    assert kept(SlidingWindow(3), history) == [A3, R3, answer()]


def test_a_window_that_becomes_empty_after_dropping_orphans() -> None:
    assert kept(SlidingWindow(2), [U, A12, R1, R2]) == []
    assert kept(SlidingWindow(3), [S, U, A12, R1, R2]) == [S]


def test_results_leading_an_uncut_window_are_dropped_too() -> None:
    """The seed drops leading results even when nothing was cut ("handles empty result after
    dropping all orphans"): within the limit, results with no call before them still go."""
    orphans = [S, result("c1"), result("c2")]
    assert kept(SlidingWindow(3), orphans) == [S]
    assert kept(SlidingWindow(3, preserve_system_messages=False), orphans) == [S]
    assert kept(SlidingWindow(max_user_turns=1), orphans) == [S]
    assert kept(SlidingWindow(2), [result("c1"), result("c2")]) == []
    assert kept(SlidingWindow(10), [S, R1, A3, R3]) == [S, A3, R3]


def test_no_change_when_the_first_kept_message_is_valid() -> None:
    history = [S, U, answer("a"), user("b"), A3, R3]
    assert kept(SlidingWindow(4), history) == [S, user("b"), A3, R3]


def test_a_valid_window_can_start_with_an_assistant_turn() -> None:
    history = [U, answer("a"), A3, R3, user("b"), answer("c")]
    assert kept(SlidingWindow(5), history) == history[1:]
    assert kept(SlidingWindow(4), history) == [A3, R3, user("b"), answer("c")]


def test_parallel_calls_are_never_split_from_their_results() -> None:
    """A cut inside one turn's results drops the whole turn: no call without results."""
    history = [U, A12, R1, R2, answer()]
    assert kept(SlidingWindow(3), history) == [answer()]
    assert kept(SlidingWindow(4), history) == [A12, R1, R2, answer()]


def test_results_answering_a_thought_suffixed_id_stay_with_their_call() -> None:
    gemini = calls("call_ab__thought__c2ln")
    history = [U, answer("a"), user("b"), gemini, result("call_ab"), answer("c")]
    assert kept(SlidingWindow(4), history) == history[-4:]
    assert kept(SlidingWindow(2), history) == [answer("c")]


def test_legacy_function_results_stay_with_their_call() -> None:
    legacy = {
        "role": "assistant",
        "content": None,
        "function_call": {"name": "f", "arguments": "{}"},
    }
    reply = {"role": "function", "name": "f", "content": "42"}
    history = [U, legacy, reply, answer()]
    assert kept(SlidingWindow(2), history) == [answer()]
    assert kept(SlidingWindow(3), history) == [legacy, reply, answer()]


def test_max_user_turns_keeps_the_last_turns_and_everything_after_them() -> None:
    history = [S, U, A3, R3, answer("a"), user("b"), A12, R1, R2, answer("c"), user("d")]
    assert kept(SlidingWindow(max_user_turns=2), history) == [S, *history[5:]]
    assert kept(SlidingWindow(max_user_turns=1), history) == [S, user("d")]
    both = SlidingWindow(4, max_user_turns=2)
    assert kept(both, history) == [S, answer("c"), user("d")]


def test_max_user_turns_without_preserving_system_messages() -> None:
    history = [S, U, answer("a"), user("b"), answer("c")]
    window = SlidingWindow(max_user_turns=1, preserve_system_messages=False)
    assert kept(window, history) == [user("b"), answer("c")]


@pytest.mark.filterwarnings("ignore:Items? .* (is|are) using the `ReadOnly` qualifier:UserWarning")
def test_message_objects_are_read_too() -> None:
    from litellm import Message

    history: list[Any] = [U, Message(role="assistant", content="a"), user("b"), answer("c")]
    assert SlidingWindow(2).apply(history) == history[-2:]


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [((), {}), ((0,), {}), ((-1,), {}), ((None,), {"max_user_turns": 0}), ((True,), {})],
)
def test_bad_limits_are_configuration_errors(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    with pytest.raises(ConfigurationError):
        SlidingWindow(*args, **kwargs)


def test_thinking_in_a_turns_content_is_dropped_after_a_cut_too() -> None:
    """A ``/v1/messages`` turn's thinking after its first block sits in its content."""
    signed = {"type": "thinking", "thinking": "hm", "signature": "c2ln"}
    turn = {
        "role": "assistant",
        "thinking_blocks": [signed],
        "content": [
            {"type": "text", "text": "ok"},
            signed,
            {"type": "redacted_thinking", "data": "x"},
        ],
    }
    only = {"role": "assistant", "content": [signed]}
    assert without_thinking(turn) == {
        "role": "assistant",
        "content": [{"type": "text", "text": "ok"}],
    }
    assert thinking_only(only)
    assert without_thinking(only) == {"role": "assistant", "content": THINKING_OMITTED}
