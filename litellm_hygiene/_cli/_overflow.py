"""``overflow``: is this error (or response) a context-window overflow, and why?

Overflow detection is one table of signals (:mod:`litellm_hygiene._overflow._signals`);
a user holding a puzzling error wants to know which row decided, including a look-alike
row that ruled an overflow out (a rate limit that mentions tokens), so that is printed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from .. import detect_overflow, lookup_context_window, resolve_target
from .._overflow._detect import deciding_signal
from ._commands import EXIT_FOUND, EXIT_OK, MODEL_HELP, fail_unreadable
from ._input import UnreadableInput, read_source

__all__ = ["overflow"]


def _source(value: str) -> tuple[Any, str]:
    """What to classify, and a label: a file's (or stdin's) content, else the text itself."""
    if value == "-" or Path(value).is_file():
        try:
            name, text = read_source(value)
        except UnreadableInput as err:
            fail_unreadable(str(err))
    else:
        name, text = "the text given", value
    if not text.strip():
        fail_unreadable(f"{name}: empty input, expected an error message or a response JSON")
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError:
        return text.strip(), name
    if isinstance(parsed, (dict, str)):
        return parsed, name
    fail_unreadable(
        f"{name}: JSON {type(parsed).__name__} is neither an error body nor a response object"
    )


def _number(value: int | None) -> str:
    return f"{value:,}" if value is not None else "?"


@click.command()
@click.argument("source", metavar="TEXT|FILE")
@click.option(
    "--model",
    "-m",
    default=None,
    help=MODEL_HELP + " Gives the context window (for usage-based signals) and the provider.",
)
def overflow(source: str, model: str | None) -> None:
    """Classify an error message or a response JSON: context-window overflow or not.

    TEXT|FILE is an error message, or a file (or - for stdin) holding one, a provider's
    JSON error body, or a response JSON (OpenAI, Anthropic...; usage and stop reasons
    are read). Prints which signal fired, or which look-alike (rate limits, max_tokens
    limits, ...) ruled an overflow out.

    Exit status: 0 when it is a context-window overflow, 1 when it is not (a byte-size
    limit such as an oversized image counts as not), 2 when the input cannot be read.
    """
    value, name = _source(source)
    window = lookup_context_window(model) if model else None
    provider = resolve_target(model).provider if model else None
    found = detect_overflow(value, context_window=window, provider=provider)
    if found is not None:
        verdict = "overflow" if found.is_context_overflow else "size limit (not a token overflow)"
        colour = "red" if found.is_context_overflow else "yellow"
        click.echo(click.style(verdict, fg=colour, bold=True) + f": {name}")
        click.echo(f"  signal:   {found.signal} ({found.kind})")
        click.echo(f"  provider: {found.provider or 'unknown'}")
        click.echo(f"  detail:   {found.detail}")
        if found.input_tokens is not None or found.context_window is not None:
            tokens = _number(found.input_tokens)
            click.echo(f"  tokens:   {tokens} in a window of {_number(found.context_window)}")
        raise SystemExit(EXIT_OK if found.is_context_overflow else EXIT_FOUND)
    row = deciding_signal(value, provider=provider)
    click.echo(click.style("not an overflow", fg="green", bold=True) + f": {name}")
    if row is not None:
        click.echo(f"  ruled out by the look-alike row {row.name!r}: {row.why}")
    else:
        hint = "" if window else " (give --model for the usage-based signals)"
        click.echo(f"  no overflow signal fired{hint}")
    raise SystemExit(EXIT_FOUND)
