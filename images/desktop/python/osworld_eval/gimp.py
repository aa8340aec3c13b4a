"""GIMP's state as OSWorld's GIMP getters and metrics read it: its gimprc, and the images it exports."""
import os

from PIL import Image

GIMP_CONFIG_DIR = "/root/.config/GIMP/2.10"


def gimp_config_file(config):
    """A file of GIMP's user config folder (gimprc, sessionrc, ...); None when GIMP has not written it."""
    path = os.path.join(GIMP_CONFIG_DIR, config["file_name"])
    return path if os.path.exists(path) else None


GETTERS = {"gimp_config_file": gimp_config_file}


def check_config_status(path, rule):
    """A line `(key ... value)` of the config file: the first word is the key (or the first two, when the key is a pair) and the last the value."""
    if path is None:
        return 0.0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            words = line.strip().lstrip("(").rstrip(")").split()
            key = rule["key"]
            if isinstance(key, str) and words[0] == key and words[-1] == rule["value"]:
                return 1.0
            if isinstance(key, list) and len(key) == 2 and words[:2] == key and words[-1] == rule["value"]:
                return 1.0
    return 0.0


def check_image_size(path, rule):
    """The image's width/height as the rule gives them; with ignore_transparent, those of its opaque content."""
    if path is None:
        return 0.0
    img = Image.open(path)
    width, height = img.size
    if (rule.get("ignore_transparent") and img.mode in ("RGBA", "LA")) or "transparency" in img.info:
        box = img.convert("RGBA").split()[-1].getbbox()
        width, height = (0, 0) if box is None else (box[2] - box[0], box[3] - box[1])
    if rule.get("height") is not None and height != rule["height"]:
        return 0.0
    if rule.get("width") is not None and width != rule["width"]:
        return 0.0
    return 1.0


METRICS = {"check_config_status": check_config_status, "check_image_size": check_image_size}
