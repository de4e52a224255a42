"""Async SDK: one callback makes a Claude history valid for whichever model comes next.

The history in claude_history.json is what a client holds after Claude answered through
LiteLLM: signed thinking, parallel tool calls, an image, and a tool call the user
interrupted. Sent to Mistral as it is, Mistral rejects it; with the callback registered,
LiteLLM sends Mistral a Mistral-valid copy, and the caller's list is left as it was.

Offline (the default), against the local stand-in; in another terminal first:
    litellm-hygiene standin
    python examples/async_sdk.py
Real APIs: HYGIENE_STANDIN_URL= MISTRAL_API_KEY=... python examples/async_sdk.py
"""

import asyncio
import copy
import json
import os
from pathlib import Path

import litellm

from litellm_hygiene import HygieneCallback

# Where `litellm-hygiene standin` listens; set it empty to call the real APIs.
STANDIN = os.environ.get("HYGIENE_STANDIN_URL", "http://127.0.0.1:4891") or None
HISTORY = json.loads(Path(__file__).with_name("claude_history.json").read_text("utf-8"))


async def main() -> None:
    # Global, and once per process: LiteLLM runs the request hook only for callbacks
    # registered here (a per-request callbacks= never gets it).
    litellm.callbacks = [HygieneCallback()]
    messages = HISTORY["messages"]
    before = copy.deepcopy(messages)
    response = await litellm.acompletion(
        model="mistral/mistral-large-latest",
        messages=messages,
        tools=HISTORY["tools"],
        api_base=STANDIN,  # None: Mistral's real API
        api_key="stand-in" if STANDIN else None,  # None: LiteLLM reads MISTRAL_API_KEY
    )
    report = response._hidden_params["litellm_hygiene"]
    print("answer: ", response.choices[0].message.content)
    print("target: ", report["target"])
    print("changes:", report["changes"])
    print("stamp:  ", response.choices[0].message.litellm_hygiene)
    assert messages == before, "the caller's history is never changed"


if __name__ == "__main__":
    asyncio.run(main())
