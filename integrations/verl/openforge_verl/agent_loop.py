"""The verl side: an AgentLoop that runs each dataset row as one OpenForge rollout in a real harness.

Importing this module needs verl; the client and conversion next to it do not.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from verl.experimental.agent_loop.agent_loop import AgentLoopBase, AgentLoopMetrics, AgentLoopOutput, register

from .client import RolloutClient, upstream_fields
from .conversion import output_fields_from_rollout


@register("openforge_agent")
class OpenForgeAgentLoop(AgentLoopBase):
    """Config (agent loop yaml kwargs or env): ``service_url`` (OPENFORGE_SERVICE_URL), ``tasks``
    (OPENFORGE_TASKS, a suite folder on the service machine), ``upstream`` (OPENFORGE_UPSTREAM, the
    trainer's OpenAI-compatible inference server, …/v1; several separated by commas, or a list, for its
    replicas: each rollout sticks to one), ``harness`` (default forge-agent), ``model``.
    Dataset rows name their task in ``task_id`` or ``extra_info.task_id``."""

    @classmethod
    def init_class(cls, config, tokenizer, processor, **kwargs):
        if cls._class_initialized:
            return
        super().init_class(config, tokenizer, processor, **kwargs)
        cls.service_url = kwargs.get("service_url") or os.environ["OPENFORGE_SERVICE_URL"]
        cls.tasks = kwargs.get("tasks") or os.environ["OPENFORGE_TASKS"]
        cls.upstreams = upstream_fields(kwargs.get("upstream") or os.environ["OPENFORGE_UPSTREAM"])
        cls.harness = kwargs.get("harness", "forge-agent")
        cls.model = kwargs.get("model", "policy")
        cls.max_response_length = config.actor_rollout_ref.rollout.response_length

    async def run(self, sampling_params: dict[str, Any], **kwargs) -> AgentLoopOutput:
        task_id = kwargs.get("task_id") or (kwargs.get("extra_info") or {}).get("task_id")
        if not task_id:
            raise ValueError("dataset row has no task_id (or extra_info.task_id) naming an OpenForge task")
        client = RolloutClient(self.service_url)
        request = {
            "tasks": self.tasks,
            "task_ids": [task_id],
            "harness": self.harness,
            **self.upstreams,
            "model": self.model,
            "sampling": {"temperature": float(sampling_params.get("temperature", 1.0))},
            "n": 1,
        }
        loop = asyncio.get_running_loop()
        submitted = await loop.run_in_executor(None, lambda: client.submit(**request))
        view = await loop.run_in_executor(None, client.wait, submitted["ids"][0])
        fields = output_fields_from_rollout(view, self.max_response_length)
        return AgentLoopOutput(**fields, metrics=AgentLoopMetrics())
