"""OSWorld's app commands → the desktop image's, for postconfig `launch` steps (the importer maps setup steps alike)."""
import shlex

CHROMIUM = ["chromium", "--no-sandbox", "--no-first-run", "--password-store=basic"]
APPS = {
    "google-chrome": CHROMIUM,
    "chromium": CHROMIUM,
    "gimp": ["gimp"],
    "libreoffice": ["libreoffice", "--norestore"],
    "soffice": ["libreoffice", "--norestore"],
    "gnome-terminal": ["lxterminal"],
    "nautilus": ["pcmanfm"],
    "gedit": ["mousepad"],
}
# OSWorld's process names → the image's (`pkill chrome` stops Google Chrome there, Chromium here).
PROCESSES = {"chrome": "chromium", "google-chrome": "chromium"}


def local_command(command):
    """The argv to run for an OSWorld launch command (a list or a string); None for a launch not needed here (socat bridges Chrome's debugging port for OSWorld's host)."""
    argv = list(command) if isinstance(command, list) else shlex.split(command)
    if not argv or argv[0] == "socat":
        return None
    if argv[0] == "pkill":
        return ["pkill"] + [PROCESSES.get(a, a) for a in argv[1:]]
    app = APPS.get(argv[0])
    if app is None:
        raise NotImplementedError("postconfig launches %s, which the desktop image does not have" % argv[0])
    return app + [a.replace("/home/user/", "/root/") for a in argv[1:]]
