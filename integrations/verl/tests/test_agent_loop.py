"""openforge_verl.agent_loop imported and run against stand-ins shaped like verl's agent-loop module
(tests/standins): registration, a verl that lacks a symbol, the segments setting, the sampling settings.
The same loop against a real ``openforge serve`` is in test_against_service.py."""

import asyncio
import importlib
import sys
import tempfile
import unittest
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import openforge_verl  # noqa: E402
from openforge_verl.verl_api import VerlMismatch  # noqa: E402
from tests.standins.make import install, uninstall  # noqa: E402


def trainer_config(response_length=64):
    return SimpleNamespace(actor_rollout_ref=SimpleNamespace(rollout=SimpleNamespace(response_length=response_length)))


async def make_loop(verl_module, cls, **kwargs):
    """An agent loop as verl's worker makes one (hydra passes the yaml's keys as keyword arguments)."""
    return cls(trainer_config=verl_module._DummyConfig(trainer_config()), server_manager=None, tokenizer=None, processor=None, **kwargs)


SETTINGS = {"service_url": "http://127.0.0.1:9", "tasks": "/suite", "upstream": "http://a/v1,http://b/v1", "token": "t" * 20}


class WithVerl(unittest.TestCase):
    def tearDown(self):
        uninstall(self.root)

    def test_registers_and_reads_its_settings_with_several_outputs(self):
        self.root = install("several")
        from openforge_verl import agent_loop
        from verl.experimental.agent_loop import agent_loop as verl

        self.assertEqual(verl._agent_loop_registry["openforge_agent"], {"_target_": "openforge_verl.agent_loop.OpenForgeAgentLoop"})
        self.assertIs(openforge_verl.OpenForgeAgentLoop, agent_loop.OpenForgeAgentLoop)
        self.assertTrue(issubclass(agent_loop.OpenForgeAgentLoop, verl.AgentLoopBase))
        loop = asyncio.run(make_loop(verl, agent_loop.OpenForgeAgentLoop, **SETTINGS))
        self.assertEqual(loop.segments_mode, "list")
        self.assertEqual(loop.upstreams, {"upstream": "http://a/v1", "replicas": ["http://b/v1"]})
        self.assertEqual(loop.max_response_length, 64)

    def test_one_output_verl_needs_the_side_file(self):
        self.root = install("single")
        from openforge_verl import agent_loop
        from verl.experimental.agent_loop import agent_loop as verl

        with self.assertRaises(ValueError) as caught:
            asyncio.run(make_loop(verl, agent_loop.OpenForgeAgentLoop, **SETTINGS))
        self.assertIn("set segments_file (OPENFORGE_SEGMENTS_FILE)", str(caught.exception))
        agent_loop.OpenForgeAgentLoop._class_initialized = False
        with self.assertRaises(ValueError) as caught:
            asyncio.run(make_loop(verl, agent_loop.OpenForgeAgentLoop, segments="list", **SETTINGS))
        self.assertIn("returns one AgentLoopOutput", str(caught.exception))
        agent_loop.OpenForgeAgentLoop._class_initialized = False
        with tempfile.NamedTemporaryFile(suffix=".jsonl") as f:
            loop = asyncio.run(make_loop(verl, agent_loop.OpenForgeAgentLoop, segments_file=f.name, **SETTINGS))
            self.assertEqual((loop.segments_mode, loop.segments_file), ("file", f.name))

    def test_a_verl_lacking_a_symbol_fails_at_registration_naming_it(self):
        self.root = install("lacking")
        with self.assertRaises(VerlMismatch) as caught:
            importlib.import_module("openforge_verl.agent_loop")
        self.assertIn("has no AgentLoopOutput", str(caught.exception))
        with self.assertRaises(VerlMismatch):
            openforge_verl.OpenForgeAgentLoop  # noqa: B018

    def test_no_verl_at_all_names_the_module(self):
        self.root = install("several")
        uninstall(self.root)
        self.root = Path(tempfile.mkdtemp())
        sys.path.insert(0, str(self.root))
        with self.assertRaises(VerlMismatch) as caught:
            importlib.import_module("openforge_verl.agent_loop")
        self.assertIn("verl.experimental.agent_loop.agent_loop, which cannot be imported", str(caught.exception))

    def test_sampling_settings_are_forwarded(self):
        self.root = install("several")
        from openforge_verl.agent_loop import sampling_request

        verl_params = {"temperature": 0.7, "top_p": 0.9, "top_k": -1, "repetition_penalty": 1.0, "logprobs": True, "min_p": None}
        self.assertEqual(sampling_request(verl_params), {"temperature": 0.7, "top_p": 0.9, "top_k": -1, "repetition_penalty": 1.0})
        full = {"max_tokens": 512, "stop": ["</s>"], "presence_penalty": 0.1, "frequency_penalty": 0.2, "seed": 7, "min_p": 0.05, "logprobs": 5}
        self.assertEqual(sampling_request(full), full)



class StaleRollout(unittest.TestCase):
    def test_a_stale_rollout_without_samples_is_named_so(self):
        from openforge_verl import output_fields_from_rollout

        view = {"id": "r1", "status": "finished", "reward": 1.0, "stale": True, "staleness": 3}
        with self.assertRaises(ValueError) as caught:
            output_fields_from_rollout(view, max_response_length=16)
        self.assertIn("stale", str(caught.exception))
        self.assertIn("3 weight updates", str(caught.exception))
        self.assertIn("include_stale", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
