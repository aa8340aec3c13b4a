"""Runs the plugin's client and conversion against a real ``openforge serve`` (Docker, sim upstream).

Needs the built CLI (npm run build) and the images (npm run setup); run from the repository root:
    python3 -m unittest discover -s integrations/verl -t integrations/verl
"""

import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from openforge_verl import RolloutClient, RolloutFailed, output_fields_from_rollout, output_fields_from_sample  # noqa: E402
from tests.standins.make import install, uninstall  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]


def make_task(suite: Path, task_id: str) -> None:
    task = suite / task_id
    for sub in ("tests", "solution", "environment"):
        (task / sub).mkdir(parents=True)
    (task / "task.toml").write_text(f'[task]\nname = "{task_id}"\n[agent]\ntimeout_sec = 60\n')
    (task / "instruction.md").write_text(f"Task {task_id}: write the word done into /workspace/done.txt.\n")
    (task / "environment" / "Dockerfile").write_text("FROM openforge/workspace\n")
    (task / "solution" / "solve.sh").write_text("#!/bin/bash\n# step: look\nls /workspace\n# step: finish\necho done > /workspace/done.txt\n")
    (task / "tests" / "test.sh").write_text(
        '#!/bin/bash\nif [ "$(cat /workspace/done.txt 2>/dev/null)" = done ]; then echo 1; else echo 0; fi > /logs/verifier/reward.txt\n'
    )


class AgainstService(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        tmp = Path(cls.tmp.name)
        cls.suite = tmp / "suite"
        make_task(cls.suite, "py-task")
        port = random.randint(20000, 40000)
        cls.server = subprocess.Popen(
            ["node", str(ROOT / "bin" / "openforge.js"), "serve", "--port", str(port), "--output", str(tmp / "out"), "--tasks-root", str(tmp)],
            stderr=subprocess.PIPE,
            text=True,
        )
        line = cls.server.stderr.readline()
        if "openforge serve: http" not in line:
            raise RuntimeError(f"openforge serve did not start: {line}{cls.server.stderr.read()}")
        cls.base_url = f"http://127.0.0.1:{port}"
        # no --token-file: the service made one, printed it and wrote it beside its store
        token_line = cls.server.stderr.readline()
        cls.token_file = tmp / "out" / "service-token"
        assert token_line.startswith("openforge serve: token "), token_line
        cls.client = RolloutClient(cls.base_url, timeout_sec=180, poll_sec=30, token_file=str(cls.token_file))

    @classmethod
    def tearDownClass(cls):
        cls.server.terminate()
        cls.server.wait(timeout=60)
        cls.tmp.cleanup()

    def test_rollout_becomes_agent_loop_output_fields(self):
        submitted = self.client.submit(tasks=str(self.suite), upstream="sim:oracle", n=2, weight_version=3)
        self.assertEqual(len(submitted["ids"]), 2)
        for rollout_id in submitted["ids"]:
            view = self.client.wait(rollout_id)
            self.assertEqual(view["status"], "finished", view)
            fields = output_fields_from_rollout(view)
            self.assertEqual(fields["reward_score"], 1)
            n = len(fields["response_ids"])
            self.assertGreater(n, 0)
            self.assertEqual(len(fields["response_mask"]), n)
            self.assertEqual(len(fields["response_logprobs"]), n)
            # Three model turns merged into one sample: generated tokens (1) around tool observations (0).
            self.assertIn(0, fields["response_mask"])
            self.assertEqual(fields["response_mask"][0], 1)
            self.assertEqual(fields["response_mask"][-1], 1)
            self.assertTrue(all(lp == 0.0 for lp, m in zip(fields["response_logprobs"], fields["response_mask"]) if m == 0))
            self.assertEqual(fields["extra_fields"]["uid"], "py-task")
            self.assertEqual(fields["extra_fields"]["weight_version"], "3")
            self.assertGreaterEqual(fields["num_turns"], 3)
            cut = output_fields_from_rollout(view, max_response_length=5)
            self.assertEqual(len(cut["response_ids"]), 5)
            self.assertTrue(cut["extra_fields"]["truncated"])

    def test_pause_resume_and_errors(self):
        self.assertEqual(self.client.pause(1), {"paused": True})
        self.assertEqual(self.client.resume(), {"paused": False, "weight_version": None})
        self.assertEqual(self.client.pause(1, mode="hold", max_hold_sec=30), {"paused": True})
        self.assertEqual(self.client.resume(), {"paused": False, "weight_version": None})
        with self.assertRaises(RolloutFailed) as caught:
            self.client.pause(1, mode="wait")
        self.assertIn("mode", str(caught.exception))
        # nothing in flight: drained at once, and paused until resumed
        self.assertEqual(self.client.drain(5), {"paused": True, "drained": True, "in_flight": 0, "pending_records": 0})
        self.assertEqual(self.client.resume(), {"paused": False, "weight_version": None})
        with self.assertRaises(RolloutFailed) as caught:
            self.client.resume(weight_version={"v": 1})
        self.assertIn("weight_version", str(caught.exception))
        with self.assertRaises(RolloutFailed) as caught:
            self.client.drain(timeout_sec=-1)
        self.assertIn("timeout_sec", str(caught.exception))
        with self.assertRaises(RolloutFailed) as caught:
            self.client.submit(tasks="/no/such/suite", upstream="sim:oracle")
        self.assertIn("does not exist", str(caught.exception))
        with self.assertRaises(RolloutFailed):
            self.client.wait("no-such-rollout")

    def test_token_is_required(self):
        with self.assertRaises(RolloutFailed) as caught:
            RolloutClient(self.base_url, token="not-the-token-at-all").pause(1)
        self.assertIn("HTTP 401", str(caught.exception))
        printed = self.token_file.read_text().strip()
        self.assertEqual(RolloutClient(self.base_url, token=printed).resume(), {"paused": False, "weight_version": None})
        os.environ["OPENFORGE_SERVICE_TOKEN"] = printed
        try:
            self.assertEqual(RolloutClient(self.base_url).resume(), {"paused": False, "weight_version": None})
        finally:
            del os.environ["OPENFORGE_SERVICE_TOKEN"]

    def run_agent_loop(self, variant: str, **settings):
        """One dataset row through OpenForgeAgentLoop, under a stand-in of verl's agent-loop module."""
        root = install(variant)
        try:
            from openforge_verl import agent_loop
            from verl.experimental.agent_loop import agent_loop as verl

            config = SimpleNamespace(actor_rollout_ref=SimpleNamespace(rollout=SimpleNamespace(response_length=100_000)))

            async def one_row():
                loop = agent_loop.OpenForgeAgentLoop(
                    trainer_config=verl._DummyConfig(config),
                    server_manager=None,
                    tokenizer=None,
                    processor=None,
                    service_url=self.base_url,
                    tasks=str(self.suite),
                    # chat mode under a real family's template: each call after the first starts a segment
                    upstream="sim:oracle@qwen3",
                    token_file=str(self.token_file),
                    **settings,
                )
                return await loop.run({"temperature": 1.0, "top_p": 1.0, "repetition_penalty": 1.0, "logprobs": True}, extra_info={"task_id": "py-task"})

            return asyncio.run(one_row()), verl
        finally:
            uninstall(root)

    def exported_rows(self, rollout_id: str) -> list[dict]:
        """`openforge export --format verl` of the service's run: the rows of one rollout, in segment order."""
        out = Path(self.tmp.name) / f"export-{rollout_id}.jsonl"
        run_id = json.loads(urllib.request.urlopen(self.base_url + "/health").read())["run_id"]
        subprocess.run(
            ["node", str(ROOT / "bin" / "openforge.js"), "export", str(Path(self.tmp.name) / "out"), "--run", run_id, "--allow-running", "--format", "verl", "--out", str(out)],
            check=True,
            capture_output=True,
        )
        rows = [json.loads(line) for line in out.read_text().splitlines()]
        return sorted((r for r in rows if r["rollout_id"] == rollout_id), key=lambda r: r["segment"])

    def assert_agrees_with_export(self, outputs: list[dict], rows: list[dict]):
        self.assertEqual(len(outputs), len(rows))
        for segment, (got, row) in enumerate(zip(outputs, rows)):
            expected = output_fields_from_sample({"reward": row["reward_score"]}, row, None, len(rows))
            for field in ("prompt_ids", "response_ids", "response_mask", "response_logprobs", "reward_score", "num_turns", "multi_modal_data"):
                self.assertEqual(got[field], expected[field], f"segment {segment}: {field}")
            for key in ("uid", "rollout_id", "openforge_segment", "openforge_segments", "openforge_break_reason", "finish_reason"):
                self.assertEqual(got["extra_fields"][key], expected["extra_fields"][key], f"segment {segment}: {key}")

    def test_agent_loop_returns_every_segment_as_the_export_writes_it(self):
        outputs, verl = self.run_agent_loop("several")
        self.assertIsInstance(outputs, list)
        self.assertGreater(len(outputs), 1)
        for i, output in enumerate(outputs):
            self.assertIsInstance(output, verl.AgentLoopOutput)
            self.assertEqual(output.reward_score, 1)
            self.assertEqual(output.extra_fields["uid"], "py-task")
            self.assertEqual(output.extra_fields["openforge_segment"], i)
            self.assertEqual(len(output.response_ids), len(output.response_mask))
        as_fields = [{**{k: getattr(o, k) for k in ("prompt_ids", "response_ids", "response_mask", "response_logprobs", "reward_score", "num_turns", "multi_modal_data")}, "extra_fields": o.extra_fields} for o in outputs]
        self.assert_agrees_with_export(as_fields, self.exported_rows(outputs[0].extra_fields["rollout_id"]))

    def test_agent_loop_on_a_one_output_verl_writes_every_segment_to_the_side_file(self):
        side = Path(self.tmp.name) / "segments.jsonl"
        output, _ = self.run_agent_loop("single", segments_file=str(side))
        written = [json.loads(line) for line in side.read_text().splitlines()]
        self.assertGreater(len(written), 1)
        self.assertEqual(output.prompt_ids, written[0]["prompt_ids"])
        self.assertEqual(output.extra_fields["openforge_segments_file"], str(side))
        self.assert_agrees_with_export(written, self.exported_rows(output.extra_fields["rollout_id"]))

    def test_conversion_refuses_unfinished_or_empty_rollouts(self):
        with self.assertRaises(ValueError):
            output_fields_from_rollout({"id": "x", "status": "error", "error_type": "build", "error_message": "boom"})
        with self.assertRaises(ValueError):
            output_fields_from_rollout({"id": "x", "status": "finished", "samples": []})


if __name__ == "__main__":
    unittest.main()
