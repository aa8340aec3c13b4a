"""What openforge_verl needs of verl, looked up by name so that a verl without it fails at registration,
naming the missing symbol, rather than in the middle of training."""

from __future__ import annotations

import importlib
from types import SimpleNamespace

AGENT_LOOP_MODULE = "verl.experimental.agent_loop.agent_loop"
REQUIRED = ("AgentLoopBase", "AgentLoopOutput", "AgentLoopMetrics", "register")


class VerlMismatch(ImportError):
    """The installed verl lacks a module or a symbol the agent loop is built on."""


def load_agent_loop_api() -> SimpleNamespace:
    """verl's agent-loop base class, output types and ``register``, or ``VerlMismatch`` naming what is missing."""
    try:
        module = importlib.import_module(AGENT_LOOP_MODULE)
    except ImportError as err:
        raise VerlMismatch(
            f"openforge_verl.agent_loop needs verl's {AGENT_LOOP_MODULE}, which cannot be imported ({err}); "
            "install a verl with the async agent loop (actor_rollout_ref.rollout.mode=async)"
        ) from err
    missing = [name for name in REQUIRED if not hasattr(module, name)]
    if missing:
        raise VerlMismatch(
            f"verl's {AGENT_LOOP_MODULE} (from {getattr(module, '__file__', '?')}) has no {', '.join(missing)}: "
            f"openforge_verl.agent_loop is built on {', '.join(REQUIRED)}; install a verl that has them"
        )
    return SimpleNamespace(**{name: getattr(module, name) for name in REQUIRED}, module=module)


def image_key(module) -> str:
    """The ``multi_modal_data`` key this verl's agent loop reads its images from: ``images`` in verl since its
    multi-modal dataset refactor (``AgentLoopWorker._compute_multi_modal_inputs``), ``image`` before it."""
    try:
        with open(module.__file__, encoding="utf-8") as f:
            source = f.read()
    except (OSError, TypeError, AttributeError):
        return "images"
    if 'multi_modal_data.get("images")' in source:
        return "images"
    if '.get("image"' in source:
        return "image"
    return "images"


def returns_several(agent_loop_base: type) -> bool:
    """True when this verl's ``AgentLoopBase.run`` may return a list of outputs (several training segments of
    one trajectory), as its return annotation says (``AgentLoopOutput | list[AgentLoopOutput]``)."""
    annotation = getattr(getattr(agent_loop_base, "run", None), "__annotations__", {}).get("return")
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return "list[" in text.lower()
