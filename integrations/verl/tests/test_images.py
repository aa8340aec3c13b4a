"""Images in the conversion: a sample's screenshots as bytes in placeholder order, from a rollout view's samples
(data URLs) and from export rows (inline or files beside the export); the agent loop's key for this verl. The same
rows from a real browser run, online and offline, are compared in test/integration/verl-images.test.ts."""

import base64
import importlib.util
import json
import os
import sys
import tempfile
import unittest
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from openforge_verl import image_bytes, output_fields_from_sample, outputs_from_export, outputs_from_rollout  # noqa: E402
from openforge_verl.verl_api import image_key  # noqa: E402
from tests.standins.make import install, uninstall  # noqa: E402

SHOT_A = b"\x89PNG first screenshot"
SHOT_B = b"\x89PNG second screenshot"


def data_url(data: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def sample(images, prompt=(1, 7, 8, 9, 2), response=(5, 6, 7, 8, 9, 4)):
    n = len(response)
    return {
        "rollout_id": "r1",
        "segment": 0,
        "prompt_ids": list(prompt),
        "response_ids": list(response),
        "response_mask": [1] * n,
        "response_logprobs": [-0.5] * n,
        "reward_score": 1.0,
        "num_turns": 2,
        "multi_modal_data": {"image": images} if images else None,
        "extra_fields": {},
    }


class ImageBytes(unittest.TestCase):
    def test_data_urls_become_bytes_in_order_with_their_offsets(self):
        s = sample([{"image": data_url(SHOT_A), "token_offset": 1}, {"image": data_url(SHOT_B), "token_offset": 7}])
        fields = output_fields_from_sample({"id": "r1", "reward": 1.0}, s)
        self.assertEqual(fields["multi_modal_data"], {"image": [SHOT_A, SHOT_B]})
        self.assertEqual(fields["extra_fields"]["openforge_image_offsets"], [1, 7])
        self.assertIsNone(output_fields_from_sample({"id": "r1"}, sample(None))["multi_modal_data"])

    def test_files_are_read_relative_to_the_export(self):
        with tempfile.TemporaryDirectory() as d:
            os.mkdir(os.path.join(d, "train.images"))
            for name, data in (("a.png", SHOT_A), ("b.png", SHOT_B)):
                with open(os.path.join(d, "train.images", name), "wb") as f:
                    f.write(data)
            s = sample([{"image": "train.images/a.png", "token_offset": 1}, {"image": "train.images/b.png", "token_offset": 7}])
            self.assertEqual(image_bytes(s, d), [SHOT_A, SHOT_B])
            with self.assertRaises(ValueError) as caught:
                image_bytes(s)
            self.assertIn("pass images_dir", str(caught.exception))
            with open(os.path.join(d, "train.jsonl"), "w") as f:
                f.write(json.dumps(s) + "\n")
            [fields] = outputs_from_export(os.path.join(d, "train.jsonl"))
            self.assertEqual(fields["multi_modal_data"], {"image": [SHOT_A, SHOT_B]})
            self.assertEqual(fields["reward_score"], 1.0)

    def test_a_url_or_offsets_out_of_order_are_refused_by_name(self):
        with self.assertRaises(ValueError) as caught:
            image_bytes(sample([{"image": "https://example.test/shot.png", "token_offset": None}]))
        self.assertIn("https://example.test/shot.png is a URL the harness sent, not bytes", str(caught.exception))
        with self.assertRaises(ValueError) as caught:
            image_bytes(sample([{"image": data_url(SHOT_A), "token_offset": 7}, {"image": data_url(SHOT_B), "token_offset": 1}]))
        self.assertIn("not in order", str(caught.exception))

    def test_truncation_drops_the_images_whose_placeholder_was_cut(self):
        s = sample([{"image": data_url(SHOT_A), "token_offset": 1}, {"image": data_url(SHOT_B), "token_offset": 7}])
        fields = output_fields_from_sample({"id": "r1"}, s, max_response_length=2)
        self.assertEqual(fields["multi_modal_data"], {"image": [SHOT_A]})
        self.assertEqual(fields["extra_fields"]["openforge_image_offsets"], [1])
        self.assertTrue(fields["extra_fields"]["truncated"])

    def test_a_rollout_view_gives_every_segment_its_images(self):
        view = {
            "id": "r1",
            "status": "finished",
            "reward": 1.0,
            "samples": [sample([{"image": data_url(SHOT_A), "token_offset": 1}, {"image": data_url(SHOT_B), "token_offset": 7}]), {**sample(None), "segment": 1}],
        }
        outputs = outputs_from_rollout(view)
        self.assertEqual([o["multi_modal_data"] for o in outputs], [{"image": [SHOT_A, SHOT_B]}, None])


class ImageKey(unittest.TestCase):
    def key_of(self, source: str) -> str:
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
            f.write(source)
        try:
            return image_key(SimpleNamespace(__file__=f.name))
        finally:
            os.unlink(f.name)

    def test_reads_the_key_this_verl_takes_its_images_from(self):
        newer = 'images = output.multi_modal_data.get("images")\nvideos = output.multi_modal_data.get("videos")\n'
        older = 'images = getattr(output, "multi_modal_data", {}).get("image", None)\n'
        self.assertEqual(self.key_of(newer), "images")
        self.assertEqual(self.key_of(older), "image")
        self.assertEqual(self.key_of("class AgentLoopBase: ...\n"), "images")


class AgentLoopImages(unittest.TestCase):
    def tearDown(self):
        uninstall(self.root)

    def test_open_images_needs_pillow_and_gives_verl_pil_images_under_its_key(self):
        self.root = install("several")
        from openforge_verl.agent_loop import as_json, open_images

        fields = {"prompt_ids": [1], "multi_modal_data": {"image": [SHOT_A]}}
        self.assertIs(open_images({"multi_modal_data": None}, "images")["multi_modal_data"], None)
        # the side file holds the bytes as data URLs, which the conversion reads back
        line = json.loads(json.dumps(as_json(fields)))
        self.assertEqual(image_bytes({**sample(None), "multi_modal_data": line["multi_modal_data"]}), [SHOT_A])
        if importlib.util.find_spec("PIL") is None:
            with self.assertRaises(ImportError) as caught:
                open_images(fields, "images")
            self.assertIn("pip install pillow", str(caught.exception))
            return
        import io

        from PIL import Image

        png = io.BytesIO()
        Image.new("RGB", (4, 3), (200, 10, 10)).save(png, format="PNG")
        opened = open_images({"multi_modal_data": {"image": [png.getvalue()]}}, "images")["multi_modal_data"]["images"]
        self.assertEqual((opened[0].size, opened[0].mode), ((4, 3), "RGB"))


if __name__ == "__main__":
    unittest.main()
