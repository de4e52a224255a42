"""``standin``: serve every provider's API locally, for the examples and a first proxy.

The same stand-in the demo and the tests use (:mod:`litellm_hygiene._standin.serve`),
kept running: point a LiteLLM ``api_base`` at it and each request is judged by the rules
of the API it was sent to. Every request is logged on one line, with the provider's
error when it is rejected, so what LiteLLM sent (with or without hygiene) is visible.
"""

from __future__ import annotations

import time

import click

from .._standin import ReceivedRequest, Reply, StandIn
from .._standin.serve import answer, api_of

__all__ = ["DEFAULT_PORT", "standin"]

DEFAULT_PORT = 4891
_WAKE_SECONDS = 0.25


def _logged(request: ReceivedRequest) -> Reply | None:
    reply = answer(request)
    status = reply.status if reply is not None else 500
    line = f"POST {request.path.split('?', 1)[0]}  {api_of(request) or 'unknown route'}  {status}"
    if reply is not None and reply.status >= 400:
        body = reply.body
        said = body.get("message") or body.get("error", {}).get("message", "")
        line += "  " + click.style(str(said), fg="red")
    click.echo(line)
    return reply


@click.command()
@click.option("--port", default=DEFAULT_PORT, show_default=True, help="Loopback port to listen on.")
def standin(port: int) -> None:
    """Serve a local stand-in of every provider's API on 127.0.0.1, until interrupted.

    Give LiteLLM api_base=http://127.0.0.1:PORT (any provider: Anthropic, OpenAI,
    OpenAI Responses, Mistral, DeepSeek, Gemini, Bedrock) and any api_key. A request the
    real API would reject gets that provider's HTTP 400; a valid one gets a short
    answer in the provider's response shape. Nothing leaves the machine.

    Exit status: 0 when interrupted (Ctrl-C), 1 when the port cannot be bound.
    """
    server = StandIn(respond=_logged, port=port)
    try:
        server.start()
    except OSError as err:
        raise click.ClickException(f"cannot listen on 127.0.0.1:{port}: {err.strerror}") from err
    click.echo(f"litellm-hygiene stand-in listening on {server.base_url} (Ctrl-C stops it)")
    try:
        while True:
            # Woken now and then: the kernel may hand Ctrl-C to the server's thread,
            # and a wait without a timeout would never see it.
            time.sleep(_WAKE_SECONDS)
    except KeyboardInterrupt:
        click.echo("stopped")
    finally:
        server.close()
