"""``demo``: print what LiteLLM alone and LiteLLM with hygiene put on the wire, per family.

The measurement is :func:`litellm_hygiene._demo.run_demo`; this module only prints it:
per target, the stand-in's verdict on each request (with the provider's error for the
rejected one), what hygiene changed, a diff of the two wire bodies, and a one-line
score at the end.
"""

from __future__ import annotations

import asyncio
import json
import logging
import warnings
from pathlib import Path

import click

from .._demo import DEMO_TARGETS, Attempt, DemoTarget, Outcome, load_conversation, run_demo
from .._standin.strict import rejection
from ._diff import json_diff, styled

__all__ = ["demo", "score_line"]

_INTRO = """\
One conversation, recorded with Claude, switched to {count}.
It holds signed thinking, two parallel tool calls, an image, and a tool call the user
interrupted ({messages} messages; `litellm-hygiene demo --save FILE` writes it out).
Each request goes through litellm.acompletion (the last two as Claude Code and Codex
send it, through /v1/messages and /v1/responses) to a local stand-in of the provider's
API on 127.0.0.1 (nothing leaves this machine): it accepts what the real API accepts and
answers anything else with that provider's HTTP 400.
"""


def score_line(outcomes: list[Outcome]) -> str:
    """The closing line: requests accepted without and with hygiene."""
    total = len(outcomes)
    alone = sum(o.alone.accepted for o in outcomes)
    helped = sum(o.hygiene.accepted for o in outcomes)
    return (
        f"Requests a provider would accept: LiteLLM alone {alone}/{total}, "
        f"with litellm-hygiene {helped}/{total}."
    )


def _verdict(attempt: Attempt, target: DemoTarget) -> list[str]:
    if attempt.accepted:
        return [click.style("accepted", fg="green", bold=True) + f" (HTTP {attempt.status})"]
    if attempt.sent is None:
        return [click.style("failed in LiteLLM", fg="red", bold=True) + f": {attempt.error}"]
    exception = (attempt.error or "").split(":", 1)[0]
    body = rejection(target.api, attempt.problems).body
    said = body.get("message") or body.get("error", {}).get("message", "")
    status = f" (HTTP {attempt.status}, {exception})"
    lines = [click.style("rejected", fg="red", bold=True) + status]
    lines.append("      error: " + click.style(str(said), fg="red"))
    more = len(attempt.problems) - 1
    if more:
        rest = "; ".join(p.text for p in attempt.problems[1:3]) + ("; ..." if more > 2 else "")
        lines.append(f"      and {more} more: {rest}")
    return lines


def _changes(attempt: Attempt) -> str:
    if not attempt.changes:
        return "nothing"
    return ", ".join(f"{kind} x{count}" for kind, count in attempt.changes.items())


def _section(outcome: Outcome, diff_lines: int | None) -> list[str]:
    target = outcome.target
    title = click.style(f"{target.label}", bold=True) + click.style(f"  {target.model}", dim=True)
    lines = ["", title]
    alone = _verdict(outcome.alone, target)
    lines += ["  LiteLLM alone:  " + alone[0], *alone[1:]]
    lines += ["  with hygiene:   " + line for line in _verdict(outcome.hygiene, target)[:1]]
    lines.append(f"      changed: {_changes(outcome.hygiene)}")
    if diff_lines != 0 and outcome.alone.sent is not None and outcome.hygiene.sent is not None:
        lines.append(
            click.style("      wire body, LiteLLM alone (-) vs with hygiene (+):", dim=True)
        )
        diff = json_diff(outcome.alone.sent, outcome.hygiene.sent, context=0)
        lines += ["      " + line for line in styled(diff, diff_lines)]
    return lines


def _quiet_litellm() -> None:
    """Silence LiteLLM's warnings and pydantic's schema warnings for the demo.

    The demo prints its own account; LiteLLM's warnings about the bodies it sends (the
    point of the demo) would only bury it.
    """
    logging.getLogger("LiteLLM").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", message=r"Items? .* using the `ReadOnly` qualifier")


@click.command()
@click.option("--full", is_flag=True, help="Show the whole diff of every wire body.")
@click.option("--no-diff", is_flag=True, help="Show verdicts and changes only.")
@click.option(
    "--target",
    "-t",
    "only",
    multiple=True,
    help="Only targets whose model contains this text (repeatable), e.g. -t mistral.",
)
@click.option(
    "--save",
    type=click.Path(dir_okay=False, writable=True),
    default=None,
    help="Write the demo conversation (a request body: messages and tools) here and stop.",
)
def demo(full: bool, no_diff: bool, only: tuple[str, ...], save: str | None) -> None:
    """Switch a recorded conversation to every model family, offline: without and with hygiene.

    For each family it shows whether the provider accepts what LiteLLM alone sends (and
    the provider's error when not), the same for LiteLLM with the HygieneCallback, what
    hygiene changed, and the difference between the two wire bodies. It ends with the
    score: requests a provider would accept, without vs with.

    Exit status: 0 when every request with hygiene was accepted, 1 otherwise.
    """
    messages, tools = load_conversation()
    if save is not None:
        document = {"messages": messages, "tools": tools}
        Path(save).write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", "utf-8")
        click.echo(f"wrote the demo conversation ({len(messages)} messages) to {save}")
        return
    targets = [t for t in DEMO_TARGETS if not only or any(o in t.model for o in only)]
    if not targets:
        raise click.BadParameter(f"no demo target matches {list(only)}", param_hint="--target")
    _quiet_litellm()
    count = f"{len(targets)} model families" if len(targets) > 1 else "1 model family"
    click.echo(_INTRO.format(count=count, messages=len(messages)), nl=False)
    outcomes = asyncio.run(run_demo(targets))
    diff_lines = 0 if no_diff else None if full else 16
    for outcome in outcomes:
        click.echo("\n".join(_section(outcome, diff_lines)))
    click.echo("")
    click.echo(click.style(score_line(outcomes), bold=True))
    raise SystemExit(0 if all(o.hygiene.accepted for o in outcomes) else 1)
