"""A provider family is one place: its profile module, complete, and nothing elsewhere.

Every family of the ``Family`` literal has one module in ``litellm_hygiene/_families/``
whose ``PROFILE`` states its policy, where its errors point, its wire layout, its words
for every rule it enforces and the protocols it is the family of. The rest of the code
reads profiles; no other module keeps a table keyed by family.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, get_args

import pytest
from litellm.types.utils import LlmProviders

from litellm_hygiene import resolve_target, sanitize_messages, validate_messages
from litellm_hygiene._families import (
    CALL_ID_EVIDENCE,
    CALL_ID_SHAPES,
    PROFILES,
    REDACTED_THINKING_APIS,
    SIGNED_THINKING_APIS,
    UNSIGNED_THINKING_APIS,
    family_of,
    policy_for,
)
from litellm_hygiene._families._profile import Profile, WireStyle
from litellm_hygiene._messages import Api
from litellm_hygiene._openai._evidence import evidence
from litellm_hygiene._overflow._signal import WORDING_ONLY, Dialect
from litellm_hygiene._rules import RULES
from litellm_hygiene._rules._wording import DEFAULTS, ErrorKind, PathKind, wording
from litellm_hygiene._standin._dialects import DIALECTS
from litellm_hygiene._standin.rules import WireApi
from litellm_hygiene._standin.strict import ROUTE_OF_API
from litellm_hygiene._target import Family

PACKAGE = Path(__file__).resolve().parents[2] / "litellm_hygiene"
FAMILIES = get_args(Family)


@pytest.mark.parametrize("family", FAMILIES)
def test_each_family_is_one_module_with_its_profile(family: str) -> None:
    module = importlib.import_module(f"litellm_hygiene._families.{family.replace('-', '_')}")
    profile = module.PROFILE
    assert isinstance(profile, Profile)
    assert PROFILES[family] is profile  # type: ignore[index]
    assert profile.family == profile.policy.family == family


@pytest.mark.parametrize("family", FAMILIES)
def test_each_profile_is_complete(family: Family) -> None:
    profile = PROFILES[family]
    codes = {rule.code for rule in RULES}
    assert set(profile.wording) <= codes, set(profile.wording) - codes
    for code, table in profile.wording.items():
        assert table, f"{family}: an empty wording for {code}"
        assert set(table) <= set(get_args(ErrorKind)), (code, set(table))
    assert set(profile.paths) <= set(get_args(PathKind))
    assert profile.layout.style in get_args(WireStyle)
    assert profile.apis or profile.claims, f"{family} is the family of no protocol or model"
    # Every template it states fills in, with the paths it states.
    positions = {"i": 3, "m": 2, "next_m": 3, "c": 1, "exact": 9}
    for rule in RULES:
        words = profile.words(rule.code)
        for kind, template in words.items():
            paths = get_args(PathKind) if "{where}" in template else (None,)
            for path in paths:
                text = wording(words, profile.paths, kind, path, DEFAULTS | positions)
                assert text is not None and "{" not in text, (family, rule.code, kind, text)


def test_every_protocol_has_one_family() -> None:
    served = [api for profile in PROFILES.values() for api in profile.apis]
    assert sorted(served) == sorted(get_args(Api))


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("anthropic/claude-sonnet-4-5", "anthropic"),
        ("bedrock/converse/us.anthropic.claude-sonnet-4-5-20250929-v1:0", "bedrock"),
        ("gemini/gemini-2.5-pro", "gemini"),
        ("openai/gpt-4o", "openai"),
        ("openai/responses/gpt-5", "openai-responses"),
        ("mistral/mistral-large-latest", "mistral"),
        ("openrouter/mistralai/mistral-large", "mistral"),  # claimed behind a router
        ("groq/llama-3.3-70b-versatile", "openai-compatible"),
        ("deepseek/deepseek-chat", "deepseek"),
        ("openrouter/deepseek/deepseek-r1", "deepseek"),  # claimed behind a router
        ("together_ai/deepseek-ai/DeepSeek-V3", "deepseek"),
    ],
)
def test_a_target_gets_its_familys_profile(model: str, family: str) -> None:
    target = resolve_target(model)
    assert target.family == family
    assert policy_for(target).family == family


def test_a_family_claims_its_models_on_any_compatible_route() -> None:
    assert family_of("openai-compatible", "mistralai/codestral-2501") == "mistral"
    assert family_of("openai-compatible", "meta-llama/llama-3") == "openai-compatible"
    assert family_of("anthropic-messages", "mistral-on-anthropic") == "anthropic"


def _family_keyed_tables(path: Path) -> list[int]:
    """Lines of dict literals in ``path`` whose keys are all family names (two or more)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Dict) and len(node.keys) >= 2:
            keys = [k.value if isinstance(k, ast.Constant) else None for k in node.keys]
            if all(k in FAMILIES for k in keys):
                found.append(node.lineno)
    return found


def _outside_the_profiles(scan: Callable[[Path], list[int]]) -> dict[str, list[int]]:
    """What ``scan`` finds in the package's modules but the profiles (and the stand-in)."""
    return {
        path.relative_to(PACKAGE).as_posix(): lines
        for path in PACKAGE.rglob("*.py")
        if not path.relative_to(PACKAGE).as_posix().startswith(("_families/", "_standin/"))
        and (lines := scan(path))
    }


def test_no_table_keyed_by_family_outside_the_profiles() -> None:
    outside = _outside_the_profiles(_family_keyed_tables)
    assert not outside, outside


def test_the_scan_finds_a_table_keyed_by_family(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text('TABLE = {"anthropic": 1, "mistral": 2}\nOTHER = {"anthropic": 1, "x": 2}\n')
    assert _family_keyed_tables(planted) == [1]


def _family_comparisons(path: Path) -> list[int]:
    """Lines comparing something named ``family`` with a family's name."""
    found: list[int] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        named = any(
            (isinstance(side, ast.Name) and side.id == "family")
            or (isinstance(side, ast.Attribute) and side.attr == "family")
            for side in sides
        )
        constants = [
            element.value
            for side in sides
            for element in (side.elts if isinstance(side, ast.Tuple | ast.Set) else [side])
            if isinstance(element, ast.Constant)
        ]
        if named and any(value in FAMILIES for value in constants):
            found.append(node.lineno)
    return found


def test_no_family_is_named_in_a_comparison_outside_the_profiles() -> None:
    """A family fact is a profile field read through the profile, not ``== "mistral"``."""
    outside = _outside_the_profiles(_family_comparisons)
    assert not outside, outside


def test_the_scan_finds_a_family_named_in_a_comparison(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text(
        'a = target.family == "mistral"\n'
        'b = family in ("anthropic", "gemini")\n'
        'c = target.api == "mistral"\n'
        'd = family == "opus"\n'
    )
    assert _family_comparisons(planted) == [1, 2]


def _id_prefixes(path: Path) -> list[int]:
    """Lines naming a family's call-id prefix (``Profile.call_id_prefixes``) as a string."""
    prefixes = {prefix for profile in PROFILES.values() for prefix in profile.call_id_prefixes}
    return [
        node.lineno
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and node.value in prefixes
    ]


def test_no_call_id_prefix_is_written_outside_the_profiles() -> None:
    """What an id's prefix says of a turn's protocol is read from the profiles."""
    outside = _outside_the_profiles(_id_prefixes)
    assert not outside, outside


def test_the_scan_finds_a_call_id_prefix(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text('a = {"toolu_": 1}\nb = "toolu_x"\nc = call_id.startswith("fc_")\n')
    assert _id_prefixes(planted) == [1, 3]


def test_the_evidence_tables_are_the_profiles() -> None:
    """Each prefix, id shape and kind of thinking is evidence of the families stating it."""
    for profile in PROFILES.values():
        own = profile.apis - {"unknown"}
        for prefix in profile.call_id_prefixes:
            assert own <= CALL_ID_EVIDENCE[prefix]
        if profile.call_id_shape is not None:
            assert (profile.call_id_shape, own) in CALL_ID_SHAPES
        if not profile.apis:
            continue  # a family of models it claims only (DeepSeek): no protocol its own
        assert (profile.apis <= SIGNED_THINKING_APIS) is profile.signed_thinking
        assert (profile.apis <= UNSIGNED_THINKING_APIS) is not profile.signs_every_thinking
        assert (profile.apis <= REDACTED_THINKING_APIS) is profile.redacts_thinking
    mistral_like = {"role": "assistant", "tool_calls": [{"id": "aB3dE5gH9", "function": {}}]}
    assert evidence(mistral_like) == PROFILES["mistral"].apis
    claude_like = {"role": "assistant", "tool_calls": [{"id": "toolu_01", "function": {}}]}
    assert evidence(claude_like) == PROFILES["anthropic"].apis


def test_the_stand_in_names_wire_apis_in_the_packages_vocabulary() -> None:
    """One vocabulary for a wire protocol: the stand-in judges ``Api`` values."""
    assert set(get_args(WireApi)) <= set(get_args(Api))
    assert set(DIALECTS) == set(get_args(WireApi)) == set(ROUTE_OF_API)


def test_overflow_wording_is_keyed_by_litellms_provider_keys() -> None:
    """The overflow dialects are named as a target's provider is (LiteLLM's keys)."""
    keys = {provider.value for provider in LlmProviders}
    assert {d for d in get_args(Dialect) if d not in keys} == set(WORDING_ONLY)
    assert {target.provider for target in map(resolve_target, _SOME_MODELS)} <= keys


_SOME_MODELS = (
    "anthropic/claude-sonnet-4-5",
    "bedrock/converse/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    "gemini/gemini-2.5-pro",
    "mistral/mistral-large-latest",
    "openai/gpt-4o",
    "deepseek/deepseek-reasoner",
)


@pytest.mark.parametrize(
    ("model", "thinks"),
    [
        ("deepseek/deepseek-chat", False),  # V4 Flash with thinking off
        ("deepseek/deepseek-reasoner", True),
        ("deepseek/deepseek-v4-pro", True),
        ("deepseek/deepseek-flash", True),  # thinks by default
        ("openrouter/deepseek/deepseek-r1", True),
    ],
)
def test_deepseeks_thinking_models_keep_their_reasoning_on_tool_call_turns(
    model: str, thinks: bool
) -> None:
    policy = policy_for(resolve_target(model))
    assert policy.family == "deepseek"
    assert policy.reasoning_on_calls is thinks
    assert ("reasoning_content" in policy.strip_fields) is not thinks


def _reused_id_history() -> list[dict[str, Any]]:
    def turn(result: str) -> list[dict[str, Any]]:
        call = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        return [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "call_1", "content": result},
        ]

    return [
        {"role": "user", "content": "q"},
        *turn("a"),
        *turn("b"),
        {"role": "user", "content": "r"},
    ]


def test_deepseek_wants_each_tool_call_id_once_in_the_request() -> None:
    """``Duplicate value for 'tool_call_id' of call_1 in message[4]``: DeepSeek checks the
    whole request; a generic OpenAI-compatible provider only each turn's."""
    history = _reused_id_history()
    deepseek = sanitize_messages(history, "deepseek/deepseek-chat")
    ids = [m["tool_call_id"] for m in deepseek.messages if m["role"] == "tool"]
    assert ids[0] == "call_1" and ids[1] != "call_1"
    assert deepseek.report.counts() == {"tool_call_id": 1}
    assert sanitize_messages(history, "groq/llama-3.3-70b-versatile").messages == history


def test_deepseek_ignores_unknown_keys_so_its_violations_carry_no_words() -> None:
    history = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "a", "provider_specific_fields": {"x": 1}},
        {"role": "user", "content": "r"},
    ]
    (violation,) = validate_messages(history, "deepseek/deepseek-chat")
    assert violation.code == "response_only_field"
    assert violation.provider_error is None
    (generic,) = validate_messages(history, "groq/llama-3.3-70b-versatile")
    assert generic.provider_error is not None


@pytest.mark.parametrize(
    ("model", "user_first"),
    [
        ("openrouter/google/gemini-2.5-pro", True),
        ("openrouter/google/gemini-3-flash-preview", True),
        ("together_ai/google/gemini-2.5-flash", True),
        ("openrouter/meta-llama/llama-3.3-70b-instruct", False),
        ("openrouter/google/gemma-3-27b-it", False),  # Google's, not Gemini
        ("groq/llama-3.3-70b-versatile", False),
    ],
)
def test_gemini_behind_a_router_gets_geminis_turn_rule(model: str, user_first: bool) -> None:
    """The router hands the history to Gemini, which rejects a model turn first (``Please
    ensure that function call turn comes immediately after a user turn ...``)."""
    call = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    history = [
        {"role": "system", "content": "Be brief."},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": "x"},
        {"role": "user", "content": "q"},
    ]
    target = resolve_target(model)
    assert policy_for(target).require_user_first is user_first
    found = [v.code for v in validate_messages(history, model)]
    assert ("assistant_first" in found) is user_first
    out = sanitize_messages(history, model)
    roles = [m["role"] for m in out.messages]
    assert roles[:2] == (["system", "user"] if user_first else ["system", "assistant"])
    if user_first:
        (violation,) = [v for v in validate_messages(history, model) if v.code == "assistant_first"]
        assert violation.provider_error is not None
        assert "function call turn comes immediately after a user turn" in violation.provider_error


@pytest.mark.parametrize(
    ("model", "takes"),
    [
        ("anthropic/claude-opus-4-8", "after_user"),
        ("anthropic/claude-opus-5", "after_user"),
        ("anthropic/claude-sonnet-5", "after_user"),
        ("vertex_ai/claude-opus-4-8@20260528", "after_user"),
        ("bedrock/invoke/us.anthropic.claude-opus-4-8-v1:0", "after_user"),
        ("anthropic/claude-opus-4-7", "none"),
        ("anthropic/claude-opus-4-20250514", "none"),  # 4.0: the date is no minor version
        ("anthropic/claude-sonnet-4-5-20250929", "none"),
        ("anthropic/claude-haiku-4-5", "none"),
        ("anthropic/claude-3-7-sonnet-latest", "none"),
        ("deepseek/deepseek-chat", "none"),  # its Anthropic endpoint: unknown variant `system`
        ("openai/gpt-4o", "anywhere"),
    ],
)
def test_which_models_take_a_system_message_inside_the_conversation(model: str, takes: str) -> None:
    """Claude's mid-conversation system messages came with Opus 4.8."""
    assert policy_for(resolve_target(model)).inline_system == takes
