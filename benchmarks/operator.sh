#!/usr/bin/env bash
# What hygiene adds to a LiteLLM deployment, in one command (issue "For operators"):
# the hook against LiteLLM's own acompletion time at 10, 50, 200 and 1,000 agent
# exchanges, and against its /v1/messages and /v1/responses time (Claude Code's and
# Codex's sessions) at 200, what the garbage collector costs a request with the hook
# paused around it or not, then two real proxies (with and without hygiene) under 300
# requests 30 at a time.
# Each prints tables measured side by side; nothing is asserted.
# Run from the checkout after the README's install: bash benchmarks/operator.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export LITELLM_LOCAL_MODEL_COST_MAP=True
python=.venv/bin/python
"$python" benchmarks/bench_acompletion.py 10 50 200 1000
"$python" benchmarks/bench_routes.py 200
"$python" benchmarks/bench_gc.py 100
"$python" benchmarks/bench_proxy.py "$@"
