"""Router with a cross-provider fallback: Claude is down, the same history goes to Mistral.

The callback runs again for every fallback hop, so the Mistral deployment receives a
Mistral-valid request (9-character tool ids, no Claude signatures, every call answered)
even though the history was recorded with Claude. HygieneRouter is a litellm.Router
whose context_window_fallbacks also fire for overflow errors LiteLLM does not map.

Offline (the default), against the local stand-in; in another terminal first:
    litellm-hygiene standin
    python examples/router_fallback.py
Real APIs: HYGIENE_STANDIN_URL= MISTRAL_API_KEY=... python examples/router_fallback.py
"""

import asyncio
import json
import os
from pathlib import Path

import litellm

from litellm_hygiene import HygieneCallback, HygieneRouter

STANDIN = os.environ.get("HYGIENE_STANDIN_URL", "http://127.0.0.1:4891") or None
HISTORY = json.loads(Path(__file__).with_name("claude_history.json").read_text("utf-8"))
CLOSED_PORT = "http://127.0.0.1:9"  # nothing listens here: it stands for an Anthropic outage


async def main() -> None:
    litellm.callbacks = [HygieneCallback()]
    router = HygieneRouter(
        model_list=[
            {
                "model_name": "claude",
                "litellm_params": {
                    "model": "anthropic/claude-sonnet-4-5",
                    "api_base": CLOSED_PORT,
                    "api_key": "unused",
                },
            },
            {
                "model_name": "mistral",
                "litellm_params": {
                    "model": "mistral/mistral-large-latest",
                    "api_base": STANDIN,
                    "api_key": "stand-in" if STANDIN else os.environ.get("MISTRAL_API_KEY"),
                },
            },
        ],
        fallbacks=[{"claude": ["mistral"]}],
        num_retries=0,
    )
    response = await router.acompletion(
        model="claude", messages=HISTORY["messages"], tools=HISTORY["tools"]
    )
    report = response._hidden_params["litellm_hygiene"]
    print("asked for: claude; answered by:", report["target"])
    print("changes for that hop:", report["changes"])
    print("answer:", response.choices[0].message.content)


if __name__ == "__main__":
    asyncio.run(main())
