"""OpenForge rollouts as a veRL agent loop (registered as ``openforge_agent`` when verl is installed)."""

from .client import RolloutClient, RolloutFailed, upstream_fields
from .conversion import output_fields_from_rollout

try:  # verl is optional: the client and the conversion work without it.
    from .agent_loop import OpenForgeAgentLoop  # noqa: F401
except ImportError:  # pragma: no cover - depends on the trainer's environment
    OpenForgeAgentLoop = None

__all__ = ["RolloutClient", "RolloutFailed", "upstream_fields", "output_fields_from_rollout", "OpenForgeAgentLoop"]
