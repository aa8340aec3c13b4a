"""Getters: the state a metric compares, read from this container (OSWorld's "VM") or from the task's files."""
import os
import subprocess

# Files an imported task carries for its cloud_file / cache_file getters (downloaded ahead into tests/cache).
CACHE_DIR = os.environ.get("OSWORLD_CACHE_DIR", "/tests/cache")
HOME_ALIASES = ("/home/user/",)


def _local(path):
    """OSWorld's tasks name the VM user's home /home/user; the desktop image's user is root."""
    for alias in HOME_ALIASES:
        if path.startswith(alias):
            return "/root/" + path[len(alias):]
    return path


def vm_file(config):
    """A file from the desktop: its local path (a list with multi=true); None when it does not exist."""
    if isinstance(config, str):
        config = {"path": config}
    if config.get("multi"):
        paths = [_local(p) for p in config["path"]]
        gives = config.get("gives", list(range(len(paths))))
        return [paths[i] if os.path.exists(paths[i]) else None for i in gives]
    path = _local(config["path"])
    return path if os.path.exists(path) else None


def cloud_file(config):
    """A file the task downloaded ahead (by its dest name) into the cache folder."""
    if config.get("multi"):
        dests = config["dest"]
        gives = config.get("gives", list(range(len(dests))))
        return [os.path.join(CACHE_DIR, dests[i]) for i in gives]
    path = os.path.join(CACHE_DIR, config["dest"])
    if not os.path.exists(path):
        raise FileNotFoundError("cloud_file %s was not carried by the task (%s)" % (config.get("path"), path))
    return path


cache_file = cloud_file


def rule(config):
    return config["rules"]


def vm_command_line(config):
    """stdout of a command run in the desktop from the home folder, as OSWorld's VM server runs it (shell when config["shell"])."""
    command = config["command"]
    shell = bool(config.get("shell", False))
    if isinstance(command, list) and shell:
        command = " ".join(command)
    out = subprocess.run(command, shell=shell, capture_output=True, text=True, timeout=60, cwd="/root")
    return out.stdout


vm_terminal_output = vm_command_line


def content_from_vm_file(config):
    path = vm_file(config)
    if path is None:
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def list_directory(config):
    path = _local(config["path"])
    return sorted(os.listdir(path)) if os.path.isdir(path) else None


def accessibility_tree(config):
    out = subprocess.run(["python3", "/opt/openforge/python/openforge_a11y.py"], capture_output=True, text=True, timeout=60)
    return out.stdout


GETTERS = {
    "vm_file": vm_file,
    "cloud_file": cloud_file,
    "cache_file": cache_file,
    "rule": rule,
    "vm_command_line": vm_command_line,
    "vm_terminal_output": vm_terminal_output,
    "content_from_vm_file": content_from_vm_file,
    "list_directory": list_directory,
    "accessibility_tree": accessibility_tree,
}
