"""A second wire shape runs through the same rules, unchanged.

The rules read and write messages only through the ``Wire`` interface. This toy shape
(``who``/``text``/``calls``/``answers``, the stamp under ``prov``) implements it by
translating to and from the OpenAI shape at its own boundary, and the real ``RULES``
fix a cross-model conversation in it: nothing in a rule knows OpenAI's keys.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from litellm_hygiene import InvalidMessageError, resolve_target
from litellm_hygiene._executor import read_slots
from litellm_hygiene._messages import Api, Message
from litellm_hygiene._openai._decode import decode_message, read_stamp
from litellm_hygiene._openai._encode import encode_message
from litellm_hygiene._openai._evidence import evidence, signatures
from litellm_hygiene._openai._facts import arguments, read_facts
from litellm_hygiene._openai._leading import leading_block
from litellm_hygiene._openai._wire import OPENAI
from litellm_hygiene._pipeline import context_for, run_rules
from litellm_hygiene._rules import RULES, Conversation
from litellm_hygiene._view import Facts, PlainTurn, Stamp, Wire, WirePlan

_ROLES = {"human": "user", "bot": "assistant", "setup": "system", "tool": "tool"}
_WHO = {role: who for who, role in _ROLES.items()}


def _to_openai(toy: Any, index: int) -> dict[str, Any]:
    if not isinstance(toy, dict) or toy.get("who") not in _ROLES:
        raise InvalidMessageError(index, "who", "expected human, bot, setup or tool")
    out: dict[str, Any] = {"role": _ROLES[toy["who"]]}
    text = toy.get("text")
    if isinstance(text, list):
        out["content"] = [{"type": "text", "text": t} for t in text]
    else:
        out["content"] = text
    if "calls" in toy:
        out["tool_calls"] = [
            {
                "id": c["ref"],
                "type": "function",
                "function": {"name": c["fn"], "arguments": c["args"]},
            }
            for c in toy["calls"]
        ]
    if "answers" in toy:
        out["tool_call_id"] = toy["answers"]
    if "thinking" in toy:
        out["thinking_blocks"] = toy["thinking"]
    if "prov" in toy:
        out["litellm_hygiene"] = toy["prov"]
    return out


def _from_openai(message: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"who": _WHO[message["role"]]}
    content = message.get("content")
    if isinstance(content, list):
        out["text"] = [part["text"] for part in content]
    else:
        out["text"] = content
    if message.get("tool_calls"):
        out["calls"] = [
            {"ref": c["id"], "fn": c["function"]["name"], "args": c["function"]["arguments"]}
            for c in message["tool_calls"]
        ]
    if "tool_call_id" in message:
        out["answers"] = message["tool_call_id"]
    if message.get("thinking_blocks"):
        out["thinking"] = message["thinking_blocks"]
    if "litellm_hygiene" in message:
        out["prov"] = message["litellm_hygiene"]
    return out


class ToyWire:
    """The toy shape, translated to the OpenAI one at its own boundary."""

    system_in_place = False

    def facts(self, raw: Any, index: int, plan: WirePlan) -> Facts:
        return read_facts(_to_openai(raw, index), index, plan)

    def decode(self, raw: Any, index: int) -> Message:
        return decode_message(_to_openai(raw, index), index)

    def encode(self, message: Message) -> Any:
        return _from_openai(encode_message(message))

    def stamp(self, raw: Any) -> Stamp | None:
        return read_stamp(raw.get("prov"))

    def unstamped(self, raw: Any) -> Any:
        return {k: v for k, v in raw.items() if k != "prov"}

    def with_ids(self, raw: Any, calls: Mapping[int, str], result: str | None) -> Any:
        out = dict(raw)
        if calls:
            out["calls"] = [
                {**call, "ref": calls[n]} if n in calls else call
                for n, call in enumerate(raw["calls"])
            ]
        if result is not None:
            out["answers"] = result
        return out

    def arguments(self, raw: Any) -> list[Any]:
        return arguments(_to_openai(raw, 0))

    def signatures(self, raw: Any) -> list[Any]:
        return signatures(_to_openai(raw, 0))

    def evidence(self, raw: Any) -> frozenset[Api]:
        return evidence(_to_openai(raw, 0))

    def leading_block(self, raw: Any, api: Api) -> str | None:
        return leading_block(_to_openai(raw, 0), api)

    # No edits made on this wire: the rules decode what they change.
    def plain_turn(self, raw: Any) -> PlainTurn | None:
        return None

    def with_reasoning(
        self,
        raw: Any,
        facts: Facts,
        plan: WirePlan,
        text: str | None,
        form: str,
        unsign: Sequence[bool],
    ) -> tuple[Any, Facts]:
        raise AssertionError("never asked: plain_turn gives None")

    def plain_fields(self, raw: Any) -> frozenset[str] | None:
        return None

    def with_keys_removed(self, raw: Any, keys: frozenset[str]) -> Any:
        raise AssertionError("never asked: plain_fields gives None")

    # Written through the OpenAI encoder: how it writes a neutral turn holds here too.
    def text_signatures_read_back(
        self, content: Sequence[Any], psf: dict[str, Any] | None
    ) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
        return OPENAI.text_signatures_read_back(content, psf)

    def is_plain_text(self, block: object) -> bool:
        return OPENAI.is_plain_text(block)

    def writes_fields(self, fields: dict[str, Any], signature: str | None, site: bool) -> bool:
        return OPENAI.writes_fields(fields, signature, site)


TOY: Wire = ToyWire()
SIGNATURE = "EqQBCkgIAxABGAIiQL0t1cJmUMqzNvJ0MPLKbFQyB7gqEpOPh0hY0y4xeA=="
CLAUDE = {"provider": "anthropic", "api": "anthropic-messages", "model": "claude-sonnet-4-5"}


def _run(messages: list[Any], model: str) -> tuple[list[Any], list[str]]:
    ctx = context_for(resolve_target(model))
    conv, changes = run_rules(Conversation(read_slots(messages, ctx, TOY), ctx, TOY))
    return [slot.raw for slot in conv.slots], [change.kind for change in changes]


def _claude_conversation() -> list[dict[str, Any]]:
    return [
        {"who": "setup", "text": "Be brief."},
        {"who": "human", "text": "Weather in Paris and Rome?"},
        {
            "who": "bot",
            "text": "Checking both.",
            "thinking": [{"type": "thinking", "thinking": "Two lookups.", "signature": SIGNATURE}],
            "calls": [
                {"ref": "toolu_01A", "fn": "weather", "args": '{"city": "Paris"}'},
                {"ref": "toolu_01B", "fn": "weather", "args": '{"city": "Rome"}'},
            ],
            "prov": CLAUDE,
        },
        {"who": "tool", "answers": "toolu_01A", "text": "sunny"},
        {"who": "human", "text": "And?"},
    ]


def test_the_rules_fix_a_conversation_in_another_wire_shape() -> None:
    messages = _claude_conversation()
    before = copy.deepcopy(messages)
    out, kinds = _run(messages, "mistral/mistral-large-latest")
    assert messages == before
    assert {"foreign_reasoning", "tool_pairing", "tool_call_id", "hygiene_stamp"} <= set(kinds)
    turn = next(m for m in out if m["who"] == "bot")
    refs = [call["ref"] for call in turn["calls"]]
    assert all(len(ref) == 9 and ref.isalnum() for ref in refs)
    assert "thinking" not in turn and "prov" not in turn
    assert "Two lookups." in turn["text"]
    answers = [m["answers"] for m in out if m["who"] == "tool"]
    assert sorted(answers) == sorted(refs)  # the orphan call got a result, both renamed


def test_the_toy_output_is_a_fixed_point_for_every_rule() -> None:
    out, _ = _run(_claude_conversation(), "mistral/mistral-large-latest")
    again, kinds = _run(out, "mistral/mistral-large-latest")
    assert kinds == [] and again == out
    ctx = context_for(resolve_target("mistral/mistral-large-latest"))
    conv = Conversation(read_slots(out, ctx, TOY), ctx, TOY)
    assert [rule.code for rule in RULES if rule.applies(ctx) and rule.find(conv)] == []


def test_a_clean_toy_conversation_comes_back_as_the_same_objects() -> None:
    messages = [
        {"who": "human", "text": "hi"},
        {"who": "bot", "text": "hello", "calls": [{"ref": "call_1", "fn": "f", "args": "{}"}]},
        {"who": "tool", "answers": "call_1", "text": "done"},
    ]
    out, kinds = _run(messages, "openai/gpt-4o")
    assert kinds == []
    assert all(a is b for a, b in zip(out, messages, strict=True))
