"""OpenForge rollouts as a veRL agent loop (``openforge_verl.agent_loop.OpenForgeAgentLoop``, registered as
``openforge_agent``). The client and the conversion need only Python's standard library; the agent loop
needs verl, and is imported on first use: a verl that lacks what it needs raises ``VerlMismatch`` naming it."""

from .client import RolloutClient, RolloutFailed, service_token, upstream_fields
from .conversion import image_bytes, output_fields_from_rollout, output_fields_from_sample, outputs_from_export, outputs_from_rollout
from .verl_api import VerlMismatch

__all__ = [
    "RolloutClient",
    "RolloutFailed",
    "service_token",
    "upstream_fields",
    "output_fields_from_rollout",
    "output_fields_from_sample",
    "outputs_from_rollout",
    "outputs_from_export",
    "image_bytes",
    "VerlMismatch",
    "OpenForgeAgentLoop",
]


def __getattr__(name):
    if name == "OpenForgeAgentLoop":
        from .agent_loop import OpenForgeAgentLoop

        return OpenForgeAgentLoop
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
