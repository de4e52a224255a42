"""Hygiene in LiteLLM's own channels: the standard logging payload and Prometheus.

In process, through LiteLLM's real hook machinery (``litellm.acompletion`` and the
Router with ``mock_response``): a logging callback receives the standard logging payload
every integration gets, and its ``metadata.spend_logs_metadata`` must carry hygiene's
report. Prometheus samples are read from the default registry as deltas. Then the
multiprocess mode (``PROMETHEUS_MULTIPROC_DIR``) in subprocesses, since
``prometheus_client`` fixes its storage when it is imported, and real proxy processes
scraped at ``/metrics`` (one plain, one in multiprocess mode).
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import textwrap
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import litellm
import pytest
from litellm.integrations.prometheus import (
    _get_combined_custom_metadata_from_standard_logging_payload,
    get_custom_labels_from_metadata,
)
from litellm.litellm_core_utils.litellm_logging import StandardLoggingPayloadSetup
from litellm.router import Router
from prometheus_client import REGISTRY

from litellm_hygiene import HygieneCallback
from litellm_hygiene._integration._metadata import (
    REPORT_KEY,
    SUMMARIES,
    SUMMARY_KEY,
    summary_of,
    with_report_metadata,
)
from litellm_hygiene._integration._metrics import METRIC_NAMES, observe_overflow
from litellm_hygiene._integration._report import CallReport
from litellm_hygiene._overflow import Overflow
from litellm_hygiene._standin import StandIn, mistral
from tests.support.payload_recorder import PAYLOAD_FILE, PayloadRecorder, records_tagged
from tests.support.proxy_server import (
    MASTER_KEY,
    ProxyServer,
    proxy_client,
    running_proxies,
    standin_config,
)

pytestmark = pytest.mark.filterwarnings(
    "ignore:Items? .* (is|are) using the `ReadOnly` qualifier:UserWarning"
)

CLAUDE = "anthropic/claude-sonnet-4-5"
MISTRAL = "mistral/mistral-large-latest"
SIGNATURE = "RXVnQ2tZSUJoQUNHMmJ3VWVaTHNpZ25hdHVyZQ=="
TOOLU = "toolu_01A09q90qw90lq917835lq9"
SECRET_TEXT = "the launch code is 0000"
MISTRAL_OVERFLOW = (
    "Prompt contains 150004 tokens and 0 draft tokens, too large for model with 131072 "
    "maximum context length"
)

Json = dict[str, Any]


def claude_history() -> list[Json]:
    thinking = [{"type": "thinking", "thinking": "Multiply.", "signature": SIGNATURE}]
    call = {"name": "multiply", "arguments": '{"a": 6, "b": 7}'}
    return [
        {"role": "user", "content": f"What is 6*7? ({SECRET_TEXT})"},
        {
            "role": "assistant",
            "content": "",
            "thinking_blocks": thinking,
            "tool_calls": [{"id": TOOLU, "type": "function", "function": call}],
        },
        {"role": "tool", "tool_call_id": TOOLU, "content": "42"},
    ]


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


@pytest.fixture
def recorder(isolated_litellm_callbacks: None) -> PayloadRecorder:
    logger = PayloadRecorder()
    litellm.callbacks = [HygieneCallback(), logger]
    return logger


def tagged(tag: str, metadata: Json | None = None) -> Json:
    """Request metadata carrying ``tag``, so the test finds its own call's payload.

    LiteLLM's logging worker carries calls of earlier tests still pending onto the
    next event loop, where this test's recorder receives them too.
    """
    metadata = dict(metadata or {})
    metadata["spend_logs_metadata"] = {**metadata.get("spend_logs_metadata", {}), "test": tag}
    return metadata


# -- spend_logs_metadata in the standard logging payload --------------------------------


async def test_the_report_reaches_every_logging_integration(recorder: PayloadRecorder) -> None:
    history = claude_history()
    metadata = tagged("integrations", {"spend_logs_metadata": {"team": "search"}, "tags": ["a"]})
    before = copy.deepcopy((history, metadata))
    response = await litellm.acompletion(
        model=MISTRAL, messages=history, mock_response="42", metadata=metadata
    )
    [record] = await records_tagged(recorder, "integrations")
    spend = record["spend_logs_metadata"]
    assert spend["team"] == "search"  # the caller's own entries are kept
    report = response._hidden_params["litellm_hygiene"]
    assert spend[REPORT_KEY] == {
        "target": MISTRAL,
        "changes": report["changes"],
        "changed": sum(report["changes"].values()),
        "restored": 0,
        "overflow": None,
        "error": None,
    }
    assert report["changes"]["tool_call_id"] == 1
    assert spend[SUMMARY_KEY] == "changed"
    assert (history, metadata) == before  # neither the messages nor the metadata mutated
    text = json.dumps(spend)
    for secret in (SECRET_TEXT, SIGNATURE, TOOLU, "Multiply", "multiply"):
        assert secret not in text


async def test_an_unchanged_request_is_reported_too(recorder: PayloadRecorder) -> None:
    await litellm.acompletion(
        model=CLAUDE,
        messages=[{"role": "user", "content": "hi"}],
        mock_response="hey",
        metadata=tagged("unchanged"),
    )
    [record] = await records_tagged(recorder, "unchanged")
    assert record["spend_logs_metadata"][SUMMARY_KEY] == "unchanged"
    assert record["spend_logs_metadata"][REPORT_KEY]["changes"] == {}


async def test_router_calls_carry_the_report_of_their_own_deployment(
    recorder: PayloadRecorder,
) -> None:
    router = Router(
        model_list=[
            {"model_name": "m", "litellm_params": {"model": MISTRAL, "mock_response": "ok"}}
        ]
    )
    await router.acompletion(
        model="m", messages=cast(Any, claude_history()), metadata=tagged("router")
    )
    [record] = await records_tagged(recorder, "router")
    assert record["spend_logs_metadata"][REPORT_KEY]["target"] == MISTRAL
    assert record["spend_logs_metadata"][SUMMARY_KEY] == "changed"


async def test_an_overflow_error_is_in_the_failure_payload(recorder: PayloadRecorder) -> None:
    before = sample("litellm_hygiene_overflows_total", model=MISTRAL, kind="error_pattern")
    with pytest.raises(litellm.exceptions.InternalServerError):  # a mock error
        await litellm.acompletion(
            model=MISTRAL,
            messages=claude_history(),
            mock_response=Exception(MISTRAL_OVERFLOW),
            metadata=tagged("overflow"),
        )
    [record] = await records_tagged(recorder, "overflow")
    assert record["status"] == "failure"
    spend = record["spend_logs_metadata"]
    assert spend[SUMMARY_KEY] == "overflow"
    assert spend[REPORT_KEY]["overflow"] == {
        "kind": "error_pattern",
        "signal": spend[REPORT_KEY]["overflow"]["signal"],
        "input_tokens": 150004,
        "context_window": 131072,
    }
    assert (
        sample("litellm_hygiene_overflows_total", model=MISTRAL, kind="error_pattern") == before + 1
    )


def test_the_summary_becomes_a_prometheus_label_through_litellms_own_lookup() -> None:
    """``custom_prometheus_metadata_labels`` reads ``spend_logs_metadata`` keys as top-level."""
    payload = {"metadata": {"spend_logs_metadata": {SUMMARY_KEY: "changed", REPORT_KEY: {}}}}
    saved = litellm.custom_prometheus_metadata_labels
    litellm.custom_prometheus_metadata_labels = [SUMMARY_KEY]
    try:
        combined = _get_combined_custom_metadata_from_standard_logging_payload(payload)
        assert get_custom_labels_from_metadata(combined) == {SUMMARY_KEY: "changed"}
    finally:
        litellm.custom_prometheus_metadata_labels = saved


def test_litellm_merges_both_metadata_containers_with_metadata_winning() -> None:
    """Why the report goes into ``metadata`` when both exist (LiteLLM's merge)."""
    merged = StandardLoggingPayloadSetup.merge_litellm_metadata(
        {"metadata": {"spend_logs_metadata": {"a": 1}}, "litellm_metadata": {"x": 2}}
    )
    assert merged == {"spend_logs_metadata": {"a": 1}, "x": 2}


@pytest.mark.parametrize(
    ("kwargs", "container"),
    [
        ({}, "metadata"),
        ({"metadata": {"k": 1}}, "metadata"),
        ({"litellm_metadata": {"k": 1}}, "litellm_metadata"),
        (
            {"metadata": {}, "litellm_metadata": {"spend_logs_metadata": {"t": 1}}},
            "litellm_metadata",
        ),
        ({"metadata": {"spend_logs_metadata": {}}, "litellm_metadata": {}}, "metadata"),
    ],
)
def test_the_report_goes_where_litellm_keeps_the_routes_metadata(
    kwargs: Json, container: str
) -> None:
    before = copy.deepcopy(kwargs)
    report = CallReport(target=MISTRAL, changes={"tool_call_id": 2})
    new = with_report_metadata(kwargs, report)
    assert kwargs == before
    spend = new[container]["spend_logs_metadata"]
    assert spend[REPORT_KEY]["changed"] == 2 and spend[SUMMARY_KEY] == "changed"
    assert spend is report.published
    other = {"metadata", "litellm_metadata"} - {container}
    assert all(new.get(name) == kwargs.get(name) for name in other)


OVERFLOW = Overflow(kind="error_pattern", signal="mistral", detail=SECRET_TEXT)


@pytest.mark.parametrize(
    ("report", "enabled", "expected"),
    [
        (CallReport(), True, "unchanged"),
        (CallReport(changes={"a": 1}), True, "changed"),
        (CallReport(restored=2), True, "restored"),
        (CallReport(changes={"a": 1}, restored=2), True, "changed"),
        (CallReport(error="TypeError"), True, "failed_open"),
        (CallReport(changes={"a": 1}, overflow=OVERFLOW), True, "overflow"),
        (CallReport(error="TypeError", overflow=OVERFLOW), True, "overflow"),
        (CallReport(changes={"a": 1}), False, "disabled"),
    ],
)
def test_the_summary_is_one_word_of_a_fixed_vocabulary(
    report: CallReport, enabled: bool, expected: str
) -> None:
    assert summary_of(report, enabled=enabled) == expected
    assert expected in SUMMARIES


def test_the_overflow_detail_never_reaches_the_metadata() -> None:
    new = with_report_metadata({}, CallReport(overflow=OVERFLOW))
    assert SECRET_TEXT not in json.dumps(new)


# -- Prometheus, in process --------------------------------------------------------------


async def test_requests_changes_and_latency_are_counted(recorder: PayloadRecorder) -> None:
    labels = {"model": MISTRAL}
    requests = sample("litellm_hygiene_requests_total", outcome="changed", **labels)
    ids = sample("litellm_hygiene_changes_total", kind="tool_call_id", **labels)
    timed = sample("litellm_hygiene_latency_metric_count", **labels)
    seen = sample("litellm_hygiene_events_total", event="requests")
    await litellm.acompletion(model=MISTRAL, messages=claude_history(), mock_response="42")
    await litellm.acompletion(model=MISTRAL, messages=claude_history(), mock_response="42")
    assert sample("litellm_hygiene_requests_total", outcome="changed", **labels) == requests + 2
    assert sample("litellm_hygiene_changes_total", kind="tool_call_id", **labels) == ids + 2
    assert sample("litellm_hygiene_latency_metric_count", **labels) == timed + 2
    assert sample("litellm_hygiene_events_total", event="requests") == seen + 2


async def test_a_rejected_request_is_counted_as_rejected(isolated_litellm_callbacks: None) -> None:
    litellm.callbacks = [HygieneCallback(fail_closed=True)]
    before = sample("litellm_hygiene_requests_total", model=MISTRAL, outcome="rejected")
    with pytest.raises(litellm.exceptions.BadRequestError) as raised:
        await litellm.acompletion(
            model=MISTRAL,
            messages=[{"role": "user", "content": SECRET_TEXT}, {"content": SECRET_TEXT}],
            mock_response="x",
        )
    assert "messages[1].role" in str(raised.value) and SECRET_TEXT not in str(raised.value)
    after = sample("litellm_hygiene_requests_total", model=MISTRAL, outcome="rejected")
    assert after == before + 1


# -- Prometheus in multiprocess mode -----------------------------------------------------

_WORKER = textwrap.dedent(
    """
    from litellm_hygiene._integration._metrics import StatsCounter, observe_request
    observe_request("mistral/m", "changed", 0.003, {"tool_call_id": 2}, 1)
    stats = StatsCounter()
    stats["requests"] += 1
    stats["error:TypeError"] += 3
    """
)
_COLLECT = textwrap.dedent(
    """
    from prometheus_client import CollectorRegistry, generate_latest, multiprocess
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)
    print(generate_latest(registry).decode())
    """
)


def test_workers_are_summed_under_prometheus_multiproc_dir(tmp_path: Path) -> None:
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    for _ in range(2):  # two "workers", each its own process
        subprocess.run([sys.executable, "-c", _WORKER], env=env, check=True, timeout=120)
    out = subprocess.run(
        [sys.executable, "-c", _COLLECT], env=env, check=True, timeout=120, capture_output=True
    ).stdout.decode()
    lines = set(out.splitlines())
    assert 'litellm_hygiene_requests_total{model="mistral/m",outcome="changed"} 2.0' in lines
    assert 'litellm_hygiene_changes_total{kind="tool_call_id",model="mistral/m"} 4.0' in lines
    assert 'litellm_hygiene_restored_turns_total{model="mistral/m"} 2.0' in lines
    assert 'litellm_hygiene_latency_metric_count{model="mistral/m"} 2.0' in lines
    assert 'litellm_hygiene_latency_metric_bucket{le="0.005",model="mistral/m"} 2.0' in lines
    assert 'litellm_hygiene_latency_metric_bucket{le="0.0025",model="mistral/m"} 0.0' in lines
    assert 'litellm_hygiene_events_total{event="error:TypeError"} 6.0' in lines


# -- a real proxy, scraped -------------------------------------------------------------


def _scrape(server: ProxyServer) -> list[str]:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    # LiteLLM 1.106 asks for a key on /metrics unless require_auth_for_metrics_endpoint
    # is false: scrape as an operator's Prometheus would, with one.
    request = urllib.request.Request(
        f"{server.url}/metrics/", headers={"Authorization": f"Bearer {MASTER_KEY}"}
    )
    with opener.open(request, timeout=30) as reply:
        return [line for line in reply.read().decode().splitlines() if not line.startswith("#")]


def _payloads(server: ProxyServer, count: int) -> list[Json]:
    path = server.workdir / PAYLOAD_FILE
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if path.exists():
            lines = path.read_text(encoding="utf-8").splitlines()
            if len(lines) >= count:
                return [json.loads(line) for line in lines]
        time.sleep(0.1)
    raise AssertionError(f"fewer than {count} payloads logged by proxy {server.name}")


def _observed_config(standin: StandIn) -> Json:
    config = standin_config(standin.base_url)
    config["litellm_settings"] = {
        "callbacks": [
            "prometheus",
            "litellm_hygiene.proxy_handler",
            "tests.support.payload_recorder.recorder",
        ],
        "custom_prometheus_metadata_labels": [SUMMARY_KEY],
    }
    return config


@pytest.fixture(scope="module")
def proxies(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[StandIn, list[ProxyServer]]]:
    multiproc = tmp_path_factory.mktemp("prometheus-multiproc")
    with StandIn() as standin:
        servers = [
            ProxyServer("prometheus", _observed_config(standin)),
            ProxyServer(
                "prometheus-multiproc",
                _observed_config(standin),
                env={"PROMETHEUS_MULTIPROC_DIR": str(multiproc)},
            ),
        ]
        with running_proxies(servers):
            yield standin, servers


@pytest.mark.parametrize("which", [0, 1], ids=["default-registry", "multiproc"])
def test_a_real_proxy_shows_hygiene_on_metrics_and_in_the_logging_payload(
    proxies: tuple[StandIn, list[ProxyServer]], which: int
) -> None:
    standin, servers = proxies
    server = servers[which]
    standin.reset()
    standin.enqueue(
        *(mistral.completion("42.", model="mistral-large-latest", seed=f"o{i}") for i in range(2))
    )
    with proxy_client(server) as client:
        for _ in range(2):
            client.chat.completions.create(model="mistral", messages=claude_history())  # type: ignore[arg-type]
    metrics = _scrape(server)
    if "PROMETHEUS_MULTIPROC_DIR" in server.env:  # the values came from the workers' files
        assert any(Path(server.env["PROMETHEUS_MULTIPROC_DIR"]).glob("counter_*.db"))
    assert f'litellm_hygiene_requests_total{{model="{MISTRAL}",outcome="changed"}} 2.0' in metrics
    assert f'litellm_hygiene_changes_total{{kind="tool_call_id",model="{MISTRAL}"}} 2.0' in metrics
    assert any(line.startswith("litellm_hygiene_latency_metric_bucket") for line in metrics)
    # LiteLLM's own metrics carry the summary as the label the config asked for.
    labelled = [
        line
        for line in metrics
        if line.startswith("litellm_")
        and not line.startswith("litellm_hygiene")
        and f'{SUMMARY_KEY}="changed"' in line
    ]
    assert labelled, "no LiteLLM metric carries the litellm_hygiene_summary label"
    payloads = [p for p in _payloads(server, 2) if p["status"] == "success"]
    assert len(payloads) == 2
    for payload in payloads:
        spend = payload["spend_logs_metadata"]
        assert spend[SUMMARY_KEY] == "changed"
        assert spend[REPORT_KEY]["target"] == MISTRAL
        assert SECRET_TEXT not in json.dumps(spend)


def test_every_metric_family_is_named_in_litellms_style() -> None:
    assert all(name.startswith("litellm_hygiene_") for name in METRIC_NAMES)
    observe_overflow(MISTRAL, "tokens")  # registers the families, if no test did yet
    registered = {metric.name for metric in REGISTRY.collect()}
    assert set(METRIC_NAMES) <= registered
