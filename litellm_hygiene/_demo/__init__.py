"""The offline demo: a recorded conversation switched to every model family.

Runs LiteLLM's real request path against the stand-in (:mod:`litellm_hygiene._standin`),
which answers as each provider would, so the difference hygiene makes is measured on
the wire, not described. ``litellm-hygiene demo`` prints it.
"""

from ._run import Attempt, Outcome, run_demo
from ._targets import DEMO_TARGETS, DemoTarget, load_conversation

__all__ = ["DEMO_TARGETS", "Attempt", "DemoTarget", "Outcome", "load_conversation", "run_demo"]
