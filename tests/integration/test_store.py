"""The provenance store: response fingerprints, the memory LRU, Redis, and the tiers.

Redis tests run against a real ``redis-server`` on 127.0.0.1 (``tests/support/redis_server.py``)
and skip when it is not installed; every test uses its own key prefix, so tests sharing
the module's server never see each other's keys.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import socket
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
import redis
from hypothesis import example, given, settings
from hypothesis import strategies as st
from litellm.types.utils import ChatCompletionMessageToolCall, Function, Message
from openai.types.chat import ChatCompletionMessage

from litellm_hygiene._errors import ConfigurationError
from litellm_hygiene._integration._store import (
    MemoryStore,
    Provenance,
    ProvenanceStore,
    TieredStore,
    aget_many,
    get_many,
    put_fingerprints,
)
from litellm_hygiene._integration._store._fingerprints import (
    _candidates,
    _first_of_each_kind,
    fingerprints,
    iter_lookup_keys,
    iter_lookup_tokens,
    lookup_keys,
)
from litellm_hygiene._integration._store._redis import (
    DEFAULT_PREFIX,
    RedisStore,
    _connection_kwargs,
    _merged,
)
from litellm_hygiene._openai._evidence import signatures
from tests.support import redis_server as redis_server_module
from tests.support.clock import Clock
from tests.support.redis_server import RedisServer, redis_server_or_skip
from tests.support.strategies import json_values

CLAUDE = Provenance("anthropic", "anthropic-messages", "claude-sonnet-4-5")
GEMINI = Provenance("gemini", "gemini", "gemini-2.5-pro")
GPT = Provenance("openai", "openai-chat", "gpt-4o")
KEY = re.compile(r"^(tc|sig|ri|tx):[0-9a-f]{32}$")


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisServer]:
    with redis_server_or_skip() as server:
        yield server


@pytest.fixture
def prefix() -> str:
    return f"test:{uuid.uuid4().hex[:8]}:"


def _store(server: RedisServer, prefix: str, **kwargs: Any) -> RedisStore:
    return RedisStore(host=server.host, port=server.port, prefix=prefix, environ={}, **kwargs)


def _raw(server: RedisServer) -> redis.Redis:
    return redis.Redis(host=server.host, port=server.port, password=server.password)


# --- fingerprints ------------------------------------------------------------------------


def _gemini_message() -> Message:
    call = ChatCompletionMessageToolCall(
        id="call_3f2a__thought__CiQB0e2Kb1", function=Function(name="f", arguments="{}")
    )
    return Message(
        role="assistant",
        content="The weather is sunny.",
        tool_calls=[call],
        thinking_blocks=[
            {"type": "thinking", "thinking": "hmm", "signature": "EqQBsig"},
            {"type": "redacted_thinking", "data": "EmwKAhgBredacted"},
        ],
        provider_specific_fields={"thought_signatures": ["CiQBtext"]},
    )


def _kinds(keys: Sequence[str]) -> list[str]:
    return [key.split(":", 1)[0] for key in keys]


def test_fingerprints_agree_across_message_dict_and_openai_sdk_round_trip() -> None:
    message = _gemini_message()
    keys = fingerprints(message)
    sdk = ChatCompletionMessage.model_validate(json.loads(message.model_dump_json()))
    assert fingerprints(message.model_dump()) == keys
    assert fingerprints(sdk.model_dump()) == keys
    assert fingerprints(sdk.model_dump(exclude_none=True)) == keys
    assert fingerprints(sdk) == keys
    assert "refusal" in sdk.model_dump()  # the SDK really did add fields


def test_fingerprints_are_ordered_strongest_first_and_well_formed() -> None:
    keys = fingerprints(_gemini_message())
    # whole Gemini id, id before __thought__, two thinking tokens, one thought signature.
    assert _kinds(keys) == ["tc", "tc", "sig", "sig", "sig", "tx"]
    assert all(KEY.match(key) for key in keys)
    assert len(set(keys)) == len(keys)


def test_gemini_id_without_its_signature_still_matches() -> None:
    full = {
        "role": "assistant",
        "tool_calls": [{"id": "call_ab__thought__SIG", "type": "function"}],
    }
    stripped = {"role": "assistant", "tool_calls": [{"id": "call_ab", "type": "function"}]}
    assert fingerprints(stripped)[0] in fingerprints(full)
    assert len(fingerprints(full)) == 2


def test_plain_tool_call_ids_are_fingerprinted_once() -> None:
    msg = {"role": "assistant", "content": None, "tool_calls": [{"id": "toolu_1"}, {"id": "t2"}]}
    assert _kinds(fingerprints(msg)) == ["tc", "tc"]


def test_thinking_signatures_redacted_data_and_reasoning_items() -> None:
    msg = {
        "role": "assistant",
        "thinking_blocks": [{"type": "redacted_thinking", "data": "opaque"}],
        "reasoning_items": [{"type": "reasoning", "id": "rs_1", "encrypted_content": "gAAA"}],
    }
    assert _kinds(fingerprints(msg)) == ["sig", "sig", "ri"]
    same_token = {"role": "assistant", "thinking_blocks": [{"signature": "opaque"}]}
    assert fingerprints(same_token)[0] == fingerprints(msg)[0]


def test_thought_signatures_on_message_and_tool_calls() -> None:
    msg = {
        "role": "assistant",
        "provider_specific_fields": {"thought_signature": "A"},
        "tool_calls": [
            {"id": "c1", "provider_specific_fields": {"thought_signature": "B"}},
            {"id": "c2", "function": {"provider_specific_fields": {"thought_signature": "C"}}},
        ],
    }
    assert _kinds(fingerprints(msg)) == ["tc", "tc", "sig", "sig", "sig"]


def _agent_turn(calls: int, thinking: bool, psf: bool, gemini_ids: bool) -> dict[str, Any]:
    def call(n: int) -> dict[str, Any]:
        raw = f"call_{n}abc__thought__U0lH{n}" if gemini_ids else f"toolu_0{n}abc"
        entry: dict[str, Any] = {"id": raw, "type": "function"}
        entry["function"] = {"name": "f", "arguments": "{}"}
        if psf:
            entry["provider_specific_fields"] = {"thought_signature": f"QUJD{n}"}
        return entry

    msg: dict[str, Any] = {"role": "assistant", "content": "Checking."}
    if calls:
        msg["tool_calls"] = [call(n) for n in range(calls)]
    if thinking:
        msg["thinking_blocks"] = [{"type": "thinking", "thinking": "t", "signature": "RXFR"}]
    return msg


_REWRITES = [
    "ids renamed",
    "signature cut from ids",
    "thinking dropped",
    "provider fields dropped",
    "text trimmed",
    "text edited",
    "only the text kept",
]


def _client_rewrites(msg: dict[str, Any], rewrites: list[str]) -> dict[str, Any]:
    """What clients do to a stored answer before sending it back, in this order."""
    out: dict[str, Any] = json.loads(json.dumps(msg))
    calls = out.get("tool_calls", [])
    for rewrite in rewrites:
        if rewrite == "ids renamed":
            for n, call in enumerate(calls):
                call["id"] = f"id{n}"
        elif rewrite == "signature cut from ids":
            for call in calls:
                call["id"] = call["id"].split("__thought__")[0]
        elif rewrite == "thinking dropped":
            out.pop("thinking_blocks", None)
        elif rewrite == "provider fields dropped":
            for call in calls:
                call.pop("provider_specific_fields", None)
        elif rewrite == "text trimmed":
            out["content"] = f" {out['content']} "
        elif rewrite == "text edited":
            out["content"] = "Checking, edited."
        elif rewrite == "only the text kept":
            out = {"role": "assistant", "content": out["content"]}
    return out


@given(
    calls=st.integers(0, 3),
    thinking=st.booleans(),
    psf=st.booleans(),
    gemini_ids=st.booleans(),
    rewrites=st.lists(st.sampled_from(_REWRITES), unique=True, max_size=4),
)
def test_lookup_keys_find_what_every_fingerprint_finds(
    calls: int, thinking: bool, psf: bool, gemini_ids: bool, rewrites: list[str]
) -> None:
    """A turn a client sent back is found by its lookup keys whenever its fingerprints
    would find it, and they are some of its fingerprints, strongest first.

    With the text edited, only an id or a signature can find it: the first of its kind.
    """
    answer = _agent_turn(calls, thinking, psf, gemini_ids)
    store = MemoryStore()
    store.put(fingerprints(answer), CLAUDE)
    store.put(fingerprints({"role": "assistant", "content": "Other."}), GPT)
    returned = _client_rewrites(answer, rewrites)
    keys = lookup_keys(returned)
    every = fingerprints(returned)
    assert set(keys) <= set(every)
    assert [every.index(key) for key in keys] == sorted(every.index(key) for key in keys)
    assert store.get(keys) == store.get(every)
    # One by one, as the in-process store reads them, they are the same keys.
    assert tuple(iter_lookup_keys(returned)) == keys
    assert store.get_many([iter_lookup_keys(returned)]) == [store.get(keys)]
    # Recorded as the hook records (with marks) and looked up by tokens: the same.
    marked = MemoryStore()
    put_fingerprints(marked, answer, CLAUDE)
    put_fingerprints(marked, {"role": "assistant", "content": "Other."}, GPT)
    assert marked.get_many_tokens([iter_lookup_tokens(returned)]) == [store.get(keys)]


_TOKENS = st.sampled_from(["", " ", "a", "b", "QUJD", "call_1__thought__U0lH", None, 7])


def _maybe(draw: st.DrawFn, value: Any) -> Any:
    """``value`` mostly, else something in its place a client might send instead."""
    odd = st.sampled_from([None, "x", [value] if value else []])
    return draw(st.one_of(st.just(value), st.just(value), st.just(value), odd))


@st.composite
def _turns_for_lookup(draw: st.DrawFn) -> dict[str, Any]:
    """Assistant turns with every place a lookup token can hide, empty or odd ones too."""
    psf = st.one_of(
        st.none(),
        st.fixed_dictionaries(
            {},
            optional={
                "thought_signature": _TOKENS,
                "thought_signatures": st.one_of(_TOKENS, st.lists(_TOKENS, max_size=3)),
            },
        ),
    )
    call = st.fixed_dictionaries(
        {},
        optional={
            "id": _TOKENS,
            "provider_specific_fields": psf,
            "function": st.fixed_dictionaries({}, optional={"provider_specific_fields": psf}),
        },
    )
    block = st.fixed_dictionaries({}, optional={"signature": _TOKENS, "data": _TOKENS})
    item = st.fixed_dictionaries({}, optional={"encrypted_content": _TOKENS, "id": _TOKENS})
    text_part = st.fixed_dictionaries({"type": st.just("text"), "text": _TOKENS})
    msg: dict[str, Any] = {"role": "assistant"}
    for key, strategy in (
        ("tool_calls", st.lists(st.one_of(call, call, _TOKENS), max_size=3)),
        ("thinking_blocks", st.lists(st.one_of(block, block, _TOKENS), max_size=2)),
        ("reasoning_items", st.lists(st.one_of(item, item, _TOKENS), max_size=3)),
        ("provider_specific_fields", psf),
        ("content", st.one_of(_TOKENS, st.lists(text_part, max_size=2))),
    ):
        if draw(st.booleans()):
            msg[key] = _maybe(draw, draw(strategy))
    return msg


@settings(max_examples=400)  # cheap: a few microseconds an example
@given(_turns_for_lookup())
# Each kind found in more than one place, the places the derandomized run may not reach.
@example(
    {
        "role": "assistant",
        "tool_calls": [{"id": "c1__thought__x"}, {"id": "c2"}],
        "thinking_blocks": [{"signature": "S"}],
        "reasoning_items": [{"encrypted_content": "E", "id": "r1"}, {"id": "r2"}],
        "content": " t ",
    }
)
@example({"role": "assistant", "reasoning_items": [{"id": "r1"}, {"encrypted_content": "E"}]})
@example(
    {
        "role": "assistant",
        "tool_calls": [{"id": ""}, {"id": "c2", "function": {}}, {"id": "c3"}],
        "provider_specific_fields": {"thought_signatures": ["", "P", "Q"]},
        "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
    }
)
def test_the_lookup_tokens_are_the_first_candidate_of_each_kind(msg: dict[str, Any]) -> None:
    """The direct reader gives what the candidates give, first of each kind, in order."""
    expected: dict[str, str] = {}
    for kind, token in _candidates(msg):
        expected.setdefault(kind, token)
    assert list(_first_of_each_kind(msg)) == list(expected.items())


def test_the_lookup_tokens_put_every_signature_before_the_item_ids() -> None:
    """An encrypted item is a signature, read where every signature is read (the wire
    layer's ``signature_values``): it comes before the item ids, wherever it sits
    among the items, in the lookups as in the fingerprints."""
    later = {"role": "assistant", "reasoning_items": [{"id": "r1"}, {"encrypted_content": "E"}]}
    earlier = {"role": "assistant", "reasoning_items": [{"encrypted_content": "E", "id": "r1"}]}
    for msg in (later, earlier):
        assert [kind for kind, _ in _first_of_each_kind(msg)] == ["sig", "ri"]
        assert _kinds(lookup_keys(msg)) == ["sig", "ri"]
        assert _kinds(fingerprints(msg)) == ["sig", "ri"]


@settings(max_examples=400)
@given(_turns_for_lookup())
def test_the_fingerprints_read_the_signatures_where_the_rules_read_them(
    msg: dict[str, Any],
) -> None:
    """One list of places: every signature a fingerprint is made of is a value the
    signature rules see (``signatures``), and each string the rules see at a place a
    fingerprint reads becomes one."""
    tokens = [token for kind, token in _candidates(msg) if kind == "sig"]
    seen = signatures(msg)
    rest = iter(seen)
    assert all(token in rest for token in tokens)  # in the same order
    # What the rules see and no fingerprint holds: the signature a Gemini id carries
    # (the id is the call's key), and a string given where a list belongs.
    left = {value for value in seen if isinstance(value, str) and value} - set(tokens)
    assert left <= _id_signatures(msg) | _unlisted(msg)


def _id_signatures(msg: dict[str, Any]) -> set[str]:
    calls = msg.get("tool_calls")
    ids = [c.get("id") for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []
    return {i.split("__thought__", 1)[1] for i in ids if isinstance(i, str) and "__thought__" in i}


def _unlisted(msg: dict[str, Any]) -> set[str]:
    calls = msg.get("tool_calls")
    holders = [msg, *(calls if isinstance(calls, list) else [])]
    holders += [h.get("function") for h in holders[1:] if isinstance(h, dict)]
    found: set[str] = set()
    for holder in holders:
        psf = holder.get("provider_specific_fields") if isinstance(holder, dict) else None
        listed = psf.get("thought_signatures") if isinstance(psf, dict) else None
        if isinstance(listed, str):
            found.add(listed)
    return found


def test_signatures_on_calls_and_the_message_in_either_form_are_read_alike() -> None:
    """A singular signature or a list of them, on the message, a call or its function:
    the rules' reader and the fingerprints find the same ones (they once read four
    different sets of places)."""
    msg = {
        "role": "assistant",
        "provider_specific_fields": {"thought_signature": "A", "thought_signatures": ["B"]},
        "tool_calls": [
            {"id": "c1", "provider_specific_fields": {"thought_signatures": ["C"]}},
            {
                "id": "c2__thought__D",
                "function": {"provider_specific_fields": {"thought_signature": "E"}},
            },
        ],
        "thinking_blocks": [{"signature": "F"}],
    }
    assert signatures(msg) == ["F", "A", "B", "C", "E", "D"]
    assert [t for k, t in _candidates(msg) if k == "sig"] == ["F", "A", "B", "C", "E"]


def test_the_in_process_store_makes_no_key_past_its_first_hit() -> None:
    """A turn the store knows by its first key costs one hash: the rest are never made."""
    turn = _agent_turn(2, thinking=True, psf=False, gemini_ids=False)
    store = MemoryStore()
    store.put(fingerprints(turn), CLAUDE)
    first = lookup_keys(turn)[0]

    def keys(hit: str) -> Iterator[str]:
        yield hit
        raise AssertionError("a key was made after the hit")

    assert store.get_many([keys(first)]) == [CLAUDE]
    assert store.get(keys(first)) == CLAUDE
    lazy = iter_lookup_keys(turn)
    assert next(lazy) == first  # the first key, before any other is hashed
    assert store.get_many([iter(["tc:missing", *lookup_keys(turn)])]) == [CLAUDE]


def test_lookup_keys_take_the_first_token_of_each_kind_and_the_text() -> None:
    turn = _agent_turn(3, thinking=True, psf=True, gemini_ids=True)
    assert _kinds(fingerprints(turn)) == ["tc"] * 6 + ["sig"] * 4 + ["tx"]
    assert _kinds(lookup_keys(turn)) == ["tc", "sig", "tx"]
    assert lookup_keys({"role": "user", "content": "x"}) == ()


@pytest.mark.parametrize(
    "content",
    [
        "x",
        "  x\n",
        [{"type": "text", "text": "x"}],
        [{"type": "text", "text": "x"}, {"type": "image_url", "image_url": {"url": "u"}}],
    ],
)
def test_content_hash_normalises_string_and_text_parts(content: Any) -> None:
    assert fingerprints({"role": "assistant", "content": content}) == fingerprints(
        {"role": "assistant", "content": "x"}
    )


def test_different_text_gives_different_hash() -> None:
    one = fingerprints({"role": "assistant", "content": "yes"})
    other = fingerprints({"role": "assistant", "content": "no"})
    assert one and other and one != other


@pytest.mark.parametrize(
    "message",
    [
        {"role": "user", "content": "x"},
        {"role": "tool", "tool_call_id": "c1", "content": "x"},
        {"content": "x"},
        {"role": "assistant", "content": ""},
        {"role": "assistant", "content": None},
        {"role": "assistant", "content": "   "},
        Message(role="assistant", content=None),
    ],
)
def test_nothing_to_fingerprint_gives_empty(message: Any) -> None:
    assert fingerprints(message) == ()


class _Exploding:
    def model_dump(self, **_: Any) -> dict[str, Any]:
        raise RuntimeError("boom")


class _NotADict:
    def model_dump(self, **_: Any) -> list[int]:
        return [1]


@pytest.mark.parametrize(
    "message",
    [
        None,
        42,
        "assistant",
        [],
        _Exploding(),
        _NotADict(),
        {"role": ["assistant"]},
        {"role": "assistant", "tool_calls": "call_1"},
        {"role": "assistant", "tool_calls": [None, 1, {"id": 5}, {"id": ""}]},
        {"role": "assistant", "thinking_blocks": {"signature": "x"}},
        {"role": "assistant", "provider_specific_fields": {"thought_signatures": "x"}},
        {"role": "assistant", "content": [1, None, {"type": "text", "text": None}]},
        {"role": "assistant", "reasoning_items": [{"id": None, "encrypted_content": 3}]},
    ],
)
def test_odd_input_never_raises(message: Any) -> None:
    assert fingerprints(message) == ()


def test_lone_surrogates_are_hashed_not_rejected() -> None:
    assert _kinds(fingerprints({"role": "assistant", "content": "\ud800"})) == ["tx"]


@given(st.dictionaries(st.sampled_from(["role", "content", "tool_calls"]), json_values))
def test_arbitrary_json_never_raises(message: dict[str, Any]) -> None:
    message["role"] = "assistant"
    assert all(KEY.match(key) for key in fingerprints(message))


# --- Provenance ----------------------------------------------------------------------------


def test_provenance_round_trips_through_its_stamp() -> None:
    assert Provenance.from_stamp(CLAUDE.as_stamp()) == CLAUDE
    assert Provenance.from_stamp({"model": "m"}) == Provenance(None, None, "m")


@pytest.mark.parametrize(
    "stamp",
    [
        None,
        "anthropic",
        {},
        {"provider": None, "api": None, "model": None},
        {"provider": "x", "extra": 1},
        {"provider": 3},
        {"api": "carrier-pigeon"},
    ],
)
def test_malformed_stamps_are_rejected(stamp: Any) -> None:
    assert Provenance.from_stamp(stamp) is None


# --- MemoryStore --------------------------------------------------------------------------


def test_memory_first_key_in_order_wins() -> None:
    store = MemoryStore()
    store.put(["a"], CLAUDE)
    store.put(["b"], GPT)
    assert store.get(["missing", "b", "a"]) == GPT
    assert store.get(["a", "b"]) == CLAUDE
    assert store.get(["missing"]) is None
    assert store.get([]) is None


def test_memory_evicts_least_recently_used_beyond_its_bound() -> None:
    store = MemoryStore(max_entries=3)
    store.put(["a", "b", "c"], CLAUDE)
    assert store.get(["a"]) == CLAUDE  # "a" is now the most recent
    store.put(["d"], GPT)
    assert len(store) == 3
    assert store.get(["b"]) is None
    assert store.get(["a"]) == CLAUDE and store.get(["d"]) == GPT


def test_memory_entries_expire_on_the_injected_clock() -> None:
    clock = Clock()
    store = MemoryStore(ttl_seconds=60, clock=clock)
    store.put(["a"], CLAUDE)
    clock.now += 59
    assert store.get(["a"]) == CLAUDE
    clock.now += 2
    assert store.get(["a"]) is None
    assert len(store) == 0


def test_memory_without_ttl_keeps_entries() -> None:
    clock = Clock()
    store = MemoryStore(ttl_seconds=None, clock=clock)
    store.put(["a"], CLAUDE)
    clock.now += 10**9
    assert store.get(["a"]) == CLAUDE


async def test_memory_async_twins() -> None:
    store = MemoryStore()
    await store.aput(["a"], GEMINI)
    assert await store.aget(["a"]) == GEMINI
    assert isinstance(store, ProvenanceStore)


def test_memory_is_safe_across_threads() -> None:
    store = MemoryStore(max_entries=50)

    def hammer(n: int) -> None:
        for i in range(500):
            store.put([f"{n}:{i}"], CLAUDE)
            store.get([f"{n}:{i - 1}", f"{n}:{i}"])

    threads = [threading.Thread(target=hammer, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(store) == 50


def test_memory_rejects_a_zero_bound() -> None:
    with pytest.raises(ConfigurationError):
        MemoryStore(max_entries=0)


# --- RedisStore: configuration ---------------------------------------------------------------


def test_config_explicit_values_win_over_environment() -> None:
    env = {"REDIS_HOST": "envhost", "REDIS_PORT": "1", "REDIS_DB": "2", "REDIS_SSL": "True"}
    merged = _merged({"host": "confhost", "port": 7000}, env)
    assert _connection_kwargs(merged) == {"host": "confhost", "port": 7000, "db": 2, "ssl": True}


def test_config_environment_fills_every_setting() -> None:
    env = {
        "REDIS_HOST": "h",
        "REDIS_PORT": "6380",
        "REDIS_PASSWORD": "pw",
        "REDIS_USERNAME": "u",
        "REDIS_SSL": "false",
        "REDIS_DB": "3",
    }
    assert _connection_kwargs(_merged({}, env)) == {
        "host": "h",
        "port": 6380,
        "password": "pw",
        "username": "u",
        "ssl": False,
        "db": 3,
    }


def test_config_url_carries_host_port_db_password_and_tls() -> None:
    env = {"REDIS_URL": "rediss://r:1/0", "REDIS_HOST": "h", "REDIS_PASSWORD": "pw"}
    assert _connection_kwargs(_merged({"username": "u"}, env)) == {
        "url": "rediss://r:1/0",
        "username": "u",
    }


def test_config_explicit_host_outranks_environment_url() -> None:
    merged = _merged({"host": "h"}, {"REDIS_URL": "redis://elsewhere:1"})
    assert _connection_kwargs(merged) == {"host": "h"}


def test_config_resolves_os_environ_references() -> None:
    env = {"MY_HOST": "h", "MY_PORT": "7001"}
    merged = _merged({"host": "os.environ/MY_HOST", "port": "os.environ/MY_PORT"}, env)
    assert _connection_kwargs(merged) == {"host": "h", "port": 7001}


@pytest.mark.parametrize(
    ("settings", "env", "complaint"),
    [
        ({}, {}, "host or a url"),
        ({"password": "s3cret-value"}, {}, "host or a url"),
        ({"host": "h", "password": "os.environ/NOPE"}, {}, "NOPE is not set"),
        ({"host": "h", "port": "not-a-port"}, {}, "port"),
        ({"host": "h", "ttl_seconds": 0}, {}, "ttl_seconds"),
        ({"host": "h", "hots": "typo"}, {}, "unknown redis settings ['hots']"),
    ],
)
def test_config_errors_name_the_setting_never_the_value(
    settings: dict[str, Any], env: dict[str, str], complaint: str
) -> None:
    with pytest.raises(ConfigurationError) as info:
        RedisStore.from_settings(settings, environ=env)
    assert complaint in str(info.value)
    assert "s3cret" not in str(info.value) and "not-a-port" not in str(info.value)


def test_is_configured_looks_at_settings_and_environment() -> None:
    assert not RedisStore.is_configured({}, environ={})
    assert RedisStore.is_configured({"host": "h"}, environ={})
    assert RedisStore.is_configured(None, environ={"REDIS_URL": "redis://x"})
    assert not RedisStore.is_configured(None, environ={"REDIS_PORT": "1"})


# --- RedisStore: against a real server ---------------------------------------------------


def test_redis_put_get_prefix_ttl_and_compact_values(
    redis_server: RedisServer, prefix: str
) -> None:
    with _store(redis_server, prefix, ttl_seconds=3600) as store, _raw(redis_server) as raw:
        store.put(["k1", "k2"], CLAUDE)
        assert store.get(["k2"]) == CLAUDE
        assert sorted(raw.keys(f"{prefix}*")) == [f"{prefix}k1".encode(), f"{prefix}k2".encode()]
        assert 3590 < raw.ttl(f"{prefix}k1") <= 3600
        assert raw.get(f"{prefix}k1") == (
            b'{"provider":"anthropic","api":"anthropic-messages","model":"claude-sonnet-4-5"}'
        )


def test_redis_default_prefix_and_week_long_ttl(redis_server: RedisServer) -> None:
    key = f"default-{uuid.uuid4().hex}"
    with _store(redis_server, DEFAULT_PREFIX) as store, _raw(redis_server) as raw:
        store.put([key], GPT)
        assert raw.ttl(f"litellm_hygiene:prov:{key}") > 7 * 24 * 3600 - 10
        raw.delete(f"litellm_hygiene:prov:{key}")


async def test_redis_async_mget_first_hit_in_key_order(
    redis_server: RedisServer, prefix: str
) -> None:
    async with _store(redis_server, prefix) as store:
        await store.aput(["b"], GPT)
        await store.aput(["c"], GEMINI)
        assert await store.aget(["a", "c", "b"]) == GEMINI
        assert await store.aget(["a", "b", "c"]) == GPT
        assert await store.aget(["a"]) is None
        assert await store.aget([]) is None


async def test_redis_many_lookups_in_one_mget(redis_server: RedisServer, prefix: str) -> None:
    async with _store(redis_server, prefix) as store:
        await store.aput(["b"], GPT)
        await store.aput(["c"], GEMINI)
        sets = [["a", "c", "b"], [], ["a"], ["b"], ["x", "y", "c"]]
        assert await store.aget_many(sets) == [GEMINI, None, None, GPT, GEMINI]
        assert store.get_many(sets) == [GEMINI, None, None, GPT, GEMINI]
        assert await store.aget_many([]) == [] and store.get_many([[]]) == [None]


def test_redis_malformed_values_read_as_misses(redis_server: RedisServer, prefix: str) -> None:
    with _store(redis_server, prefix) as store, _raw(redis_server) as raw:
        raw.set(f"{prefix}junk", b"\xff not json")
        raw.set(f"{prefix}alien", b'{"provider": 1}')
        raw.set(f"{prefix}list", b"[1, 2]")
        store.put(["good"], CLAUDE)
        assert store.get(["junk", "alien", "list"]) is None
        assert store.get(["junk", "alien", "list", "good"]) == CLAUDE


def test_redis_configured_from_environment_variables(
    redis_server: RedisServer, prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REDIS_HOST", redis_server.host)
    monkeypatch.setenv("REDIS_PORT", str(redis_server.port))
    with RedisStore(prefix=prefix) as store:
        store.put(["k"], CLAUDE)
        assert store.get(["k"]) == CLAUDE


def test_redis_configured_from_redis_url(
    redis_server: RedisServer, prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REDIS_URL", redis_server.url)
    monkeypatch.setenv("REDIS_HOST", "unreachable.invalid")
    with RedisStore(prefix=prefix) as store:
        store.put(["k"], GPT)
        assert store.get(["k"]) == GPT


def test_redis_settings_resolve_os_environ_references(
    redis_server: RedisServer, prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HYGIENE_REDIS_HOST", redis_server.host)
    monkeypatch.setenv("HYGIENE_REDIS_PORT", str(redis_server.port))
    settings = {
        "host": "os.environ/HYGIENE_REDIS_HOST",
        "port": "os.environ/HYGIENE_REDIS_PORT",
        "prefix": prefix,
    }
    with RedisStore.from_settings(settings) as store:
        store.put(["k"], GEMINI)
        assert store.get(["k"]) == GEMINI


async def test_redis_password_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    with redis_server_or_skip(password="hunter2-pw") as server:
        monkeypatch.setenv("REDIS_PASSWORD", "hunter2-pw")
        async with RedisStore(host=server.host, port=server.port) as store:
            await store.aput(["k"], CLAUDE)
            assert await store.aget(["k"]) == CLAUDE


# --- TieredStore --------------------------------------------------------------------------


class _FlakyStore:
    """A shared store that fails while ``down`` and counts the calls that reached it."""

    def __init__(self) -> None:
        self.down = False
        self.calls = 0
        self.inner = MemoryStore()

    def _call(self) -> None:
        self.calls += 1
        if self.down:
            raise ConnectionError("redis://:hunter2@db:6379 refused")

    def get(self, keys: Sequence[str]) -> Provenance | None:
        self._call()
        return self.inner.get(keys)

    def put(self, keys: Sequence[str], provenance: Provenance) -> None:
        self._call()
        self.inner.put(keys, provenance)

    async def aget(self, keys: Sequence[str]) -> Provenance | None:
        return self.get(keys)

    async def aput(self, keys: Sequence[str], provenance: Provenance) -> None:
        self.put(keys, provenance)

    def get_many(self, key_sets: Sequence[Sequence[str]]) -> list[Provenance | None]:
        self._call()
        return self.inner.get_many(key_sets)

    async def aget_many(self, key_sets: Sequence[Sequence[str]]) -> list[Provenance | None]:
        return self.get_many(key_sets)


def test_tiered_without_shared_is_the_memory_store() -> None:
    tiered = TieredStore(MemoryStore())
    tiered.put(["a"], CLAUDE)
    assert tiered.get(["a"]) == CLAUDE
    assert tiered.get(["b"]) is None
    assert tiered.get([]) is None
    assert (tiered.stats.local_hits, tiered.stats.misses) == (1, 1)


def test_tiered_breaker_skips_a_failing_shared_store_then_retries(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = Clock()
    shared = _FlakyStore()
    tiered = TieredStore(MemoryStore(), shared, retry_after=30, clock=clock)
    shared.down = True
    with caplog.at_level(logging.WARNING, logger="litellm_hygiene"):
        tiered.put(["a"], CLAUDE)  # fails, opens the breaker
    assert tiered.get(["a"]) == CLAUDE  # the local tier still answers
    assert tiered.get(["b"]) is None  # skipped, not tried
    tiered.put(["c"], GPT)  # skipped too
    assert shared.calls == 1
    assert (tiered.stats.shared_errors, tiered.stats.shared_skips) == (1, 2)
    assert "ConnectionError" in caplog.text
    assert "hunter2" not in caplog.text and "refused" not in caplog.text

    shared.down = False
    clock.now += 31
    tiered.put(["d"], GEMINI)
    assert shared.inner.get(["d"]) == GEMINI
    assert shared.calls == 2


async def test_tiered_many_lookups_ask_the_shared_store_once_for_local_misses() -> None:
    shared = _FlakyStore()
    shared.inner.put(["s"], GEMINI)
    tiered = TieredStore(MemoryStore(), shared)
    tiered.local.put(["l"], CLAUDE)
    sets = [["l"], ["s"], [], ["none"]]
    assert await tiered.aget_many(sets) == [CLAUDE, GEMINI, None, None]
    assert shared.calls == 1  # one round trip for both misses (the protocol's get: 2)
    assert tiered.local.get(["s"]) == GEMINI
    stats = tiered.stats
    assert (stats.local_hits, stats.shared_hits, stats.misses) == (1, 1, 1)
    assert tiered.get_many(sets) == [CLAUDE, GEMINI, None, None]
    shared.down = True
    tiered.local = MemoryStore()
    assert tiered.get_many(sets) == [None] * 4  # a failing shared store is a miss
    assert tiered.stats.shared_errors == 1


async def test_many_lookups_fall_back_to_the_protocol_for_other_stores() -> None:
    class Plain:  # the protocol only, as a caller's own store may implement it
        def __init__(self) -> None:
            self.inner = MemoryStore()
            self.calls = 0

        def get(self, keys: Sequence[str]) -> Provenance | None:
            self.calls += 1
            return self.inner.get(keys)

        def put(self, keys: Sequence[str], provenance: Provenance) -> None:
            self.inner.put(keys, provenance)

        async def aget(self, keys: Sequence[str]) -> Provenance | None:
            return self.get(keys)

        async def aput(self, keys: Sequence[str], provenance: Provenance) -> None:
            self.put(keys, provenance)

    store = Plain()
    assert isinstance(store, ProvenanceStore)
    store.inner.put(["k"], GPT)
    assert get_many(store, [["k"], ["x"]]) == [GPT, None]
    assert await aget_many(store, [["x", "k"], []]) == [GPT, None]
    assert store.calls == 4


async def test_tiered_shared_hit_fills_local(redis_server: RedisServer, prefix: str) -> None:
    async with _store(redis_server, prefix) as shared:
        await shared.aput(["k"], GEMINI)
        tiered = TieredStore(MemoryStore(), shared)
        assert await tiered.aget(["k"]) == GEMINI
        assert tiered.local.get(["k"]) == GEMINI
        assert await tiered.aget(["k"]) == GEMINI
        assert (tiered.stats.shared_hits, tiered.stats.local_hits) == (1, 1)
        assert await tiered.aget(["nope"]) is None
        assert tiered.stats.misses == 1


async def test_two_instances_share_provenance_through_one_redis(
    redis_server: RedisServer, prefix: str
) -> None:
    async with _store(redis_server, prefix) as one, _store(redis_server, prefix) as two:
        first, second = TieredStore(MemoryStore(), one), TieredStore(MemoryStore(), two)
        keys = fingerprints(_gemini_message())
        await first.aput(keys, GEMINI)
        unstamped = _gemini_message().model_dump(exclude={"thinking_blocks"})
        assert await second.aget(fingerprints(unstamped)) == GEMINI
        assert second.stats.shared_hits == 1


async def test_redis_down_mid_test_is_counted_skipped_and_recovered(prefix: str) -> None:
    clock = Clock()
    with redis_server_or_skip() as server:
        async with _store(server, prefix) as shared:
            tiered = TieredStore(MemoryStore(), shared, retry_after=30, clock=clock)
            await tiered.aput(["before"], CLAUDE)

            server.stop()
            await tiered.aput(["during"], GPT)  # no exception
            assert tiered.stats.shared_errors == 1
            assert await tiered.aget(["during"]) == GPT  # local tier
            assert await tiered.aget(["unknown"]) is None  # breaker open: Redis skipped
            assert tiered.stats.shared_skips == 1

            server.start()  # same port, empty (no persistence)
            assert await tiered.aget(["unknown"]) is None  # still inside retry_after
            assert tiered.stats.shared_skips == 2
            clock.now += 31
            await tiered.aput(["after"], GEMINI)
            assert await shared.aget(["after"]) == GEMINI
            assert tiered.stats.shared_errors == 1


def test_redis_down_sync_side_never_raises(prefix: str) -> None:
    clock = Clock()
    with redis_server_or_skip() as server, _store(server, prefix) as shared:
        tiered = TieredStore(MemoryStore(), shared, retry_after=5, clock=clock)
        server.stop()
        assert tiered.get(["x"]) is None
        tiered.put(["x"], CLAUDE)
        assert tiered.get(["x"]) == CLAUDE
        assert (tiered.stats.shared_errors, tiered.stats.shared_skips) == (1, 1)
        server.start()
        clock.now += 6
        tiered.put(["y"], GPT)
        assert shared.get(["y"]) == GPT


@pytest.fixture
def stalled_port() -> Iterator[int]:
    """A port that accepts connections and never answers: a hung Redis."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        yield listener.getsockname()[1]


def test_stalled_redis_costs_one_short_timeout_then_is_skipped(stalled_port: int) -> None:
    with RedisStore(host="127.0.0.1", port=stalled_port, environ={}) as shared:
        tiered = TieredStore(MemoryStore(), shared, clock=Clock())
        start = time.monotonic()
        for _ in range(5):
            assert tiered.get(["k"]) is None
        elapsed = time.monotonic() - start
    assert elapsed < 1.5
    assert (tiered.stats.shared_errors, tiered.stats.shared_skips) == (1, 4)


async def test_stalled_redis_async_side_times_out_quietly(stalled_port: int) -> None:
    async with RedisStore(host="127.0.0.1", port=stalled_port, environ={}) as shared:
        tiered = TieredStore(MemoryStore(), shared, clock=Clock())
        start = time.monotonic()
        await tiered.aput(["k"], CLAUDE)
        assert await tiered.aget(["k"]) == CLAUDE
        assert time.monotonic() - start < 1.5
    assert tiered.stats.shared_errors == 1


def test_missing_redis_server_skips_with_a_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(redis_server_module, "_binary", lambda: None)
    with (
        pytest.raises(pytest.skip.Exception, match="redis-server is not installed"),
        redis_server_or_skip(),
    ):
        pass


def _call_dict(call_id: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": "f", "arguments": "{}"}}


_STORE_TURNS = [
    {"role": "assistant", "content": f"A{n % 2}.", "tool_calls": [_call_dict(f"toolu_0{n}")]}
    for n in range(4)
] + [{"role": "assistant", "content": "Same."}, {"role": "assistant", "content": "Other."}]
_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("put"), st.integers(0, 5), st.booleans()),  # turn, marked
        st.tuples(st.just("tick"), st.integers(0, 3), st.booleans()),
        st.tuples(st.just("get"), st.integers(0, 5), st.booleans()),
    ),
    max_size=30,
)


@given(ops=_OPS, size=st.integers(1, 6))
def test_lookups_by_token_answer_what_lookups_by_key_answer(
    ops: list[tuple[str, int, bool]], size: int
) -> None:
    """A store written with marks, looked up by tokens, against one without either.

    Same answers, same evictions and expiries; the marks always count exactly the
    entries that hold them, so a token is never passed over while an entry has it.
    """
    now = [0.0]
    marked = MemoryStore(max_entries=size, ttl_seconds=2, clock=lambda: now[0])
    plain = MemoryStore(max_entries=size, ttl_seconds=2, clock=lambda: now[0])
    for op, turn, flag in ops:
        message = _STORE_TURNS[turn]
        provenance = CLAUDE if turn % 2 else GPT
        if op == "put":
            keys = fingerprints(message)
            if flag:
                put_fingerprints(marked, message, provenance)
            else:
                marked.put(keys, provenance)
            plain.put(keys, provenance)
        elif op == "tick":
            now[0] += turn
        else:
            assert marked.get_many_tokens([iter_lookup_tokens(message)]) == plain.get_many(
                [lookup_keys(message)]
            )
        assert list(marked._entries) == list(plain._entries)
        marks = [entry[2] for entry in marked._entries.values()]
        assert marked._unmarked == marks.count(None)
        assert marked._marks == Counter(mark for mark in marks if mark is not None)


def test_a_turn_no_entry_was_made_from_costs_no_sha256(monkeypatch: pytest.MonkeyPatch) -> None:
    hashed: list[bytes] = []
    real = hashlib.sha256

    def counting(data: bytes = b"") -> Any:
        hashed.append(data)
        return real(data)

    store = MemoryStore()
    put_fingerprints(store, _STORE_TURNS[0], CLAUDE)
    monkeypatch.setattr(hashlib, "sha256", counting)
    unseen = _STORE_TURNS[3]  # its own id and text
    assert store.get_many_tokens([iter_lookup_tokens(unseen)]) == [None]
    assert hashed == []
    assert store.get_many_tokens([iter_lookup_tokens(_STORE_TURNS[0])]) == [CLAUDE]
    assert len(hashed) == 1  # its first key, and only that
    store.put(fingerprints(_STORE_TURNS[5]), GPT)  # no marks: every token is hashed again
    hashed.clear()
    assert store.get_many_tokens([iter_lookup_tokens(unseen)]) == [None]
    assert len(hashed) == len(lookup_keys(unseen))


def test_a_str_subclass_token_is_found_as_its_text() -> None:
    class Hashed(str):
        def __hash__(self) -> int:
            return 1

    store = MemoryStore()
    put_fingerprints(store, _STORE_TURNS[0], CLAUDE)
    returned = {
        "role": "assistant",
        "content": None,
        "tool_calls": [_call_dict(Hashed("toolu_00"))],
    }
    assert store.get_many_tokens([iter_lookup_tokens(returned)]) == [CLAUDE]


def test_thinking_signed_in_the_contents_parts_is_fingerprinted() -> None:
    """A turn that carries its thinking as content parts (LiteLLM's shape for some
    providers' answers) is known by those signatures too, not only by its text."""
    turn = {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "t", "signature": "c2lnbmVk"},
            {"type": "redacted_thinking", "data": "cmVkYWN0ZWQ="},
            {"type": "text", "text": "answer"},
        ],
    }
    without = {**turn, "content": [turn["content"][2]]}
    added = set(fingerprints(turn)) - set(fingerprints(without))
    assert len(added) == 2  # one key per signature
