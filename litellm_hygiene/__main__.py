"""``python -m litellm_hygiene``: the ``litellm-hygiene`` command."""

from litellm_hygiene._cli import main

main()
