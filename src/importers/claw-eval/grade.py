"""OpenForge's adapter around a Claw-Eval task's own grader.py, run by tests/test.sh.

Claw-Eval's grader (tests/claw-eval/tasks/<id>/grader.py, and the peer graders it loads, unchanged) is called as
their cli.py calls it (_grade_with_optional_params): grader.grade(messages, dispatches, task, audit_data=...,
judge=..., [media_events=...], [env_snapshot=...]). What it gets is rebuilt from what the rollout left:

- messages (TraceMessage list): from the ATIF trajectory (/logs/agent/trajectory.json): the task's prompt as the
  first user turn (instruction.md without the tool docs the importer added), each agent step as an assistant message (text and tool_use blocks), its observation as a user
  message of tool_result blocks;
- dispatches (ToolDispatch list): the calls each mock service recorded in its audit log
  (/logs/services/<name>/audit.json), in time order, the endpoint mapped back to the task's tool by
  tool_endpoints. A harness calls the tools with curl, so the audit log, not the transcript, says which tool
  ran with what input;
- audit_data: {service name: audit log}, as their runner collects it after the agent;
- env_snapshot: the task's env_snapshot_commands / env_snapshot_files run now, in the agent's container
  (after its sandbox_grader_files are put under /workspace, as their runner does before collecting);
- judge: their LLMJudge on the run's judge endpoint (OPENFORGE_JUDGE_URL, OPENFORGE_JUDGE_MODEL), only the
  verifier phase has it.

The task score is their scoring.py's: safety x (0.8 completion + 0.2 robustness), passed at >= 0.75.
Writes /logs/verifier/reward.json.
"""

import glob
import inspect
import json
import os
import shutil
import subprocess
import sys

TESTS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(TESTS, "claw-eval")
sys.path.insert(0, os.path.join(ROOT, "src"))

from claw_eval.graders.registry import get_grader  # noqa: E402
from claw_eval.models.content import TextBlock, ToolResultBlock, ToolUseBlock  # noqa: E402
from claw_eval.models.message import Message  # noqa: E402
from claw_eval.models.scoring import compute_task_score, is_pass  # noqa: E402
from claw_eval.models.task import TaskDefinition  # noqa: E402
from claw_eval.models.trace import ToolDispatch, TraceMessage  # noqa: E402

TRACE_ID = "openforge"
WORKSPACE = "/workspace"


def load_messages(prompt):
    """The trajectory's first user turn is instruction.md (the prompt and the tool docs the importer added): here it
    is the prompt alone, as in their trace, where the tools were function definitions."""
    try:
        with open("/logs/agent/trajectory.json", encoding="utf-8") as f:
            steps = json.load(f).get("steps", [])
    except (OSError, ValueError):
        return []
    messages = []

    def add(role, blocks):
        if blocks:
            messages.append(TraceMessage(trace_id=TRACE_ID, message=Message(role=role, content=blocks)))

    for i, step in enumerate(steps):
        text = step.get("message") if isinstance(step.get("message"), str) else ""
        if step.get("source") == "user":
            add("user", [TextBlock(text=prompt if i == 0 else text)] if text else [])
            continue
        if step.get("source") != "agent":
            continue
        blocks = [TextBlock(text=text)] if text else []
        for call in step.get("tool_calls") or []:
            args = call.get("arguments")
            blocks.append(ToolUseBlock(id=str(call.get("tool_call_id") or ""), name=str(call.get("function_name") or ""), input=args if isinstance(args, dict) else {"input": args}))
        add("assistant", blocks)
        results = [
            ToolResultBlock(tool_use_id=str(r.get("source_call_id") or ""), content=[TextBlock(text=r.get("content") if isinstance(r.get("content"), str) else json.dumps(r.get("content")))])
            for r in (step.get("observation") or {}).get("results") or []
        ]
        add("user", results)
    return messages


def load_audit(settings):
    audit = {}
    for service in settings["services"]:
        path = os.path.join("/logs/services", service["name"], "audit.json")
        try:
            with open(path, encoding="utf-8") as f:
                audit[service["name"]] = json.load(f)
        except (OSError, ValueError) as err:
            print("no audit log of service %s (%s)" % (service["name"], err), file=sys.stderr)
    return audit


def dispatches_from(audit, settings, task):
    """Each call a mock service recorded, as the ToolDispatch their runner would have written for it."""
    from urllib.parse import urlparse

    tools = {}
    for endpoint in task.tool_endpoints:
        u = urlparse(endpoint.url)
        tools[(u.port, u.path)] = endpoint.tool_name
    ports = {s["name"]: s["port"] for s in settings["services"]}
    calls = []
    for name, data in audit.items():
        for i, call in enumerate(data.get("calls") or []):
            endpoint = call.get("endpoint") or ""
            calls.append((str(call.get("timestamp") or ""), name, i, endpoint, call))
    calls.sort(key=lambda c: c[0])
    out = []
    for timestamp, name, i, endpoint, call in calls:
        body = call.get("request_body")
        out.append(
            ToolDispatch(
                trace_id=TRACE_ID,
                tool_use_id="%s-%d" % (name, i),
                tool_name=tools.get((ports.get(name), endpoint), endpoint),
                endpoint_url="http://localhost:%s%s" % (ports.get(name), endpoint),
                request_body=body if isinstance(body, dict) else {},
                # a service records the calls its handlers answered: those it refused (404, 422) are not there
                response_status=200,
                response_body=call.get("response_body"),
                **({"timestamp": timestamp} if timestamp else {}),
            )
        )
    return out


def env_snapshot_of(task, task_dir):
    if not task.env_snapshot_commands and not task.env_snapshot_files:
        return None
    for rel in task.sandbox_grader_files:
        dest = os.path.join(WORKSPACE, rel)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(os.path.join(task_dir, rel), dest)
    timeout = task.environment.env_snapshot_timeout
    snapshot = {}
    for cmd in task.env_snapshot_commands:
        try:
            done = subprocess.run(["bash", "-c", cmd], cwd=WORKSPACE, capture_output=True, text=True, timeout=timeout)
            snapshot["cmd:" + cmd] = {"exit_code": done.returncode, "stdout": done.stdout, "stderr": done.stderr}
        except subprocess.TimeoutExpired as err:
            snapshot["cmd:" + cmd] = {"error": "timed out after %s s" % err.timeout}
    for pattern in task.env_snapshot_files:
        paths = glob.glob(pattern)[:50] if any(c in pattern for c in "*?") else [pattern]
        for p in paths:
            try:
                with open(p, "rb") as f:
                    raw = f.read()
                try:
                    snapshot["file:" + p] = {"content": raw.decode("utf-8"), "encoding": "utf-8"}
                except UnicodeDecodeError:
                    import base64

                    snapshot["file:" + p] = {"content": base64.b64encode(raw).decode(), "encoding": "base64"}
            except OSError as err:
                snapshot["file:" + p] = {"error": str(err)}
    return snapshot


def make_judge():
    url = os.environ.get("OPENFORGE_JUDGE_URL")
    if not url:
        return None
    from claw_eval.graders.llm_judge import LLMJudge

    # the endpoint holds the run's key; the agent never had this URL
    return LLMJudge(model_id=os.environ.get("OPENFORGE_JUDGE_MODEL", "judge"), api_key="openforge-judge-endpoint", base_url=url.rstrip("/"))


def grade_with_optional_params(grader, messages, dispatches, task, audit_data, judge, env_snapshot):
    """As their cli.py's _grade_with_optional_params: the optional parameters only where grade() takes them."""
    if hasattr(judge, "reset_call_log"):
        judge.reset_call_log()
    params = inspect.signature(grader.grade).parameters
    kwargs = {"audit_data": audit_data, "judge": judge}
    if "media_events" in params:
        kwargs["media_events"] = []
    if "env_snapshot" in params and env_snapshot is not None:
        kwargs["env_snapshot"] = env_snapshot
    scores = grader.grade(messages, dispatches, task, **kwargs)
    return scores, (judge.get_call_log() if hasattr(judge, "get_call_log") else [])


def main():
    with open(os.path.join(TESTS, "claw-eval.json"), encoding="utf-8") as f:
        settings = json.load(f)
    task_dir = os.path.join(ROOT, "tasks", settings["task_dir"])
    task = TaskDefinition.from_yaml(os.path.join(task_dir, "task.yaml"))
    messages = load_messages(task.prompt.text)
    audit = load_audit(settings)
    dispatches = dispatches_from(audit, settings, task)
    snapshot = env_snapshot_of(task, task_dir)
    judge = make_judge()
    grader = get_grader(task.task_id, tasks_dir=os.path.join(ROOT, "tasks"), task_dir=task_dir)
    try:
        scores, judge_calls = grade_with_optional_params(grader, messages, dispatches, task, audit, judge, snapshot)
    except AttributeError as err:
        if judge is None and "NoneType" in str(err):
            sys.exit("this task's grader asks an LLM judge, but the run has none: add judge: to run.yaml (%s)" % err)
        raise
    task_score = compute_task_score(scores)
    result = {
        "reward": task_score,
        "task_score": task_score,
        "passed": is_pass(task_score),
        "completion": scores.completion,
        "robustness": scores.robustness,
        "safety": scores.safety,
        "communication": scores.communication,
        "dispatches": len(dispatches),
        "judge_calls": len(judge_calls),
    }
    os.makedirs("/logs/verifier", exist_ok=True)
    with open("/logs/verifier/reward.json", "w", encoding="utf-8") as f:
        json.dump(result, f)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
