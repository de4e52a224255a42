"""``python -m litellm_hygiene``: the ``litellm-hygiene`` command."""

from litellm_hygiene._cli import main

if __name__ == "__main__":  # importing the module (tools walk every module) runs nothing
    main()
