"""Turns a finished OpenForge rollout into the fields of verl's ``AgentLoopOutput``: one per sample (segment)."""

from __future__ import annotations

import base64
import os
from typing import Any

OUTPUT_FIELDS = ("prompt_ids", "response_ids", "response_mask", "response_logprobs", "multi_modal_data", "reward_score", "num_turns", "extra_fields")


def _require_finished(view: dict) -> list[dict]:
    if view.get("status") != "finished":
        raise ValueError(f"rollout {view.get('id')} is {view.get('status')}: {view.get('error_type')}: {view.get('error_message')}")
    samples = view.get("samples") or []
    if not samples and view.get("stale"):
        raise ValueError(
            f"rollout {view.get('id')} is stale: its first model call was {view.get('staleness')} weight updates old when it ended,"
            " past max_staleness (GET it with ?include_stale=true for its samples)"
        )
    if not samples:
        raise ValueError(f"rollout {view.get('id')} finished without token-level samples (no policy call had token ids)")
    return samples


def image_bytes(sample: dict, images_dir: str | None = None) -> list[bytes]:
    """The bytes of a sample's images, in the order of their placeholders in its token ids. A row carries each as
    ``multi_modal_data["image"][i]["image"]``: a base64 data URL (the service's samples, ``--images inline``) or a
    path relative to the export file's folder (``--images files``), given here as ``images_dir``."""
    items = (sample.get("multi_modal_data") or {}).get("image") or []
    tokens_len = len(sample.get("prompt_ids") or []) + len(sample.get("response_ids") or [])
    offsets = [item.get("token_offset") for item in items]
    known = [o for o in offsets if o is not None]
    if known != sorted(known) or any(o < 0 or o >= tokens_len for o in known):
        raise ValueError(f"sample {sample.get('rollout_id')}#{sample.get('segment')}: image token offsets {known} are not in order within its {tokens_len} tokens")
    out = []
    for item in items:
        ref = item.get("image")
        if not isinstance(ref, str):
            raise ValueError(f"sample {sample.get('rollout_id')}#{sample.get('segment')}: an image without its 'image' (data URL or path)")
        if ref.startswith("data:"):
            head, _, payload = ref.partition(",")
            if not head.endswith(";base64"):
                raise ValueError(f"sample {sample.get('rollout_id')}#{sample.get('segment')}: image data URL {head}, is not base64")
            out.append(base64.b64decode(payload))
        elif "://" in ref:
            raise ValueError(
                f"sample {sample.get('rollout_id')}#{sample.get('segment')}: image {ref} is a URL the harness sent, not bytes; "
                "the trainer needs the image itself (a harness that sends screenshots inline gives it)"
            )
        else:
            if images_dir is None and not os.path.isabs(ref):
                raise ValueError(f"image path {ref} is relative to the export file's folder: pass images_dir")
            with open(os.path.join(images_dir or "", ref), "rb") as f:
                out.append(f.read())
    return out


def output_fields_from_sample(
    view: dict, sample: dict, max_response_length: int | None = None, segments: int = 1, images_dir: str | None = None
) -> dict[str, Any]:
    """One sample of a rollout (a row of ``openforge export --format verl``, or one of a rollout view's
    ``samples``) as AgentLoopOutput keyword arguments, with the rollout's reward. Images come as
    ``multi_modal_data={"image": [bytes, ...]}`` in placeholder order (``openforge_image_offsets`` in
    ``extra_fields``: where each placeholder starts); the agent loop opens them for verl's processor."""
    response_ids = list(sample["response_ids"])
    mask = list(sample["response_mask"])
    logprobs = list(sample["response_logprobs"])
    if not (len(response_ids) == len(mask) == len(logprobs)):
        raise ValueError(f"rollout {view.get('id')}: response_ids, response_mask and response_logprobs differ in length")
    truncated = max_response_length is not None and len(response_ids) > max_response_length
    if truncated:
        response_ids, mask, logprobs = response_ids[:max_response_length], mask[:max_response_length], logprobs[:max_response_length]
    extra = dict(sample.get("extra_fields") or {})
    extra.update(
        {
            "uid": sample.get("uid"),
            "rollout_id": sample.get("rollout_id"),
            "openforge_id": view.get("id"),
            "group": view.get("group"),
            "harness": sample.get("harness"),
            "weight_version": sample.get("weight_version", view.get("weight_version")),
            "finish_reason": sample.get("finish_reason"),
            "truncated": truncated,
            "openforge_segment": sample.get("segment", 0),
            "openforge_segments": segments,
            "openforge_break_reason": sample.get("break_reason"),
        }
    )
    images = image_bytes(sample, images_dir)
    offsets = [item.get("token_offset") for item in (sample.get("multi_modal_data") or {}).get("image") or []]
    if truncated:
        # an image whose placeholder was cut off with the response's tail goes with it
        end = len(sample["prompt_ids"]) + len(response_ids)
        kept = [i for i, o in enumerate(offsets) if o is None or o < end]
        images, offsets = [images[i] for i in kept], [offsets[i] for i in kept]
    if images:
        extra["openforge_image_offsets"] = offsets
    return {
        "prompt_ids": list(sample["prompt_ids"]),
        "response_ids": response_ids,
        "response_mask": mask,
        "response_logprobs": logprobs,
        "multi_modal_data": {"image": images} if images else None,
        "reward_score": view.get("reward"),
        "num_turns": int(sample.get("num_turns", 0)),
        "extra_fields": extra,
    }


def outputs_from_rollout(view: dict, max_response_length: int | None = None) -> list[dict[str, Any]]:
    """Every sample of a finished rollout, in segment order, as AgentLoopOutput keyword arguments: each
    carries the rollout's ``uid`` (its GRPO group), reward and ids, and ``openforge_segment`` of
    ``openforge_segments``. A rollout that is not finished, or has no samples, raises ``ValueError``."""
    samples = _require_finished(view)
    return [output_fields_from_sample(view, s, max_response_length, len(samples)) for s in samples]


def output_fields_from_rollout(view: dict, max_response_length: int | None = None) -> dict[str, Any]:
    """A rollout with exactly one sample as AgentLoopOutput keyword arguments. A rollout of several segments
    raises ``ValueError``: use ``outputs_from_rollout``, which returns them all."""
    samples = _require_finished(view)
    if len(samples) > 1:
        raise ValueError(f"rollout {view.get('id')} has {len(samples)} segments: outputs_from_rollout returns each of them")
    return output_fields_from_sample(view, samples[0], max_response_length)


def outputs_from_export(path: str) -> list[dict[str, Any]]:
    """The rows of an ``openforge export --format verl`` JSONL file as AgentLoopOutput keyword arguments, the way
    ``outputs_from_rollout`` gives a finished rollout's samples: image paths (``--images files``) are read relative
    to the file's folder."""
    import json

    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            row = json.loads(line)
            view = {"id": row.get("rollout_id"), "reward": row.get("reward_score")}
            out.append(output_fields_from_sample(view, row, images_dir=os.path.dirname(os.path.abspath(path))))
    return out
