"""The real Claude Code and Codex CLIs, unmodified, switching models mid-session.

Each CLI (pinned in :data:`tests.support.real_clients.CLIS`, installed from npm on first use)
runs one session against a real ``litellm --config`` proxy whose every model group is
served by the stand-in in scripted mode (:mod:`litellm_hygiene._standin.scripted`):
each step is a real tool loop (the model calls a harmless tool the CLI really has, the
CLI runs it, the model answers its result), and every request is judged by the rules of
the API it reached. Between the CLI and the proxy a :class:`~tests.support.real_clients.Recorder`
keeps what the CLI sent and the status and hygiene headers it got back.

- Claude Code (``claude -p``, ``--continue``): Claude Opus 4.8 (takes mid-conversation
  system messages), Mistral, Gemini, GPT, Claude Sonnet 4.5 (does not), Claude on
  Bedrock; then a ``--fallback-model`` hop after a 529 mid tool loop, Claude to Gemini
  and Bedrock Claude to Claude, thinking on at both ends; a tool call interrupted by
  SIGINT, resumed on another model; and a subagent on the small fast model
  (``ANTHROPIC_DEFAULT_HAIKU_MODEL``, Claude Haiku 4.5).
- Codex (``codex exec``, ``codex exec resume --last -m``): GPT, Claude, Mistral, Gemini,
  GPT, through a custom ``model_providers`` entry with ``wire_api = "responses"``.

The same sessions run twice: through a proxy with hygiene (every request accepted, no
``x-litellm-hygiene-error``) and through one without (the requests providers reject are
listed). Set ``LITELLM_HYGIENE_SAMPLES_DIR`` to keep a real request body of each CLI and
the lists there. The proxies and CLIs take a minute or two.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from litellm_hygiene._standin import StandIn
from litellm_hygiene._standin.rules import WireApi
from litellm_hygiene._standin.scripted import Script, Scripted, Verdict
from tests.support.cassettes import FAKE_AWS
from tests.support.proxy_server import MASTER_KEY, ProxyServer, running_proxies
from tests.support.real_clients import CliRun, Exchange, Recorder, cli_bin, hermetic_env, run_cli

pytestmark = pytest.mark.slow  # the real CLIs from npm against a proxy: CI's slow step

Json = dict[str, Any]

CLAUDE_NEW = "claude-opus-4-8"
CLAUDE_OLD = "claude-sonnet-4-5"
MISTRAL = "mistral-large"
GEMINI = "gemini-pro"
GPT = "gpt-5"
BEDROCK = "bedrock-claude"
SIDE = "claude-haiku-side"
BEDROCK_ID = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"

ECHO = {"Bash": {"command": "echo hygiene-step", "description": "Print a word"}}
SLEEP = {"Bash": {"command": "sleep 30", "description": "Wait a while"}}
SUBAGENT = {
    "Agent": {
        "description": "Check the directory",
        "prompt": "Print a word with echo.",
        "subagent_type": "Explore",
        "model": "haiku",
    },
    **ECHO,
}
CODEX_ECHO = {"exec_command": {"cmd": "echo hygiene-step"}}
ALLOWED = ["--allowedTools", "Bash(echo:*)", "Bash(sleep:*)", "Agent"]


def _groups(standin_url: str) -> list[Json]:
    def group(name: str, model: str, base: str, **extra: str) -> Json:
        params = {"model": model, "api_base": standin_url + base, "api_key": "sk-x", **extra}
        return {"model_name": name, "litellm_params": params}

    return [
        group(CLAUDE_NEW, "anthropic/claude-opus-4-8", ""),
        group(CLAUDE_OLD, "anthropic/claude-sonnet-4-5-20250929", ""),
        group(SIDE, "anthropic/claude-haiku-4-5-20251001", ""),
        group(MISTRAL, "mistral/mistral-large-latest", "/v1"),
        group(GEMINI, "gemini/gemini-2.5-pro", "/v1beta"),
        group(GPT, "openai/gpt-5", "/v1"),
        group(BEDROCK, f"bedrock/{BEDROCK_ID}", "", **FAKE_AWS),
    ]


def proxy_config(standin_url: str, hygiene: bool) -> Json:
    """Every alias behind the stand-in; one attempt per request; hygiene or not."""
    config: Json = {
        "model_list": _groups(standin_url),
        "router_settings": {"num_retries": 0, "disable_cooldowns": True},
        "litellm_settings": {"num_retries": 0, "drop_params": True},
    }
    if hygiene:
        config["litellm_settings"]["callbacks"] = "litellm_hygiene.proxy_handler"
        config["callback_settings"] = {"litellm_hygiene": {}}
    return config


@dataclass(frozen=True)
class Step:
    """One CLI command of a session, and what the scripted models do meanwhile."""

    name: str
    args: tuple[str, ...]
    calls: dict[str, Json]
    overloaded: frozenset[str] = frozenset()
    interrupt: bool = False


@dataclass
class StepResult:
    step: Step
    run: CliRun
    verdicts: list[Verdict]
    exchanges: list[Exchange]


@dataclass
class Session:
    steps: list[StepResult] = field(default_factory=list)

    @property
    def verdicts(self) -> list[Verdict]:
        return [v for s in self.steps for v in s.verdicts]

    @property
    def exchanges(self) -> list[Exchange]:
        return [e for s in self.steps for e in s.exchanges]

    def rejected(self) -> list[str]:
        return [
            f"{s.step.name}: {v.api} {v.model}: {v.problems[0]}"
            for s in self.steps
            for v in s.verdicts
            if v.outcome == "rejected"
        ]


def claude_steps() -> list[Step]:
    def step(name: str, model: str, calls: dict[str, Json], *more: str, **kw: Any) -> Step:
        prompt = f"Step {name}: run the tool, then say done."
        args = ("-p", prompt, "--model", model, "--output-format", "json", *ALLOWED, *more)
        return Step(name, args, calls, **kw)

    return [
        step("claude-new", CLAUDE_NEW, ECHO),
        step("mistral", MISTRAL, ECHO, "--continue"),
        step("gemini", GEMINI, ECHO, "--continue"),
        step("gpt", GPT, ECHO, "--continue"),
        step("claude-old", CLAUDE_OLD, ECHO, "--continue"),
        step("bedrock", BEDROCK, ECHO, "--continue"),
        step(
            "fallback-claude-to-gemini",
            CLAUDE_NEW,
            ECHO,
            "--continue",
            "--fallback-model",
            GEMINI,
            overloaded=frozenset({"claude-opus-4-8"}),
        ),
        step(
            "fallback-bedrock-to-claude",
            BEDROCK,
            ECHO,
            "--continue",
            "--fallback-model",
            CLAUDE_NEW,
            overloaded=frozenset({BEDROCK_ID}),
        ),
        step("interrupted", GEMINI, SLEEP, "--continue", interrupt=True),
        step("after-interrupt", CLAUDE_NEW, ECHO, "--continue"),
        step("side-model", CLAUDE_OLD, SUBAGENT, "--continue"),
    ]


def codex_steps() -> list[Step]:
    def step(name: str, model: str, first: bool = False) -> Step:
        prompt = f"Step {name}: run the tool, then say done."
        head = ("exec",) if first else ("exec", "resume", "--last")
        args = (*head, "--skip-git-repo-check", "-m", model, prompt)
        return Step(name, args, CODEX_ECHO)

    return [
        step("gpt", GPT, first=True),
        step("claude", CLAUDE_NEW),
        step("mistral", MISTRAL),
        step("gemini", GEMINI),
        step("gpt-again", GPT),
    ]


CODEX_CONFIG = """\
model_provider = "litellm"

[model_providers.litellm]
name = "LiteLLM proxy"
base_url = "{url}/v1"
wire_api = "responses"
env_key = "LITELLM_PROXY_KEY"
"""


def _run_session(
    steps: list[Step], binary: Path, env: dict[str, str], work: Path, scripted: Scripted,
    recorder: Recorder,
) -> Session:  # fmt: skip
    session = Session()
    for step in steps:
        seen, exchanged = len(scripted.verdicts), len(recorder.exchanges)
        scripted.script = Script(calls=step.calls, overloaded=step.overloaded)

        def called(seen: int = seen) -> bool:
            return any(v.outcome == "call" for v in scripted.verdicts[seen:])

        run = run_cli(
            [str(binary), *step.args],
            cwd=work,
            env=env,
            interrupt_when=called if step.interrupt else None,
        )
        session.steps.append(
            StepResult(step, run, scripted.verdicts[seen:], recorder.exchanges[exchanged:])
        )
    return session


@dataclass
class Sessions:
    claude: Session
    codex: Session
    proxy_log: str
    received: list[Json]


def _sessions(bin_dir: Path, hygiene: bool) -> Sessions:
    scripted = Scripted()
    with (
        tempfile.TemporaryDirectory(prefix="litellm-hygiene-clients-") as tmp,
        StandIn(respond=scripted) as standin,
    ):
        proxy = ProxyServer(
            "hygiene" if hygiene else "plain", proxy_config(standin.base_url, hygiene)
        )
        with running_proxies([proxy]), Recorder(proxy.port) as recorder:
            root = Path(tmp)
            for name in ("claude-home", "claude-work", "codex-home", "codex-work", "codex"):
                (root / name).mkdir()
            claude_env = hermetic_env(
                root / "claude-home",
                {
                    "ANTHROPIC_BASE_URL": recorder.url,
                    "ANTHROPIC_API_KEY": MASTER_KEY,
                    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                    "DISABLE_TELEMETRY": "1",
                    "DISABLE_AUTOUPDATER": "1",
                    "ANTHROPIC_SMALL_FAST_MODEL": SIDE,
                    "ANTHROPIC_DEFAULT_HAIKU_MODEL": SIDE,
                },
            )
            claude = _run_session(
                claude_steps(), bin_dir / "claude", claude_env, root / "claude-work", scripted,
                recorder,
            )  # fmt: skip
            (root / "codex" / "config.toml").write_text(
                CODEX_CONFIG.format(url=recorder.url), encoding="utf-8"
            )
            codex_env = hermetic_env(
                root / "codex-home",
                {"CODEX_HOME": str(root / "codex"), "LITELLM_PROXY_KEY": MASTER_KEY},
            )
            codex = _run_session(
                codex_steps(), bin_dir / "codex", codex_env, root / "codex-work", scripted,
                recorder,
            )  # fmt: skip
            log = proxy.log()
        received = [{"path": r.path, "body": r.body} for r in standin.received]
    return Sessions(claude, codex, log, received)


@pytest.fixture(scope="module")
def bin_dir() -> Path:
    found = cli_bin()
    if isinstance(found, str):
        pytest.skip(found)
    return found


@pytest.fixture(scope="module")
def with_hygiene(bin_dir: Path) -> Sessions:
    sessions = _sessions(bin_dir, hygiene=True)
    _keep("with-hygiene", sessions)
    return sessions


@pytest.fixture(scope="module")
def without_hygiene(bin_dir: Path) -> Sessions:
    sessions = _sessions(bin_dir, hygiene=False)
    _keep("without-hygiene", sessions)
    return sessions


def _keep(name: str, sessions: Sessions) -> None:
    """Under ``LITELLM_HYGIENE_SAMPLES_DIR``: real bodies, verdicts, what was rejected."""
    where = os.environ.get("LITELLM_HYGIENE_SAMPLES_DIR")
    if not where:
        return
    out = Path(where)
    out.mkdir(parents=True, exist_ok=True)
    for client, session in (("claude-code", sessions.claude), ("codex", sessions.codex)):
        summary = [
            {
                "step": s.step.name,
                "returncode": s.run.returncode,
                "verdicts": [v.__dict__ for v in s.verdicts],
                "exchanges": [
                    {"path": e.path, "status": e.status, "hygiene": e.hygiene} for e in s.exchanges
                ],
            }
            for s in session.steps
        ]
        (out / f"{name}-{client}.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
        for index, exchange in enumerate(session.exchanges):
            if exchange.body is not None:
                body = {"path": exchange.path, "headers": exchange.request_headers}
                body["body"] = exchange.body
                sample = out / f"{name}-{client}-{index:02d}.json"
                sample.write_text(json.dumps(body, indent=1), encoding="utf-8")
    (out / f"{name}-proxy.log").write_text(sessions.proxy_log, encoding="utf-8")
    upstream = json.dumps(sessions.received, indent=1)
    (out / f"{name}-upstream.json").write_text(upstream, encoding="utf-8")


def _report(session: Session) -> str:
    lines = []
    for s in session.steps:
        lines.append(f"{s.step.name}: exit {s.run.returncode}")
        lines += [
            f"   {v.outcome} {v.status} {v.api} {v.model} {v.problems[:1]}" for v in s.verdicts
        ]
        lines += [f"   <- {e.status} {e.path} {e.hygiene}" for e in s.exchanges]
    return "\n".join(lines)


@pytest.mark.parametrize("client", ["claude", "codex"])
def test_with_hygiene_every_request_of_every_step_is_accepted(
    with_hygiene: Sessions, client: str
) -> None:
    session: Session = getattr(with_hygiene, client)
    print(_report(session))
    assert session.rejected() == [], _report(session)
    for result in session.steps:
        assert result.verdicts, f"{result.step.name} reached no provider"
        if not result.step.interrupt:
            assert result.run.returncode == 0, result.run.describe()
            assert any(v.outcome == "call" for v in result.verdicts), result.step.name
            assert "Done: the tool ran." in result.run.stdout, result.run.describe()


@pytest.mark.parametrize("client", ["claude", "codex"])
def test_with_hygiene_no_answer_carries_a_hygiene_error(
    with_hygiene: Sessions, client: str
) -> None:
    session: Session = getattr(with_hygiene, client)
    errors = [
        f"{e.path}: {e.hygiene}"
        for e in session.exchanges
        if "x-litellm-hygiene-error" in e.hygiene
    ]
    assert errors == [], "\n".join(errors)
    assert any(e.hygiene for e in session.exchanges), "no answer carried hygiene's report"


def test_the_claude_session_switches_where_it_should(with_hygiene: Sessions) -> None:
    steps = {s.step.name: s for s in with_hygiene.claude.steps}
    apis = {name: {v.api for v in s.verdicts} for name, s in steps.items()}
    assert apis["claude-new"] == {"anthropic-messages"}
    assert apis["mistral"] == {"mistral"}
    assert apis["gemini"] == {"gemini"}
    assert apis["bedrock"] == {"anthropic-messages"}  # Claude on Bedrock's invoke route
    fell_back = [v.outcome for v in steps["fallback-claude-to-gemini"].verdicts]
    assert "overloaded" in fell_back and fell_back[-1] == "text"
    assert "gemini" in apis["fallback-claude-to-gemini"]
    side = [v for v in steps["side-model"].verdicts if v.model.startswith("claude-haiku")]
    assert side, "no request reached the small fast model"


EXPECTED_REJECTIONS: set[tuple[str, str, WireApi, str]] = {
    ("claude", "mistral", "mistral", "Tool call id was toolu_"),
    ("claude", "fallback-bedrock-to-claude", "anthropic-messages", "Expected `thinking`"),
    ("claude", "side-model", "anthropic-messages", "messages.1.role: Input should be 'user'"),
    ("codex", "mistral", "mistral", "Tool call id was call_"),
    ("codex", "gpt-again", "openai-responses", "string too long"),
}
"""What the providers refuse of these sessions without hygiene (LiteLLM 1.106.2): Claude's
and OpenAI's tool ids at Mistral, Claude's thinking rule in Bedrock Claude's open tool
loop after the fallback hop, Claude Code's mid-conversation system message at Claude
Haiku 4.5, and a Gemini session's ~290-character ids at OpenAI."""


def test_without_hygiene_providers_reject_requests(without_hygiene: Sessions) -> None:
    found = {
        (client, s.step.name, str(v.api), v.problems[0])
        for client in ("claude", "codex")
        for s in getattr(without_hygiene, client).steps
        for v in s.verdicts
        if v.outcome == "rejected"
    }
    print("\n".join(["rejected without hygiene:", *sorted(" | ".join(f) for f in found)]))
    matched = {
        expected
        for expected in EXPECTED_REJECTIONS
        if any(f[:3] == expected[:3] and expected[3] in f[3] for f in found)
    }
    assert matched == EXPECTED_REJECTIONS, sorted(found)
    assert len(found) == len(EXPECTED_REJECTIONS), sorted(found)
    for client in ("claude", "codex"):
        for result in getattr(without_hygiene, client).steps:
            if any(v.outcome == "rejected" for v in result.verdicts):
                # the CLI saw the provider's refusal and failed the step; a refused
                # subagent fails only its Agent call, which the main model is told of
                assert any(e.status >= 400 for e in result.exchanges), result.step.name
                if result.step.calls is not SUBAGENT:
                    assert result.run.returncode != 0, result.run.describe()
