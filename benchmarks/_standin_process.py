"""The local provider stand-in as its own process, for the benchmarks.

Serves the same canned reply for every request on a route, keeps no log, prints its
base URL on the first line of stdout and runs until stdin closes. Its own process, so
parsing the request bodies it receives never competes with the measured client for
the interpreter lock.

Run: python benchmarks/_standin_process.py   (started and stopped by bench_acompletion.py
     and bench_routes.py)
"""

from __future__ import annotations

import os
import sys

# The checkout is searched last: the stand-in is the installed build's, as the benchmark's
# hygiene is (a working tree mid-edit does not stop a benchmark of a built wheel).
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from litellm_hygiene._standin import (
    ReceivedRequest,
    Reply,
    StandIn,
    anthropic,
    gemini,
    openai_chat,
    openai_responses,
)


class CannedStandIn(StandIn):
    """A stand-in answering every request on a route with one reply, logging nothing."""

    def __init__(self, replies: dict[str, Reply]) -> None:
        super().__init__()
        self.replies = replies

    def answer(self, request: ReceivedRequest) -> Reply:
        """The route's reply (the stand-in's own 500 reply for an unknown route)."""
        reply = self.replies.get(request.route or "")
        return reply if reply is not None else super().answer(request)


def replies() -> dict[str, Reply]:
    """One short answer per route the benchmarks' targets use.

    Mistral shares OpenAI Chat's route; Claude on Bedrock's invoke route, Anthropic's.
    """
    claude = anthropic.message(anthropic.text("Done."), model="claude-sonnet-4-5", seed="b")
    gem = gemini.generate_content(gemini.text("Done."), model_version="gemini-2.5-pro", seed="b")
    chat = openai_chat.completion("Done.", model="gpt-4o", seed="b")
    responses = openai_responses.response(
        openai_responses.message("Done.", seed="b"), model="gpt-4o", seed="b"
    )
    return {reply.route: reply for reply in (claude, gem, chat, responses)}


def main() -> None:
    """Serve until stdin closes."""
    server = CannedStandIn(replies()).start()
    print(server.base_url, flush=True)
    try:
        sys.stdin.read()
    finally:
        server.close()


if __name__ == "__main__":
    main()
