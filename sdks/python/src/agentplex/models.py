"""Models of every schema of the HTTP API: requests, responses and universal events
(generated from ``docs/openapi.json``; see ``agentplex.generated.models``)."""

from .generated.models import *  # noqa: F403
from .generated.models import __all__ as __all__
