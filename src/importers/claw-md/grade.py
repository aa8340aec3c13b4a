"""OpenForge's adapter around a PinchBench / QwenClawBench task's own grader, run by tests/test.sh.

The benchmark's `grade(transcript, workspace_path)` (tests/automated_checks.py, the task file's code block
byte for byte) is called unchanged, as the benchmark's runner calls it: on the agent's transcript in
OpenClaw's session-event shape, here rebuilt from the rollout's ATIF trajectory (/logs/agent/trajectory.json),
and on the workspace (the grader's working directory). Its score is the mean of the values it returns. An
`llm_judge` or `hybrid` task's rubric goes to the run's judge (OPENFORGE_JUDGE_URL, only the verifier phase
has it), and the two are combined with the task's weights by the benchmark's own rule (tests/grading.json).
Writes /logs/verifier/reward.json.
"""

import json
import os
import re
import sys
import urllib.request

TESTS = os.path.dirname(os.path.abspath(__file__))


def load_transcript():
    """ATIF steps as OpenClaw session events: {"type": "message", "message": {"role", "content": [...]}}."""
    try:
        with open("/logs/agent/trajectory.json", encoding="utf-8") as f:
            steps = json.load(f).get("steps", [])
    except (OSError, ValueError):
        return []
    events = []
    for step in steps:
        text = step.get("message") if isinstance(step.get("message"), str) else ""
        if step.get("source") == "user":
            events.append({"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": text}]}})
            continue
        if step.get("source") != "agent":
            continue
        content = [{"type": "text", "text": text}] if text else []
        for call in step.get("tool_calls") or []:
            args = call.get("arguments") or {}
            # graders read either key (PinchBench's own graders disagree)
            content.append({"type": "toolCall", "id": call.get("tool_call_id"), "name": call.get("function_name"), "arguments": args, "params": args})
        events.append({"type": "message", "message": {"role": "assistant", "content": content}})
        for result in (step.get("observation") or {}).get("results") or []:
            events.append(
                {
                    "type": "message",
                    "message": {"role": "toolResult", "toolCallId": result.get("source_call_id"), "content": [{"type": "text", "text": result.get("content") or ""}]},
                }
            )
    return events


def automated_score(settings, transcript):
    namespace = {}
    with open(os.path.join(TESTS, "automated_checks.py"), encoding="utf-8") as f:
        exec(compile(f.read(), "automated_checks.py", "exec"), namespace)
    scores = namespace["grade"](transcript, os.getcwd())
    if not isinstance(scores, dict):
        scores = {}
    values = [float(v) for v in scores.values() if isinstance(v, (int, float))]
    return (sum(values) / len(values) if values else 0.0), {str(k): v for k, v in scores.items() if isinstance(v, (int, float))}


def summarize(transcript):
    lines = []
    for event in transcript:
        message = event.get("message", {})
        role = message.get("role")
        for part in message.get("content", []):
            if role == "user" and part.get("type") == "text":
                lines.append("User: " + part.get("text", ""))
            elif part.get("type") == "toolCall":
                lines.append("Tool: %s(%s)" % (part.get("name"), json.dumps(part.get("arguments"))))
            elif role == "toolResult":
                lines.append("Result: " + (part.get("text") or "")[:200])
            elif role == "assistant" and part.get("type") == "text":
                lines.append("Assistant: " + part.get("text", ""))
    return "\n".join(lines)


def judge_score(settings, transcript):
    url = os.environ.get("OPENFORGE_JUDGE_URL")
    if not url:
        sys.exit("this task is graded by an LLM judge, but the run has none: add judge: to run.yaml")
    prompt = (
        "You are grading an AI agent's work on a task. Score each rubric criterion from 0 to 1.\n\n"
        "## Task\n%s\n\n## Expected Behavior\n%s\n\n## Agent Transcript\n%s\n\n## Rubric\n%s\n\n"
        'Answer with JSON only: {"scores": {"<criterion>": <0..1>, ...}, "total": <0..1>, "notes": "<why>"}'
    ) % (settings["prompt"], settings["expected_behavior"], summarize(transcript), settings["rubric"])
    body = json.dumps(
        {"model": os.environ.get("OPENFORGE_JUDGE_MODEL", "judge"), "messages": [{"role": "user", "content": prompt}], "temperature": 0}
    ).encode()
    request = urllib.request.Request(url.rstrip("/") + "/chat/completions", data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=300) as answer:
        text = json.load(answer)["choices"][0]["message"]["content"] or ""
    match = re.search(r"\{.*\}", text, re.DOTALL)
    parsed = json.loads(match.group(0)) if match else {}
    total = parsed.get("total")
    if not isinstance(total, (int, float)):
        values = [float(v) for v in (parsed.get("scores") or {}).values() if isinstance(v, (int, float))]
        total = sum(values) / len(values) if values else 0.0
    return max(0.0, min(1.0, float(total))), parsed.get("notes", "")


def main():
    with open(os.path.join(TESTS, "grading.json"), encoding="utf-8") as f:
        settings = json.load(f)
    transcript = load_transcript()
    kind = settings["grading_type"]
    result = {"grading_type": kind}
    auto = judge = None
    if kind in ("automated", "hybrid"):
        auto, breakdown = automated_score(settings, transcript)
        result["automated"] = auto
        result["automated_checks"] = breakdown
    if kind in ("llm_judge", "hybrid"):
        judge, notes = judge_score(settings, transcript)
        result["judge"] = judge
        result["judge_notes"] = notes
    if kind == "automated":
        score = auto
    elif kind == "llm_judge":
        score = judge
    else:
        w_auto, w_judge = settings["weights"]["automated"], settings["weights"]["llm_judge"]
        threshold = settings.get("judge_gate")
        # QwenClawBench: the judge's share is 0 while the automated score is below the gate (strict <)
        counted = 0.0 if threshold is not None and auto < threshold else judge
        score = (auto * w_auto + counted * w_judge) / (w_auto + w_judge)
    result["reward"] = round(score, 6)
    os.makedirs("/logs/verifier", exist_ok=True)
    with open("/logs/verifier/reward.json", "w", encoding="utf-8") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
