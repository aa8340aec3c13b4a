"""The verl side: an AgentLoop that runs each dataset row as one OpenForge rollout in a real harness.

Importing this module needs verl; the client and conversion next to it do not. A verl that lacks what it
needs fails here, at registration, naming the missing symbol (``verl_api.VerlMismatch``).
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
from typing import Any

from .client import RolloutClient, upstream_fields
from .conversion import outputs_from_rollout
from .verl_api import image_key, load_agent_loop_api, returns_several

_verl = load_agent_loop_api()
AgentLoopBase = _verl.AgentLoopBase
AgentLoopMetrics = _verl.AgentLoopMetrics
AgentLoopOutput = _verl.AgentLoopOutput

# The sampling settings the service forwards to the engine (its request's `sampling`).
SAMPLING_KEYS = (
    "temperature",
    "top_p",
    "top_k",
    "min_p",
    "max_tokens",
    "stop",
    "presence_penalty",
    "frequency_penalty",
    "repetition_penalty",
    "seed",
)


def sampling_request(sampling_params: dict[str, Any]) -> dict[str, Any]:
    """verl's sampling params as the service's ``sampling``: every setting it knows that verl gave a value.
    verl's ``logprobs`` is a switch (the service always records logprobs); a count is forwarded as one."""
    sampling = {key: sampling_params[key] for key in SAMPLING_KEYS if sampling_params.get(key) is not None}
    logprobs = sampling_params.get("logprobs")
    if isinstance(logprobs, int) and not isinstance(logprobs, bool) and logprobs > 0:
        sampling["logprobs"] = logprobs
    return sampling


def open_images(fields: dict[str, Any], key: str) -> dict[str, Any]:
    """A sample's images (bytes, in placeholder order) as the PIL images verl's processor takes, under the key this
    verl reads (``image_key``)."""
    images = (fields.get("multi_modal_data") or {}).get("image")
    if not images:
        return fields
    try:
        from io import BytesIO

        from PIL import Image
    except ImportError as err:
        raise ImportError("this rollout has screenshots: opening them for verl's processor needs Pillow (pip install pillow)") from err
    opened = [Image.open(BytesIO(data)).convert("RGB") for data in images]
    return {**fields, "multi_modal_data": {key: opened}}


def as_json(fields: dict[str, Any]) -> dict[str, Any]:
    """AgentLoopOutput fields as a JSON line holds them: image bytes as base64 data URLs."""
    images = (fields.get("multi_modal_data") or {}).get("image")
    if not images:
        return fields
    import base64

    urls = [{"image": "data:image;base64," + base64.b64encode(b).decode("ascii")} for b in images]
    return {**fields, "multi_modal_data": {"image": urls}}


def append_segments(path: str, rows: list[dict[str, Any]]) -> None:
    """Appends a rollout's rows to the side file, whole, under an exclusive lock (several workers write it)."""
    text = "".join(json.dumps(row, separators=(",", ":")) + "\n" for row in rows)
    with open(path, "a", encoding="utf-8") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


@_verl.register("openforge_agent")
class OpenForgeAgentLoop(AgentLoopBase):
    """Config (agent loop yaml kwargs or env): ``service_url`` (OPENFORGE_SERVICE_URL), ``tasks``
    (OPENFORGE_TASKS, a suite folder on the service machine), ``upstream`` (OPENFORGE_UPSTREAM, the
    trainer's OpenAI-compatible inference server, …/v1; several separated by commas, or a list, for its
    replicas: each rollout sticks to one), ``harness`` (default forge-agent), ``model``, ``token`` or
    ``token_file`` (OPENFORGE_SERVICE_TOKEN / OPENFORGE_SERVICE_TOKEN_FILE), and ``segments``: ``auto``
    (default: a list of outputs where this verl's run may return one, else the side file), ``list``, or
    ``file`` with ``segments_file`` (OPENFORGE_SEGMENTS_FILE), where every segment of every rollout is
    appended as a JSON line of AgentLoopOutput fields while run returns segment 0.
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
        cls.token = kwargs.get("token")
        cls.token_file = kwargs.get("token_file")
        cls.max_response_length = config.actor_rollout_ref.rollout.response_length
        cls.segments_file = kwargs.get("segments_file") or os.environ.get("OPENFORGE_SEGMENTS_FILE")
        mode = kwargs.get("segments", "auto")
        several = returns_several(AgentLoopBase)
        if mode == "auto":
            mode = "list" if several else "file"
        if mode == "list" and not several:
            raise ValueError(
                "segments: list, but this verl's AgentLoopBase.run returns one AgentLoopOutput; use segments: file with segments_file"
            )
        if mode == "file" and not cls.segments_file:
            raise ValueError(
                "this verl's AgentLoopBase.run returns one AgentLoopOutput, so a rollout's later segments (after a history "
                "rewrite, a sub-agent, a template break) need a side file: set segments_file (OPENFORGE_SEGMENTS_FILE), "
                "or install a verl whose run may return a list of outputs"
            )
        if mode not in ("list", "file"):
            raise ValueError(f"segments: {mode!r}; use auto, list or file")
        cls.segments_mode = mode
        cls.image_key = kwargs.get("image_key") or image_key(_verl.module)

    async def run(self, sampling_params: dict[str, Any], **kwargs) -> AgentLoopOutput | list[AgentLoopOutput]:
        task_id = kwargs.get("task_id") or (kwargs.get("extra_info") or {}).get("task_id")
        if not task_id:
            raise ValueError("dataset row has no task_id (or extra_info.task_id) naming an OpenForge task")
        client = RolloutClient(self.service_url, token=self.token, token_file=self.token_file)
        request = {
            "tasks": self.tasks,
            "task_ids": [task_id],
            "harness": self.harness,
            **self.upstreams,
            "model": self.model,
            "sampling": sampling_request(sampling_params),
            "n": 1,
        }
        loop = asyncio.get_running_loop()
        submitted = await loop.run_in_executor(None, lambda: client.submit(**request))
        view = await loop.run_in_executor(None, client.wait, submitted["ids"][0])
        fields = outputs_from_rollout(view, self.max_response_length)
        if self.segments_mode == "list":
            fields = [open_images(f, self.image_key) for f in fields]
            return [AgentLoopOutput(**f, metrics=AgentLoopMetrics()) for f in fields]
        # the side file carries the bytes as the export does (base64 data URLs), JSON having no bytes
        await loop.run_in_executor(None, append_segments, self.segments_file, [as_json(f) for f in fields])
        first = open_images(dict(fields[0]), self.image_key)
        first["extra_fields"] = {**first["extra_fields"], "openforge_segments_file": self.segments_file}
        return AgentLoopOutput(**first, metrics=AgentLoopMetrics())
