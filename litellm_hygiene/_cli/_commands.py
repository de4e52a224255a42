"""``check``, ``fix`` and ``overflow``: the library's three questions, asked of a file.

Each command reads its input once (:mod:`._input`), asks the public API, and prints an
answer a person can act on; the exit status carries the verdict for scripts (see each
command's help). Colour comes from ``click.style`` and is dropped when the output is
not a terminal.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from typing import Any, NoReturn

import click

from .. import InvalidMessageError, Violation, sanitize_messages, validate_messages
from ._diff import json_diff, styled
from ._input import Transcript, UnreadableInput, read_transcript

__all__ = ["EXIT_FOUND", "EXIT_OK", "EXIT_UNREADABLE", "check", "fail_unreadable", "fix"]

EXIT_OK = 0
EXIT_FOUND = 1
EXIT_UNREADABLE = 2

MODEL_HELP = "Target model as given to LiteLLM, e.g. mistral/mistral-large-latest."
SOURCE_HELP = (
    "Model that wrote the assistant turns, when they carry no litellm_hygiene stamp "
    "(decides whose signatures are replayed)."
)


def fail_unreadable(message: str) -> NoReturn:
    """Print ``message`` as an error and exit with status 2."""
    click.echo(click.style("error: ", fg="red", bold=True) + message, err=True)
    raise SystemExit(EXIT_UNREADABLE)


def _load(path: str) -> Transcript:
    try:
        return read_transcript(path)
    except UnreadableInput as err:
        fail_unreadable(str(err))


def _unreadable_messages(transcript: Transcript, found: list[Violation]) -> None:
    """Exit 2 when a message cannot be read at all, naming each one's file, line and field."""
    broken = [v for v in found if v.code in ("malformed_message", "malformed_request")]
    if not broken:
        return
    for v in broken:
        where = f"messages[{v.index}].{v.field}" if v.index is not None else "request"
        click.echo(
            click.style("error: ", fg="red", bold=True)
            + f"{transcript.where(v.index)}: {where.rstrip('.')}: {v.message}",
            err=True,
        )
    raise SystemExit(EXIT_UNREADABLE)


def _violation_lines(transcript: Transcript, v: Violation) -> list[str]:
    place = f"messages[{v.index}]" + (f".{v.field}" if v.field else "")
    lines = [
        f"{click.style(transcript.where(v.index), dim=True)}  {click.style(place, bold=True)}"
        f"  {click.style(v.code, fg='yellow')}",
        f"    {v.message}",
    ]
    if v.provider_error:
        lines.append("    provider error: " + click.style(v.provider_error, fg="red"))
    return lines


@click.command()
@click.argument("file", type=str)
@click.option("--model", "-m", required=True, help=MODEL_HELP)
@click.option("--source-model", default=None, help=SOURCE_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the violations as JSON.")
def check(file: str, model: str, source_model: str | None, as_json: bool) -> None:
    """Say what in a transcript the target model's API would reject, and with what error.

    FILE is a JSON list of OpenAI-shaped messages, a request body with "messages"
    (and "tools"), a JSONL file with one message per line, or - for stdin.

    Exit status: 0 when the transcript is valid for the model, 1 when it is not
    (each violation is listed with its message index, file line and the provider's
    error), 2 when the input cannot be read.
    """
    transcript = _load(file)
    found = validate_messages(
        transcript.messages, model, tools=transcript.tools, source_model=source_model
    )
    _unreadable_messages(transcript, found)
    if as_json:
        click.echo(json.dumps([v.model_dump() for v in found], indent=1, ensure_ascii=False))
        raise SystemExit(EXIT_FOUND if found else EXIT_OK)
    count = len(transcript.messages)
    if not found:
        click.echo(
            click.style("ok", fg="green", bold=True)
            + f": {transcript.name} ({count} messages) is valid for {model}"
        )
        raise SystemExit(EXIT_OK)
    for v in found:
        click.echo("\n".join(_violation_lines(transcript, v)))
    noun = "problem" if len(found) == 1 else "problems"
    click.echo(
        click.style(f"{len(found)} {noun}", fg="red", bold=True)
        + f" in {transcript.name} ({count} messages) for {model}. "
        + f"Fix them: litellm-hygiene fix {file} --model {model} -o fixed.json"
    )
    raise SystemExit(EXIT_FOUND)


def _as_json(messages: list[Any]) -> list[Any]:
    """The messages as plain JSON values (a message object becomes its ``model_dump()``)."""
    return list(json.loads(json.dumps(messages, default=_plain, ensure_ascii=False)))


def _serialise(transcript: Transcript, plain: list[Any]) -> str:
    if transcript.form == "jsonl":
        return "".join(json.dumps(m, ensure_ascii=False) + "\n" for m in plain)
    document: Any = plain
    if transcript.form == "request":
        document = {**transcript.document, "messages": plain}
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"


def _plain(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump()
    raise TypeError(f"cannot write a {type(value).__name__} as JSON")


def _change_lines(changes: Sequence[tuple[str, int | None, str]]) -> list[str]:
    grouped: dict[str, list[tuple[int | None, str]]] = defaultdict(list)
    for kind, index, detail in changes:
        grouped[kind].append((index, detail))
    lines = []
    for kind, items in grouped.items():
        lines.append(f"{click.style(kind, fg='yellow', bold=True)} x{len(items)}")
        for index, detail in items:
            at = f"[{index}]" if index is not None else "[request]"
            lines.append(f"    {click.style(at, dim=True)} {detail}")
    return lines


@click.command()
@click.argument("file", type=str)
@click.option("--model", "-m", required=True, help=MODEL_HELP)
@click.option("--source-model", default=None, help=SOURCE_HELP)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, writable=True),
    default=None,
    help="Write the transformed transcript here (default: stdout, with the report on stderr).",
)
@click.option("--diff", is_flag=True, help="Also show a before/after diff of the messages.")
def fix(file: str, model: str, source_model: str | None, output: str | None, diff: bool) -> None:
    """Transform a transcript for the target model, as the callback would, and say what changed.

    FILE is read as by `check`. The output keeps the input's form (a JSON list, a request
    body, or JSONL). Changes are listed per kind with the index of the message each rule
    changed; an index counts messages as that rule saw them, so after a rule that adds or
    drops messages, later indices are of the list so far. The input file is never changed.

    Exit status: 0 when the transcript was written (changed or not), 2 when the input
    cannot be read (or the output cannot be written).
    """
    transcript = _load(file)
    try:
        result = sanitize_messages(
            transcript.messages, model, tools=transcript.tools, source_model=source_model
        )
    except InvalidMessageError as err:
        where = transcript.where(err.index)
        fail_unreadable(f"{where}: messages[{err.index}].{err.field}: {err.reason}")
    plain = _as_json(result.messages)
    text = _serialise(transcript, plain)
    to_stderr = output is None
    if output is not None:
        try:
            with open(output, "w", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as err:
            fail_unreadable(f"{output}: cannot be written ({err.strerror})")
    else:
        click.echo(text, nl=False)
    changes = [(c.kind, c.index, c.detail) for c in result.report.changes]
    summary = f"{len(changes)} changes for {model}" if changes else f"nothing to change for {model}"
    lines = _change_lines(changes)
    if diff and changes:
        lines += styled(json_diff(transcript.messages, plain))
    for line in [click.style(summary, bold=True), *lines]:
        click.echo(line, err=to_stderr)
    if output is not None:
        click.echo(f"written to {output}", err=to_stderr)
