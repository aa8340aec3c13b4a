"""Runs one OSWorld evaluator object and returns its score (see the package's docstring)."""
import json
import os
import re
import shutil
import subprocess
import time
import urllib.parse

from . import apps, chrome, getters, gimp, metrics, writer

GETTERS = {**getters.GETTERS, **chrome.GETTERS, **gimp.GETTERS}
METRICS = {**metrics.METRICS, **chrome.METRICS, **gimp.METRICS, **writer.METRICS}
SUPPORTED_GETTERS = set(GETTERS)
SUPPORTED_METRICS = set(METRICS) | {"infeasible"}
SUPPORTED_POSTCONFIG = {"sleep", "activate_window", "execute", "command", "close_window", "launch", "download"}
# Where the desktop env server records a finished episode (done / fail), for `infeasible`.
FINISHED_FILE = os.environ.get("OPENFORGE_FINISHED_FILE", "/tmp/openforge-finished.json")
PYAUTOGUI_CALL = re.compile(r"pyautogui\.(hotkey|press)\(([^)]*)\)")
PYAUTOGUI_KEYS = {"ctrl": "ctrl", "shift": "shift", "alt": "alt", "enter": "Return", "esc": "Escape", "tab": "Tab"}


def _xdotool_keys(code):
    """pyautogui.hotkey('ctrl', 's') / press('enter') in a postconfig command, replayed with xdotool (never executed as Python)."""
    chords = []
    for kind, args in PYAUTOGUI_CALL.findall(code):
        keys = [PYAUTOGUI_KEYS.get(k, k) for k in re.findall(r"[\"']([^\"']+)[\"']", args)]
        chords.append("+".join(keys) if kind == "hotkey" else keys[0])
    return chords


def run_postconfig(steps):
    for step in steps or []:
        kind, params = step["type"], step.get("parameters", {})
        if kind == "sleep":
            time.sleep(float(params.get("seconds", 0)))
        elif kind == "activate_window":
            subprocess.run(["xdotool", "search", "--name", params["window_name"], "windowactivate", "--sync"], capture_output=True, timeout=20)
        elif kind == "close_window":
            subprocess.run(["xdotool", "search", "--name", params["window_name"], "windowclose"], capture_output=True, timeout=20)
        elif kind == "download":
            for f in params["files"]:
                _place_download(f["url"], f["path"])
        elif kind == "launch":
            argv = apps.local_command(params["command"])
            if argv and argv[0] == "pkill":
                subprocess.run(argv, capture_output=True, timeout=20)
                _wait_gone(argv[-1])
            elif argv:
                subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        elif kind in ("execute", "command"):
            command = params["command"]
            code = command if isinstance(command, str) else " ".join(command)
            if "pyautogui" in code:
                for chord in _xdotool_keys(code):
                    subprocess.run(["xdotool", "key", "--clearmodifiers", chord], capture_output=True, timeout=20)
            else:
                subprocess.run(command, shell=isinstance(command, str) or bool(params.get("shell")), capture_output=True, timeout=120, cwd="/root")
        else:
            raise NotImplementedError("postconfig step %s" % kind)


def _place_download(url, path):
    """A postconfig download the importer carried as tests/cache/postconfig-<file name>, put where the step wants it (relative paths under home)."""
    name = "postconfig-" + urllib.parse.unquote(urllib.parse.urlparse(url).path.rstrip("/").split("/")[-1])
    source = os.path.join(getters.CACHE_DIR, name)
    if not os.path.exists(source):
        raise FileNotFoundError("postconfig download %s was not carried by the task (%s)" % (url, source))
    target = getters._local(path) if os.path.isabs(path) else os.path.join("/root", path)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    shutil.copyfile(source, target)


def _wait_gone(name, timeout=15):
    """After pkill: the app has written its state and exited (a relaunch would otherwise hand over to the dying one)."""
    deadline = time.time() + timeout
    while time.time() < deadline and subprocess.run(["pgrep", name], capture_output=True).returncode == 0:
        time.sleep(0.2)


def _last_action_was_fail():
    try:
        with open(FINISHED_FILE) as f:
            return json.load(f).get("status") == "fail"
    except (OSError, ValueError):
        return False


def _call(func, result_cfg, expected_cfg, options):
    metric = METRICS[func]
    result = GETTERS[result_cfg["type"]](result_cfg)
    if expected_cfg:
        expected = GETTERS[expected_cfg["type"]](expected_cfg)
        return float(metric(result, expected, **(options or {})))
    return float(metric(result, **(options or {})))


def evaluate(evaluator):
    run_postconfig(evaluator.get("postconfig"))
    func = evaluator["func"]
    if func == "infeasible":
        return 1.0 if _last_action_was_fail() else 0.0
    if _last_action_was_fail():
        return 0.0
    if isinstance(func, list):
        n = len(func)
        as_list = lambda v: v if isinstance(v, list) else [v] * n
        results, expecteds, options = as_list(evaluator.get("result")), as_list(evaluator.get("expected")), as_list(evaluator.get("options", {}))
        conj = evaluator.get("conj", "and")
        scores = []
        for i in range(n):
            try:
                score = _call(func[i], results[i], expecteds[i], options[i])
            except FileNotFoundError:
                score = 0.0
            if conj == "and" and score == 0:
                return 0.0
            if conj == "or" and score == 1:
                return 1.0
            scores.append(score)
        return sum(scores) / len(scores) if conj == "and" else max(scores)
    try:
        return _call(func, evaluator["result"], evaluator.get("expected"), evaluator.get("options", {}))
    except FileNotFoundError:
        return 0.0
