"""The plugin's reading of OPENFORGE_UPSTREAM: one inference server, or several (replicas)."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from openforge_verl import upstream_fields  # noqa: E402


class UpstreamFields(unittest.TestCase):
    def test_one_server_is_the_upstream_alone(self):
        self.assertEqual(upstream_fields("http://10.0.0.1:8000/v1"), {"upstream": "http://10.0.0.1:8000/v1"})

    def test_more_servers_are_its_replicas(self):
        expected = {"upstream": "http://a:8000/v1", "replicas": ["http://b:8000/v1", "http://c:8000/v1"]}
        self.assertEqual(upstream_fields("http://a:8000/v1, http://b:8000/v1,http://c:8000/v1,"), expected)
        self.assertEqual(upstream_fields(["http://a:8000/v1", "http://b:8000/v1", "http://c:8000/v1"]), expected)

    def test_nothing_names_the_setting(self):
        with self.assertRaisesRegex(ValueError, "OPENFORGE_UPSTREAM"):
            upstream_fields(" , ")


if __name__ == "__main__":
    unittest.main()
