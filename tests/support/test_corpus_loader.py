"""The corpus loader reads every recorded format, and LiteLLM parses the coverage we rely on.

Run with ``pytest -s`` to print, for every replayed response, the exact message keys LiteLLM
produced (with strings replaced by their lengths and tool-call ids by their shapes).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.support import corpus
from tests.support.corpus import (
    CorpusResponse,
    Interaction,
    all_interactions,
    cassette_paths,
    describe_message,
    litellm_responses,
    load_interactions,
    require_corpus,
)

ANTHROPIC_THINKING = "pydantic-ai/tests/models/cassettes/test_anthropic/"
PR_4221 = "pydantic-ai/pr-4221/tests/cassettes/test_context_window_exceeded/"
LLM_GEMINI_TOOLS = "llm-gemini/tests/cassettes/test_gemini/test_tools.yaml"
LLM_ANTHROPIC_STREAM = (
    "llm-anthropic/tests/cassettes/test_anthropic/test_stream_events_thinking.yaml"
)
GENAI_SSE = (
    "openinference/python/instrumentation/openinference-instrumentation-google-genai/tests/"
    "cassettes/test_instrumentation/test_streaming_reasoning_with_multiple_tool_calls.yaml"
)
VERCEL = "vercel-ai/packages/"


# ------------------------------------------------------------------------------------------
# Loading
# ------------------------------------------------------------------------------------------


def test_require_corpus_skips_with_a_reason_when_absent(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(corpus, "CASSETTES_DIR", tmp_path / "nowhere")
    with pytest.raises(pytest.skip.Exception, match=r"\.\./shared/corpus not present"):
        require_corpus()


def test_shared_dir_is_the_sibling_of_the_project_unless_overridden() -> None:
    override = os.environ.get("LITELLM_HYGIENE_SHARED")
    default = Path(corpus.__file__).resolve().parents[3] / "shared"
    assert corpus.SHARED_DIR == (Path(override) if override else default)
    assert corpus.CORPUS_DIR == corpus.SHARED_DIR / "corpus"


def test_every_corpus_file_loads_in_one_of_the_known_formats() -> None:
    paths = cassette_paths()
    assert len(paths) >= 50
    formats: set[str] = set()
    for path in paths:
        interactions = load_interactions(path)
        assert interactions, path
        for index, it in enumerate(interactions):
            assert it.index == index
            assert it.cassette == path.relative_to(corpus.CASSETTES_DIR).as_posix()
            assert it.response.status >= 200
            assert isinstance(it.response.body, bytes)
            # Every body is either JSON or an SSE stream once decoded (gzip removed).
            assert it.response.json is not None or it.response.sse_text is not None, it
            if it.request is not None:
                assert it.request.method == "POST"
                assert it.request.uri.startswith(("https://", "http://127.0.0.1"))
            formats.add(it.format)
    assert formats == {"vcrpy", "vcrpy-gzip", "pydantic-ai", "raw-json", "yaml-tail-excerpt"}


def test_relative_and_absolute_paths_load_the_same_interactions() -> None:
    rel = ANTHROPIC_THINKING + "test_anthropic_model_thinking_part.yaml"
    assert load_interactions(rel) == load_interactions(require_corpus() / rel)


def test_pydantic_ai_parsed_body_is_reserialised_as_json() -> None:
    first = load_interactions(ANTHROPIC_THINKING + "test_anthropic_model_thinking_part.yaml")[0]
    assert first.format == "pydantic-ai"
    assert first.request is not None
    assert first.request.json["thinking"] == {"budget_tokens": 1024, "type": "enabled"}
    assert first.response.json["content"][0]["type"] == "thinking"
    assert json.loads(first.response.body) == first.response.json


def test_gzip_binary_sse_body_is_decoded() -> None:
    (it,) = load_interactions(LLM_ANTHROPIC_STREAM)
    assert it.format == "vcrpy-gzip"
    assert it.response.stream_format == "sse"
    assert it.response.sse_text is not None
    assert it.response.sse_text.startswith("event: message_start")
    events = it.response.sse_events()
    deltas = {e.json()["delta"]["type"] for e in events if e.event == "content_block_delta"}
    assert {"thinking_delta", "signature_delta", "text_delta"} <= deltas


def test_gzip_gemini_json_array_stream_is_parsed() -> None:
    first = load_interactions(LLM_GEMINI_TOOLS)[0]
    assert first.response.stream_format == "json-array"
    parts = [p for chunk in first.response.json for p in chunk["candidates"][0]["content"]["parts"]]
    assert any(p.get("thought") for p in parts)
    assert any("functionCall" in p and p.get("thoughtSignature") for p in parts)


def test_stock_vcrpy_sse_without_content_type_is_detected() -> None:
    (it,) = load_interactions(GENAI_SSE)
    assert it.format == "vcrpy"
    assert it.response.content_type is None
    events = it.response.sse_events()
    assert len(events) == 3
    assert events[0].json()["candidates"][0]["content"]["parts"][0]["thoughtSignature"]


def test_raw_json_fixtures_are_response_only_with_inferred_status() -> None:
    by_name = {
        Path(it.cassette).name: it for it in all_interactions() if it.cassette.startswith("vercel")
    }
    assert all(it.request is None and it.format == "raw-json" for it in by_name.values())
    assert by_name["anthropic-parallel-provider-client-tools.error.json"].response.status == 400
    assert by_name["google-429-retry-info.json"].response.status == 429
    assert by_name["google-tool-call-gemini3.json"].response.status == 200


def test_tail_excerpt_yields_the_gemini_overflow_error() -> None:
    (it,) = load_interactions(
        PR_4221 + "EXCERPT_test_context_window_exceeded[google].yaml.tail.txt"
    )
    assert it.format == "yaml-tail-excerpt"
    assert it.request is None
    assert it.response.status == 400
    assert "exceeds the maximum number of tokens" in it.response.json["error"]["message"]


def test_large_overflow_cassettes_load_as_error_responses() -> None:
    big = [it for it in all_interactions() if it.cassette.startswith(PR_4221)]
    assert len(big) == 9
    assert {it.response.status for it in big} == {400}


# ------------------------------------------------------------------------------------------
# Replaying through LiteLLM
# ------------------------------------------------------------------------------------------


def _successful(its: list[Interaction]) -> list[Interaction]:
    return [it for it in its if it.response.status == 200]


def test_every_successful_response_is_parsed_by_litellm() -> None:
    responses = litellm_responses()
    assert corpus.SKIPPED_REPLAYS == {}
    assert corpus.BLOCKED_NETWORK_ATTEMPTS == []
    expected = {f"{it.cassette}#{it.index}" for it in _successful(all_interactions())}
    assert {r.label for r in responses} == expected
    for r in responses:
        assert r.response.choices[0].message.role == "assistant", r.label
        assert r.features, r.label


def test_litellm_called_the_recorded_host_through_the_mock() -> None:
    fixture_hosts = {"api.mistral.ai", "api.x.ai", "generativelanguage.googleapis.com"}
    for r in litellm_responses():
        host = urlsplit(r.request_url).netloc
        if r.route.endswith("client=loopback-server"):
            assert host.startswith("127.0.0.1:"), r.label
        elif r.recorded_url is None:
            assert host in fixture_hosts, r.label
        else:
            assert host == urlsplit(r.recorded_url).netloc, r.label


def test_recorded_streams_go_through_litellm_streaming() -> None:
    streamed = {r.label: r for r in litellm_responses() if r.stream}
    recorded = {
        f"{it.cassette}#{it.index}"
        for it in _successful(all_interactions())
        if it.response.stream_format is not None
    }
    assert set(streamed) == recorded
    for r in streamed.values():
        assert r.chunks, r.label
        assert "stream_chunk_builder" in r.route


def _find(provider: str, predicate: Callable[[CorpusResponse], bool]) -> list[CorpusResponse]:
    return [r for r in litellm_responses() if r.provider == provider and predicate(r)]


def _has(*features: str) -> Callable[[CorpusResponse], bool]:
    return lambda r: set(features) <= r.features


REQUIRED: dict[str, tuple[str, Callable[[CorpusResponse], bool]]] = {
    "anthropic thinking+signature": ("anthropic", _has("thinking", "signature")),
    "anthropic redacted thinking": ("anthropic", _has("redacted_thinking")),
    "anthropic parallel tool_use": ("anthropic", _has("parallel_tool_calls")),
    "anthropic thinking+tool_use": ("anthropic", _has("thinking", "signature", "tool_calls")),
    "anthropic streamed thinking": ("anthropic", lambda r: r.stream and _has("signature")(r)),
    "gemini 2.5 functionCall+thoughtSignature": (
        "gemini",
        lambda r: "2.5" in r.model and _has("tool_calls", "tool_call_id_thought_suffix")(r),
    ),
    "gemini 3 functionCall+thoughtSignature": (
        "gemini",
        lambda r: "gemini-3" in r.model and _has("tool_calls", "tool_call_id_thought_suffix")(r),
    ),
    "gemini thought text + signature": ("gemini", _has("thinking", "thought_signature")),
    "gemini streamed functionCall+signature": (
        "gemini",
        lambda r: r.stream and _has("tool_calls", "thought_signature")(r),
    ),
    "openai chat tool_calls": (
        "openai",
        lambda r: r.upstream == "openai" and _has("tool_calls")(r),
    ),
    "openai responses reasoning": (
        "openai",
        lambda r: (
            r.upstream == "openai-responses"
            and _has("reasoning_content", "encrypted_reasoning", "tool_calls")(r)
        ),
    ),
    "mistral tool_calls": ("mistral", _has("tool_calls")),
    "deepseek reasoning_content+tool_calls": (
        "deepseek",
        _has("reasoning_content", "tool_calls"),
    ),
    "bedrock converse reasoningContent+toolUse": (
        "bedrock",
        _has("reasoning_content", "thinking", "signature", "tool_calls"),
    ),
}


@pytest.mark.parametrize("requirement", sorted(REQUIRED))
def test_required_coverage(requirement: str) -> None:
    provider, predicate = REQUIRED[requirement]
    assert _find(provider, predicate), f"no corpus response covers {requirement!r}"


def _tool_calls(r: CorpusResponse) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = r.message.get("tool_calls") or []
    return calls


def test_mistral_tool_call_ids_are_nine_alphanumerics() -> None:
    ids = [c["id"] for r in _find("mistral", _has("tool_calls")) for c in _tool_calls(r)]
    assert len(ids) >= 3
    assert all(re.fullmatch(r"[A-Za-z0-9]{9}", i) for i in ids), ids


def test_anthropic_reasoning_content_is_the_concatenated_thinking() -> None:
    for r in _find("anthropic", _has("thinking")):
        blocks = r.message["thinking_blocks"]
        joined = "".join(b["thinking"] for b in blocks if b["type"] == "thinking")
        assert r.message["reasoning_content"] == joined, r.label


def test_gemini_thought_signature_rides_on_the_tool_call_id_and_fields() -> None:
    found = 0
    for r in _find("gemini", _has("tool_call_id_thought_suffix")):
        for call in _tool_calls(r):
            if "__thought__" not in call["id"]:
                continue
            signature = call["provider_specific_fields"]["thought_signature"]
            assert call["id"].endswith("__thought__" + signature), r.label
            assert signature in r.message["provider_specific_fields"]["thought_signatures"]
            found += 1
    assert found >= 5


def test_responses_bridge_keeps_encrypted_reasoning_items() -> None:
    for r in _find("openai", lambda r: r.upstream == "openai-responses"):
        for item in r.message.get("reasoning_items") or []:
            assert item["type"] == "reasoning"
            assert item["id"].startswith("rs_")
            assert item["encrypted_content"], r.label


# ------------------------------------------------------------------------------------------
# Summary (pytest -s)
# ------------------------------------------------------------------------------------------


def _short(path: str) -> str:
    return path.rsplit("/", 1)[-1].removesuffix(".yaml")[:70]


def _keys(message: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}=None" if v is None else k for k, v in message.items())


def test_print_summary_table() -> None:
    rows = litellm_responses()
    lines = ["", f"{len(rows)} corpus responses parsed by LiteLLM", "=" * 100]
    for r in rows:
        lines.append(
            f"{_short(r.cassette)}#{r.index}  provider={r.provider} model={r.model}"
            f" upstream={r.upstream} stream={r.stream}"
        )
        lines.append(f"    features: {', '.join(sorted(r.features))}")
        lines.append(f"    message keys: {_keys(r.message)}")
        lines.append(f"    shape: {json.dumps(describe_message(r.message), ensure_ascii=False)}")
        if r.warnings:
            lines.append(f"    ({len(r.warnings)} warnings recorded while parsing)")
    print("\n".join(lines))
    assert rows
