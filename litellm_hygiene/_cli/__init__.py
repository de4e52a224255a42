"""The ``litellm-hygiene`` command: ``demo``, ``check``, ``fix``, ``overflow``, ``standin``.

Built on click (LiteLLM's own CLI uses it, so it is already installed): help for every
command, colour on a terminal and plain text when piped. Everything the commands do is
the public API; the command line only reads files and prints answers.

The commands work offline: unless the caller set it, ``LITELLM_LOCAL_MODEL_COST_MAP`` is
turned on before LiteLLM is imported, so LiteLLM reads the model map it ships instead of
fetching one over the network.
"""

from __future__ import annotations

import os

import click

__all__ = ["cli", "main"]


_HELP = """Make a conversation valid for the model it is sent to next.

\b
Start here:  litellm-hygiene demo
Then:        litellm-hygiene check history.json --model mistral/mistral-large-latest
             litellm-hygiene fix history.json --model gemini/gemini-2.5-flash -o out.json
             litellm-hygiene overflow "prompt is too long: 213462 tokens > 200000 maximum"
Offline:     litellm-hygiene standin   (every provider's API on 127.0.0.1:4891)

Each command's --help says what it reads and what its exit status means.
"""


@click.group(help=_HELP, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--color/--no-color",
    default=None,
    help="Force colour on or off (default: on for a terminal, off when piped).",
)
@click.version_option(package_name="litellm-hygiene")
@click.pass_context
def cli(ctx: click.Context, color: bool | None) -> None:
    """The command group; ``--color`` applies to every command's output."""
    ctx.color = color


def main() -> None:
    """Entry point of the ``litellm-hygiene`` console script."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from ._commands import check, fix
    from ._demo_view import demo
    from ._overflow import overflow
    from ._standin import standin

    for command in (demo, check, fix, overflow, standin):
        cli.add_command(command)
    cli(prog_name="litellm-hygiene")
