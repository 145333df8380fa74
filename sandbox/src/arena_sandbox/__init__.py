"""arena-sandbox: isolated execution backends for CausalArena method workers.

``venv`` (:mod:`arena_sandbox.venv`) gives every method plugin its own
virtualenv built from the plugin's declared requirements; ``docker``
(:mod:`arena_sandbox.docker`) its own image and a locked-down container.
Both start the core's worker (``python -m causalarena.worker``) and speak its
JSON-lines protocol, so the runner does not know the difference.
"""

__version__ = "0.2.0"
