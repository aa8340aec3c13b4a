"""The client's rollout statuses against the service's OpenAPI document (dist/, after npm run build)."""

import json
import subprocess
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from openforge_verl import client  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]


def openapi_document() -> dict:
    module = (ROOT / "dist" / "service" / "openapi.js").as_uri()
    script = f"import({json.dumps(module)}).then((m) => process.stdout.write(JSON.stringify(m.OPENAPI)))"
    out = subprocess.run(["node", "-e", script], check=True, capture_output=True, text=True, timeout=60)
    return json.loads(out.stdout)


class ClientStatuses(unittest.TestCase):
    def test_every_openapi_status_is_live_or_ended_for_the_client(self):
        statuses = openapi_document()["components"]["schemas"]["Rollout"]["properties"]["status"]["enum"]
        self.assertIn("cancelled", statuses)
        self.assertEqual(sorted(statuses), sorted(client.LIVE_STATUSES + client.ENDED_STATUSES))
        self.assertFalse(set(client.LIVE_STATUSES) & set(client.ENDED_STATUSES))

    def test_wait_returns_a_cancelled_rollout_and_refuses_an_unknown_status(self):
        answers = iter([{"status": "running"}, {"status": "cancelled", "id": "r"}])
        c = client.RolloutClient("http://127.0.0.1:1", timeout_sec=30, poll_sec=1)
        c._call = lambda *a, **k: next(answers)
        self.assertEqual(c.wait("r")["status"], "cancelled")
        c._call = lambda *a, **k: {"status": "paused"}
        with self.assertRaisesRegex(client.RolloutFailed, "unknown status 'paused'"):
            c.wait("r")


if __name__ == "__main__":
    unittest.main()
