"""Turns a finished OpenForge rollout into the fields of verl's ``AgentLoopOutput``: one per sample (segment)."""

from __future__ import annotations

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


def output_fields_from_sample(view: dict, sample: dict, max_response_length: int | None = None, segments: int = 1) -> dict[str, Any]:
    """One sample of a rollout (a row of ``openforge export --format verl``, or one of a rollout view's
    ``samples``) as AgentLoopOutput keyword arguments, with the rollout's reward."""
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
    return {
        "prompt_ids": list(sample["prompt_ids"]),
        "response_ids": response_ids,
        "response_mask": mask,
        "response_logprobs": logprobs,
        "multi_modal_data": sample.get("multi_modal_data") or None,
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
