"""The ``litellm-hygiene`` command, run as users run it: the installed console script.

Every subcommand and exit status, plain output when piped and colour on a terminal (a
real pseudo-terminal), unreadable input named by file, line and field, and a
10,000-message transcript.
"""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from litellm_hygiene._demo import DEMO_TARGETS, load_conversation

COMMAND = Path(sys.executable).with_name("litellm-hygiene")
MISTRAL = "mistral/mistral-large-latest"
ANSI = "\x1b["


def run(*args: str, stdin: str | None = None, cwd: Path | None = None) -> Any:
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "NO_COLOR")}
    return subprocess.run(
        [str(COMMAND), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=cwd,
    )


def run_on_terminal(*args: str) -> tuple[int, str]:
    """Run with stdout on a pseudo-terminal, as in an interactive shell."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [str(COMMAND), *args], stdout=follower, stderr=follower, stdin=subprocess.DEVNULL
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    return process.wait(timeout=300), b"".join(chunks).decode()


@pytest.fixture(scope="module")
def conversation(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "conversation.json"
    done = run("demo", "--save", str(path))
    assert done.returncode == 0, done.stderr
    assert json.loads(path.read_text()) == dict(
        zip(("messages", "tools"), load_conversation(), strict=True)
    )
    return path


def test_the_console_script_is_installed() -> None:
    assert COMMAND.exists(), "pip install -e . installs the litellm-hygiene entry point"
    done = run("--help")
    assert done.returncode == 0
    for command in ("demo", "check", "fix", "overflow"):
        assert command in done.stdout
    assert "litellm-hygiene demo" in done.stdout
    for command in ("demo", "check", "fix", "overflow"):
        helped = run(command, "--help")
        assert helped.returncode == 0 and "Exit status" in helped.stdout, command


def test_check_exits_1_with_each_violation_and_the_provider_error(conversation: Path) -> None:
    done = run("check", str(conversation), "--model", MISTRAL)
    assert done.returncode == 1, done.stderr
    assert ANSI not in done.stdout, "piped output is plain"
    assert "messages[2].tool_calls[0].id  tool_call_id" in done.stdout
    assert "provider error: Tool call id was toolu_" in done.stdout
    assert f"{conversation}:22  messages[2]" in done.stdout, "file:line of the message"
    assert done.stdout.rstrip().splitlines()[-1].startswith("16 problems in")


def test_check_json_output_is_machine_readable(conversation: Path) -> None:
    done = run("check", str(conversation), "-m", MISTRAL, "--json")
    assert done.returncode == 1
    found = json.loads(done.stdout)
    assert {v["code"] for v in found} >= {"tool_call_id", "tool_pairing", "response_only_field"}


def test_fix_writes_a_transcript_check_finds_clean(conversation: Path, tmp_path: Path) -> None:
    out = tmp_path / "fixed.json"
    before = conversation.read_text()
    done = run("fix", str(conversation), "-m", MISTRAL, "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert conversation.read_text() == before, "the input is never changed"
    assert "tool_call_id x3" in done.stdout
    assert "[2] id 'toolu_" in done.stdout, "each change with its message index"
    fixed = json.loads(out.read_text())
    assert set(fixed) == {"messages", "tools"}, "a request body stays a request body"
    again = run("check", str(out), "-m", MISTRAL)
    assert again.returncode == 0, again.stdout
    assert again.stdout.startswith("ok: ")


def test_fix_to_stdout_keeps_the_report_on_stderr_and_diffs(conversation: Path) -> None:
    done = run("fix", str(conversation), "-m", "openai/gpt-4o", "--diff")
    assert done.returncode == 0, done.stderr
    messages = json.loads(done.stdout)["messages"]
    assert not any("thinking_blocks" in m for m in messages)
    assert "response_only_field x3" in done.stderr
    assert '-   "thinking_blocks": [' in done.stderr, "the readable before/after"


def test_fix_with_nothing_to_change_says_so(tmp_path: Path) -> None:
    path = tmp_path / "clean.jsonl"
    path.write_text('{"role": "user", "content": "hi"}\n')
    done = run("fix", str(path), "-m", "openai/gpt-4o")
    assert done.returncode == 0
    assert done.stdout == '{"role": "user", "content": "hi"}\n', "JSONL in, JSONL out"
    assert "nothing to change for openai/gpt-4o" in done.stderr


def test_check_reads_stdin_and_jsonl() -> None:
    lines = [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "tool_calls": [_call("call|1")]},
        {"role": "tool", "tool_call_id": "call|1", "content": "18C"},
    ]
    text = "".join(json.dumps(m) + "\n" for m in lines)
    done = run("check", "-", "-m", "anthropic/claude-sonnet-4-5", stdin=text)
    assert done.returncode == 1, done.stderr
    assert "<stdin>:2  messages[1].tool_calls[0].id  tool_call_id" in done.stdout
    clean = run("check", "-", "-m", "openai/gpt-4o", stdin=text)
    assert clean.returncode == 0, clean.stdout


def _call(call_id: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": "f", "arguments": "{}"}}


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('[{"role": "user", "content": "hi"},\n', "bad.json:2: invalid JSON: Expecting value"),
        ('{"model": "gpt-4o"}', "bad.json:1: expected a JSON list of messages or an object"),
        ("42", "bad.json:1: expected a JSON list of messages"),
        ("", "bad.json: empty input"),
        (
            '[\n {"role": "user", "content": "hi"},\n {"content": "x"}\n]',
            "bad.json:3: messages[1].role: missing",
        ),
        (
            '[{"role": "user", "content": "a"},\n{"role": "tool", "content": "x"}]',
            "bad.json:2: messages[1].tool_call_id: missing",
        ),
        ('[{"role": "user", "content": 5}]', "bad.json:1: messages[0].content: expected a string"),
        ('{"messages": [], "tools": 3}', "bad.json: tools: expected a list, got int"),
    ],
)
@pytest.mark.parametrize("command", ["check", "fix"])
def test_unreadable_input_exits_2_naming_file_line_and_field(
    command: str, content: str, expected: str, tmp_path: Path
) -> None:
    (tmp_path / "bad.json").write_text(content)
    done = run(command, "bad.json", "-m", "openai/gpt-4o", cwd=tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert expected in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == ""


def test_jsonl_errors_name_their_line(tmp_path: Path) -> None:
    (tmp_path / "t.jsonl").write_text('{"role": "user", "content": "a"}\n\n{"role": \n')
    done = run("check", "t.jsonl", "-m", "gpt-4o", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == "error: t.jsonl:3: invalid JSON: Expecting value"


@pytest.mark.parametrize("args", [("missing.json",), (".",)])
def test_missing_files_and_directories_exit_2(args: tuple[str, ...], tmp_path: Path) -> None:
    done = run("check", *args, "-m", "gpt-4o", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("error: ")
    assert "no such file" in done.stderr or "is a directory" in done.stderr


def test_a_missing_model_is_a_usage_error(conversation: Path) -> None:
    done = run("check", str(conversation))
    assert done.returncode == 2
    assert "Missing option '--model'" in done.stderr


def test_overflow_exit_statuses(tmp_path: Path) -> None:
    done = run("overflow", "prompt is too long: 213462 tokens > 200000 maximum")
    assert done.returncode == 0, done.stdout
    assert "signal:   anthropic_prompt_too_long" in done.stdout
    assert "213,462 in a window of 200,000" in done.stdout

    lookalike = run("overflow", "Rate limit reached: tokens per min (TPM): Limit 30000")
    assert lookalike.returncode == 1
    assert "look-alike row 'rate_limit'" in lookalike.stdout

    response = {
        "object": "chat.completion",
        "choices": [{"index": 0, "finish_reason": "length", "message": {"content": ""}}],
        "usage": {"prompt_tokens": 127900, "completion_tokens": 0, "total_tokens": 127900},
    }
    path = tmp_path / "response.json"
    path.write_text(json.dumps(response))
    assert run("overflow", str(path)).returncode == 1, "without a window, usage says nothing"
    silent = run("overflow", str(path), "--model", "openai/gpt-4o")
    assert silent.returncode == 0, silent.stdout
    assert "length_stop_full_window" in silent.stdout

    wording = (
        "Prompt contains 150004 tokens and 0 draft tokens, too large for model with 131072 "
        "maximum context length"
    )
    body = {"object": "error", "message": wording, "code": "3051"}
    assert run("overflow", "-", stdin=json.dumps(body)).returncode == 0
    assert run("overflow", "-", stdin="[1, 2]").returncode == 2
    assert run("overflow", "").returncode == 2


def test_colour_on_a_terminal_and_plain_when_piped(conversation: Path) -> None:
    status, shown = run_on_terminal("check", str(conversation), "-m", MISTRAL)
    assert status == 1
    assert ANSI in shown, "a terminal gets colour"
    forced = run("--color", "check", str(conversation), "-m", MISTRAL)
    assert ANSI in forced.stdout
    status, plain = run_on_terminal("--no-color", "check", str(conversation), "-m", MISTRAL)
    assert status == 1 and ANSI not in plain


def test_ten_thousand_messages(tmp_path: Path) -> None:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "s"}]
    turn = 0
    while len(messages) < 9_999:
        call = f"toolu_01{turn:022d}"
        messages += [
            {"role": "user", "content": f"question {turn}"},
            {"role": "assistant", "content": "checking", "tool_calls": [_call(call)]},
            {"role": "tool", "tool_call_id": call, "content": "result"},
            {"role": "assistant", "content": f"answer {turn}"},
        ]
        turn += 1
    messages = [*messages[:9_999], {"role": "user", "content": "last"}]
    assert len(messages) == 10_000
    path = tmp_path / "long.json"
    path.write_text(json.dumps(messages, indent=1))
    done = run("check", str(path), "-m", "openai/gpt-4o")
    # The last assistant turn (index 9,998) has a call and no result after it.
    line = 2 + sum(len(json.dumps(m, indent=1).splitlines()) for m in messages[:9_998])
    assert done.returncode == 1, done.stdout[-500:]
    assert f"{path}:{line}  messages[9998].tool_calls[0]  tool_pairing" in done.stdout
    assert "1 problem in" in done.stdout and "(10000 messages)" in done.stdout
    out = tmp_path / "fixed.json"
    fixed = run("fix", str(path), "-m", MISTRAL, "-o", str(out))
    assert fixed.returncode == 0, fixed.stderr
    assert "tool_call_id x2500" in fixed.stdout
    assert len(json.loads(out.read_text())) > 10_000, "bridging turns were added for Mistral"
    assert run("check", str(out), "-m", MISTRAL).returncode == 0


def test_demo_prints_the_score_the_wire_tests_measure() -> None:
    done = run("demo")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    total = len(DEMO_TARGETS)
    assert done.stdout.rstrip().splitlines()[-1] == (
        f"Requests a provider would accept: LiteLLM alone 0/{total}, "
        f"with litellm-hygiene {total}/{total}."
    )
    assert ANSI not in done.stdout
    assert "Provider List" not in done.stdout and "Give Feedback" not in done.stdout
    assert done.stdout.count("LiteLLM alone:  rejected (HTTP 400") == total
    assert done.stdout.count("with hygiene:   accepted (HTTP 200)") == total
    for target in DEMO_TARGETS:
        assert target.model in done.stdout
    assert '+     "id": "' in done.stdout, "the wire diff is shown"


def test_demo_options_select_targets_and_hide_the_diff() -> None:
    done = run("demo", "-t", "mistral", "--no-diff")
    assert done.returncode == 0, done.stderr
    assert "switched to 1 model family." in done.stdout
    assert "wire body" not in done.stdout
    assert done.stdout.rstrip().endswith("LiteLLM alone 0/1, with litellm-hygiene 1/1.")
    full = run("demo", "-t", "deepseek", "--full")
    assert full.returncode == 0 and "more diff lines" not in full.stdout
    unknown = run("demo", "-t", "no-such-model")
    assert unknown.returncode == 2 and "no demo target matches" in unknown.stderr


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.mark.slow  # a stand-in process, interrupted: CI's slow step
def test_standin_serves_until_interrupted(tmp_path: Path) -> None:
    import signal
    import time

    import httpx

    port = _free_port()
    log = tmp_path / "standin.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [str(COMMAND), "standin", "--port", str(port)], stdout=out, stderr=subprocess.STDOUT
        )
    try:
        deadline = time.monotonic() + 60
        while "listening on" not in log.read_text():
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the stand-in did not start"
            time.sleep(0.1)
        busy = run("standin", "--port", str(port))
        assert busy.returncode == 1 and "cannot listen on" in busy.stderr
        orphan = {
            "model": "mistral-large-latest",
            "messages": [
                {"role": "user", "content": "q"},
                {"role": "assistant", "tool_calls": [_call("toolu_01")]},
                {"role": "user", "content": "next"},
            ],
        }
        reply = httpx.post(f"http://127.0.0.1:{port}/v1/chat/completions", json=orphan)
        assert reply.status_code == 400
        assert reply.json()["message"].startswith("Tool call id was toolu_01 but must be")
    finally:
        process.send_signal(signal.SIGINT)
        status = process.wait(timeout=30)
    assert status == 0
    assert "POST /v1/chat/completions  mistral  400" in log.read_text()


def test_fix_names_an_output_it_cannot_write(conversation: Path, tmp_path: Path) -> None:
    target = tmp_path / "missing-dir" / "fixed.json"
    done = run("fix", str(conversation), "-m", MISTRAL, "-o", str(target))
    assert done.returncode == 2
    assert f"error: {target}: cannot be written" in done.stderr


_INTERRUPT_ANOTHER_THREAD = """
import signal, sys, threading, time
from litellm_hygiene._cli import main

def interrupt():
    # The kernel may hand a process's SIGINT to any of its threads: here, the server's.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        me = threading.current_thread()
        others = [t for t in threading.enumerate() if t not in (me, threading.main_thread())]
        if others:
            time.sleep(0.3)
            signal.pthread_kill(others[0].ident, signal.SIGINT)
            return
        time.sleep(0.05)

threading.Thread(target=interrupt, daemon=True).start()
sys.argv = ["litellm-hygiene", "standin", "--port", sys.argv[1]]
main()
"""


@pytest.mark.slow  # a stand-in process, interrupted: CI's slow step
def test_standin_stops_when_the_interrupt_lands_on_another_thread() -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", _INTERRUPT_ANOTHER_THREAD, str(_free_port())],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        out, _ = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        out, _ = process.communicate()
        raise AssertionError(f"Ctrl-C did not stop the stand-in: {out}") from None
    assert process.returncode == 0, out
    assert out.rstrip().endswith("stopped")
