"""A small trainer, in Python's standard library, that drives ``openforge serve`` the way an online RL trainer does.

Each step submits a GRPO group (``n`` rollouts of one task) under ``sim:oracle``, waits for the group, drains the
proxies, "updates the weights" (bumps the sim's weight version) and resumes. One step updates the weights while its
rollouts run, holding their model calls (``mode: hold``) for longer than the harness's retry budget; in another the
service is killed with SIGKILL mid-step and started again on the same store. After every step it checks the batch
against the service's store (read with ``sqlite3``):

- every token the policy sampled in every rollout of the batch is in the batch's samples exactly once, in order;
- no sample mixes weight versions, and the sim's answers in it are those of the sample's version;
- no rollout is lost or duplicated across the restart, and a rollout re-run after the kill keeps nothing of the
  killed attempt;
- rollouts whose first call is older than ``max_staleness`` when they end are stale, and counted.

Run from the repository root after ``npm run build`` (the harness's images built):

    python3 integrations/verl/tests/training_loop.py --envs envs/claw-basic --output /tmp/loop --harness forge-agent --hold-sec 30

It prints one JSON line with what it measured and exits 0, or raises AssertionError naming what failed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import socket
import sqlite3
import struct
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from openforge_verl import RolloutClient  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
# claw-basic tasks whose reference solution takes two or three steps: a rollout is mid-episode for a while
DEFAULT_TASKS = ["clean-corrupt-csv", "fix-log-rotation", "git-release-workflow", "release-archive-pipeline", "edit-markdown-guide"]
VERSION_IN_ANSWER = re.compile(r"\(weights ([^)]+)\)")


class Service:
    """``openforge serve`` as a child process, on a fixed port, so that a restart keeps the trainer's URL."""

    def __init__(self, envs: Path, output: Path, concurrency: int):
        self.envs, self.output, self.concurrency = envs, output, concurrency
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        output.mkdir(parents=True, exist_ok=True)
        self.token_file = output / "trainer-token"
        self.token_file.write_text(os.urandom(16).hex() + "\n")
        self.proc: subprocess.Popen | None = None
        self.lines: list[str] = []

    def start(self) -> list[str]:
        cmd = ["node", str(ROOT / "bin" / "openforge.js"), "serve", "--port", str(self.port), "--output", str(self.output)]
        cmd += ["--tasks-root", str(self.envs), "--token-file", str(self.token_file), "--concurrency", str(self.concurrency)]
        self.proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
        first = self.proc.stderr.readline()
        if "openforge serve: http" not in first:
            raise AssertionError(f"openforge serve did not start: {first}{self.proc.stderr.read()}")
        started = [first]
        # the rest of its stderr, read on so that it never blocks on a full pipe
        threading.Thread(target=self._drain, args=(self.proc, started), daemon=True).start()
        time.sleep(0.2)
        return started

    def _drain(self, proc: subprocess.Popen, into: list[str]) -> None:
        for line in proc.stderr:
            into.append(line)
            self.lines.append(line)

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                self.proc.kill()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def healthy(self) -> bool:
        try:
            with urllib.request.urlopen(self.url + "/health", timeout=5) as res:
                return res.status == 200
        except OSError:
            return False


def ids_of(blob: bytes | None) -> list[int]:
    return list(struct.unpack(f"<{len(blob) // 4}i", blob)) if blob else []


class StoreReader:
    """The service's SQLite store, read-only, beside the writing service (WAL)."""

    def __init__(self, output: Path):
        self.file = output / "openforge.db"

    def _query(self, sql: str, params: tuple = ()) -> list[tuple]:
        db = sqlite3.connect(f"file:{self.file}?mode=ro", uri=True, timeout=30)
        try:
            return db.execute(sql, params).fetchall()
        finally:
            db.close()

    def policy_calls(self, attempt_id: str) -> list[tuple]:
        """(seq, completion ids, weight version, response text) of an attempt's answered policy calls, in order."""
        return self._query(
            "SELECT seq, completion_ids, weight_version, response FROM calls WHERE rollout_id = ? AND label = 'policy' AND status = 200 ORDER BY seq",
            (attempt_id,),
        )

    def attempts(self, job_id: str) -> list[tuple]:
        """(attempt id, status) of every attempt of a submitted rollout, oldest first."""
        run, _, rest = job_id.partition(".")
        task, _, sample = rest.rpartition(".")
        return self._query(
            "SELECT id, status FROM rollouts WHERE run_id = ? AND task_id = ? AND sample_index = ? ORDER BY attempt", (run, task, int(sample))
        )

    def calls_of_job(self, job_id: str) -> int:
        return self._query("SELECT COUNT(*) FROM calls WHERE rollout_id LIKE ? AND label = 'policy'", (job_id + ".%",))[0][0]

    def jobs(self) -> list[tuple]:
        return self._query("SELECT id, status FROM service_jobs ORDER BY seq")


def check_rollout(store: StoreReader, view: dict, samples: list[dict]) -> dict:
    """The batch checks of one finished rollout; returns what it measured."""
    rollout_ids = {s["rollout_id"] for s in samples}
    assert len(rollout_ids) == 1, f"{view['id']}: samples of several attempts {rollout_ids}"
    attempt = rollout_ids.pop()
    attempts = store.attempts(view["id"])
    assert attempts[-1] == (attempt, "finished"), f"{view['id']}: samples from {attempt}, attempts {attempts}"
    for earlier, status in attempts[:-1]:
        assert status == "abandoned", f"{view['id']}: earlier attempt {earlier} is {status}"
    # one attempt, and one more for each time a killed service left it running (none for harness failures)
    assert len(attempts) == view["attempts"] <= 1 + view["restarts"], f"{view['id']}: attempts {attempts} vs view {view}"

    calls = store.policy_calls(attempt)
    sampled = [t for _, ids, _, _ in calls for t in ids_of(ids)]
    in_samples = [t for s in sorted(samples, key=lambda s: s["segment"]) for t, m in zip(s["response_ids"], s["response_mask"]) if m == 1]
    assert in_samples == sampled, f"{view['id']}: {len(in_samples)} trained tokens vs {len(sampled)} sampled ({attempt})"

    version_of = {seq: version for seq, _, version, _ in calls}
    seen_in_answers = 0
    for s in samples:
        assert sum(s["extra_fields"]["excluded_calls"].values()) == 0, f"{view['id']}: calls left out {s['extra_fields']['excluded_calls']}"
        versions = {version_of[seq] for seq in s["extra_fields"]["call_seqs"]}
        assert versions == {s["weight_version"]}, f"{view['id']} segment {s['segment']}: versions {versions} in a sample of {s['weight_version']}"
    for _, _, version, response in calls:
        for named in VERSION_IN_ANSWER.findall(response or ""):
            assert named == version, f"{view['id']}: the sim answered under {named}, recorded as {version}"
            seen_in_answers += 1
    assert seen_in_answers >= 1, f"{view['id']}: no answer of the sim names its weights"
    return {"tokens": len(sampled), "segments": len(samples), "versions": sorted({s["weight_version"] for s in samples})}


def wait_for_a_call(store: StoreReader, client: RolloutClient, ids: list[str], timeout: float = 180) -> None:
    """Until a rollout of the group has made a policy call and is still running: the group is mid-episode."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for rollout_id in ids:
            if store.calls_of_job(rollout_id) > 0 and client.rollout(rollout_id)["status"] == "running":
                return
        time.sleep(0.1)
    raise AssertionError(f"no rollout of {ids} made a policy call within {timeout} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--envs", default=str(ROOT / "envs" / "claw-basic"))
    ap.add_argument("--output", required=True)
    ap.add_argument("--harness", default="forge-agent")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--n", type=int, default=4)
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--hold-sec", type=float, required=True, help="how long the mid-step weight update holds model calls")
    ap.add_argument("--hold-step", type=int, default=2)
    ap.add_argument("--kill-step", type=int, default=4)
    ap.add_argument("--tasks", default=",".join(DEFAULT_TASKS))
    args = ap.parse_args()
    assert args.steps >= 5 and args.n >= 4, "the loop runs at least 5 steps of groups of at least 4"
    tasks = args.tasks.split(",")
    envs, output = Path(args.envs).resolve(), Path(args.output).resolve()

    service = Service(envs, output, args.concurrency)
    service.start()
    store = StoreReader(output)
    client = RolloutClient(service.url, timeout_sec=600, poll_sec=30, token_file=str(service.token_file))
    version = 1
    client.resume(weight_version=version)
    report = {"harness": args.harness, "steps": [], "stale": 0, "restarted": False, "hold_sec": args.hold_sec}
    submitted: list[str] = []
    try:
        for step in range(1, args.steps + 1):
            task = tasks[(step - 1) % len(tasks)]
            began = time.monotonic()
            sub = client.submit(tasks=str(envs), task_ids=[task], upstream="sim:oracle", harness=args.harness, n=args.n, max_staleness=0)
            ids, group = sub["ids"], sub["groups"][task]
            assert len(ids) == len(set(ids)) == args.n, sub
            submitted += ids
            measured = {"step": step, "task": task, "group": group}
            if step == args.hold_step:
                # the weight update happens while the group runs: its next model calls wait, held, for longer than
                # the harness would retry a refused one
                wait_for_a_call(store, client, ids)
                drained = client.drain(timeout_sec=120, mode="hold", max_hold_sec=args.hold_sec * 4)
                assert drained["drained"], drained
                time.sleep(args.hold_sec)
                version += 1
                client.resume(weight_version=version)
                measured["held_sec"] = args.hold_sec
            if step == args.kill_step:
                wait_for_a_call(store, client, ids)
                service.kill()
                lines = service.start()
                assert service.healthy()
                report["restarted"] = True
                measured["restart"] = "".join(lines[1:]).strip()
            view = client.wait_group(group)
            assert sorted(r["id"] for r in view["rollouts"]) == sorted(ids), f"group {group}: {view['rollouts']} vs {ids}"
            batch: list[dict] = []
            stats = {"tokens": 0, "segments": 0, "stale": 0, "stale_segments": 0, "restarts": 0, "versions": set()}
            for rollout_id in ids:
                plain = client.rollout(rollout_id)
                full = client.rollout(rollout_id, include_stale=True)
                assert full["status"] == "finished" and full["reward"] == 1, f"{rollout_id}: {full['status']} {full['error_type']} {full['error_message']}"
                stats["restarts"] += full["restarts"]
                if full["stale"]:
                    assert full["staleness"] > 0 and "samples" not in plain, plain
                    stats["stale"] += 1
                else:
                    batch += plain["samples"]
                got = check_rollout(store, full, full["samples"])
                assert full["stale"] == (len(got["versions"]) > 1), f"{rollout_id}: stale {full['stale']} with versions {got['versions']}"
                stats["tokens"] += got["tokens"]
                stats["stale_segments"] += got["segments"] if full["stale"] else 0
                stats["segments"] += got["segments"]
                stats["versions"].update(got["versions"])
            keys = [(s["rollout_id"], s["segment"]) for s in batch]
            assert len(keys) == len(set(keys)), f"step {step}: a sample twice in the batch"
            if step == args.hold_step:
                assert stats["stale"] >= 1, f"step {step}: no rollout straddled the held update"
            if step == args.kill_step:
                assert stats["restarts"] >= 1, f"step {step}: no rollout was running when the service was killed"
            # every rollout submitted so far is stored once, and ended once
            jobs = store.jobs()
            assert [j for j, _ in jobs] == submitted and all(s == "finished" for _, s in jobs), jobs
            # between steps: drain, "load the new weights", resume under them
            drained = client.drain(timeout_sec=60, mode="hold")
            assert drained["drained"] and drained["in_flight"] == 0, drained
            version += 1
            client.resume(weight_version=version)
            report["stale"] += stats["stale"]
            measured.update(
                {k: sorted(v) if isinstance(v, set) else v for k, v in stats.items()}, batch_samples=len(batch), sec=round(time.monotonic() - began, 1)
            )
            report["steps"].append(measured)
        # the rollouts of the steps before the restart are answered from the store as they were
        for rollout_id in submitted[: args.n]:
            assert client.rollout(rollout_id)["status"] == "finished"
    finally:
        service.stop()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
