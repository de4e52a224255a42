"""Sync calls: litellm_hygiene.completion wraps litellm.completion.

LiteLLM runs no hook that can change a sync request, so registering the callback does
nothing for litellm.completion. The wrapper takes the same arguments, transforms the
messages for the model, stamps the answer and attaches the report, and raises an
overflow LiteLLM did not map as litellm.ContextWindowExceededError.

Offline (the default), against the local stand-in; in another terminal first:
    litellm-hygiene standin
    python examples/sync_wrappers.py
Real APIs: HYGIENE_STANDIN_URL= OPENAI_API_KEY=... python examples/sync_wrappers.py
"""

import json
import os
from pathlib import Path

import litellm_hygiene

STANDIN = os.environ.get("HYGIENE_STANDIN_URL", "http://127.0.0.1:4891") or None
HISTORY = json.loads(Path(__file__).with_name("claude_history.json").read_text("utf-8"))


def main() -> None:
    for model in ("openai/gpt-4o", "gemini/gemini-2.5-flash"):
        response = litellm_hygiene.completion(
            model=model,
            messages=HISTORY["messages"],
            tools=HISTORY["tools"],
            api_base=STANDIN,
            api_key="stand-in" if STANDIN else None,
        )
        report = response._hidden_params["litellm_hygiene"]
        print(f"{model}: {response.choices[0].message.content}")
        print(f"    changes: {report['changes']}")


if __name__ == "__main__":
    main()
