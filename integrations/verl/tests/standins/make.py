"""Stand-ins for verl's ``verl.experimental.agent_loop.agent_loop``, shaped like verl's own (AgentLoopBase with
``_class_initialized``, ``init_class`` and an abstract async ``run``; AgentLoopOutput and AgentLoopMetrics as
pydantic models where pydantic is installed; ``register`` filling ``_agent_loop_registry`` with a hydra
``_target_``), for the machines where verl (ray, torch, vLLM) cannot be installed. They are test doubles, not
verl: each variant is written into a fresh folder and put first on ``sys.path``.

- ``several``: ``run`` returns ``AgentLoopOutput | list[AgentLoopOutput]`` (verl with multi-segment outputs);
- ``single``: ``run`` returns ``AgentLoopOutput`` (an older verl);
- ``lacking``: no ``AgentLoopOutput`` (a verl whose API moved).
"""

from __future__ import annotations

import importlib
import sys
import tempfile
from pathlib import Path

MODELS = '''
try:
    from pydantic import BaseModel
except ImportError:  # a minimal model: required fields, defaults, attribute access
    class BaseModel:
        def __init__(self, **data):
            hints = {}
            for klass in reversed(type(self).__mro__):
                hints.update(getattr(klass, "__annotations__", {}))
            for name in hints:
                if name in data:
                    setattr(self, name, data[name])
                elif hasattr(type(self), name):
                    value = getattr(type(self), name)
                    setattr(self, name, dict(value) if isinstance(value, dict) else value)
                else:
                    raise TypeError(f"{type(self).__name__}: field {name} required")

        def model_dump(self):
            return dict(vars(self))


class AgentLoopMetrics(BaseModel):
    generate_sequences: float = 0.0
    tool_calls: float = 0.0
'''

OUTPUT = '''
class AgentLoopOutput(BaseModel):
    prompt_ids: list[int]
    response_ids: list[int]
    response_mask: list[int]
    response_logprobs: Optional[list[float]] = None
    multi_modal_data: Optional[dict[str, Any]] = None
    reward_score: Optional[float] = None
    num_turns: int = 0
    metrics: AgentLoopMetrics
    extra_fields: dict[str, Any] = {}
'''

BASE = '''
class AgentLoopBase(ABC):
    _class_initialized = False

    def __init__(self, trainer_config, server_manager, tokenizer, processor, **kwargs):
        self.init_class(config=trainer_config.config, tokenizer=tokenizer, processor=processor, **kwargs)
        self.config = trainer_config.config
        self.server_manager = server_manager
        self.tokenizer = tokenizer
        self.processor = processor
        self.loop = asyncio.get_running_loop()

    @classmethod
    def init_class(cls, config, tokenizer, processor, **kwargs):
        if cls._class_initialized:
            return
        cls._class_initialized = True

    @abstractmethod
    async def run(self, sampling_params: dict[str, Any], **kwargs) -> RETURNS:
        raise NotImplementedError


_agent_loop_registry: dict[str, dict] = {}


def register(agent_name: str):
    def decorator(subclass):
        fqdn = f"{subclass.__module__}.{subclass.__qualname__}"
        _agent_loop_registry[agent_name] = {"_target_": fqdn}
        return subclass

    return decorator


class _DummyConfig:
    def __init__(self, config) -> None:
        self.config = config
'''

HEADER = "import asyncio\nfrom abc import ABC, abstractmethod\nfrom typing import Any, Optional\n"

VARIANTS = {
    "several": HEADER + MODELS + OUTPUT + BASE.replace("RETURNS", "AgentLoopOutput | list[AgentLoopOutput]"),
    "single": HEADER + MODELS + OUTPUT + BASE.replace("RETURNS", "AgentLoopOutput"),
    "lacking": HEADER + MODELS + BASE.replace("RETURNS", "Any"),
}


def _forget() -> None:
    for name in [n for n in sys.modules if n == "verl" or n.startswith("verl.") or n == "openforge_verl.agent_loop"]:
        del sys.modules[name]
    package = sys.modules.get("openforge_verl")
    if package is not None and "agent_loop" in vars(package):
        delattr(package, "agent_loop")


def install(variant: str) -> Path:
    """Writes the variant as a ``verl`` package in a fresh folder, puts it first on sys.path, and forgets
    any verl and openforge_verl.agent_loop imported before."""
    root = Path(tempfile.mkdtemp(prefix=f"verl-standin-{variant}-"))
    package = root / "verl" / "experimental" / "agent_loop"
    package.mkdir(parents=True)
    for folder in (root / "verl", root / "verl" / "experimental", package):
        (folder / "__init__.py").write_text("")
    (package / "agent_loop.py").write_text(VARIANTS[variant])
    _forget()
    sys.path.insert(0, str(root))
    importlib.invalidate_caches()
    return root


def uninstall(root: Path) -> None:
    sys.path.remove(str(root))
    _forget()
