#!/usr/bin/env python3
"""Prints the desktop's accessibility tree (AT-SPI, through pyatspi) as XML in the shape of OSWorld's
`a11y_tree` observation: one element per accessible, its tag the role, with name, states, text, value and
screen coordinates as attributes; with --marks, the set-of-marks candidates as JSON; with --watch, a line per
event that changes the tree, until stopped. Reads the session bus from /tmp/openforge-session.env when the caller
has none (the grader's exec)."""
import os
import sys
import xml.etree.ElementTree as ET

ENV_FILE = "/tmp/openforge-session.env"
MAX_DEPTH = 60
MAX_NODES = 20000


def load_session_env():
    if os.environ.get("DBUS_SESSION_BUS_ADDRESS") or not os.path.exists(ENV_FILE):
        return
    for line in open(ENV_FILE):
        line = line.strip().rstrip(";")
        if line.startswith("export "):
            for pair in line[len("export "):].split():
                if "=" in pair:
                    k, v = pair.split("=", 1)
                    os.environ.setdefault(k, v.strip("'\""))
        elif "=" in line:
            k, v = line.split("=", 1)
            os.environ.setdefault(k, v.strip("'\""))


load_session_env()
import pyatspi  # noqa: E402  (needs the session bus address first)

NS = {"st": "https://accessibility.ubuntu.example.org/ns/state", "attr": "https://accessibility.ubuntu.example.org/ns/attributes",
      "cp": "https://accessibility.ubuntu.example.org/ns/component", "txt": "https://accessibility.ubuntu.example.org/ns/text",
      "val": "https://accessibility.ubuntu.example.org/ns/value"}
count = 0


def children(acc, depth, full=lambda: False):
    """The accessible's children that can be read; none below MAX_DEPTH, none once MAX_NODES were visited or full()."""
    if depth >= MAX_DEPTH:
        return
    for i in range(acc.childCount):
        if count >= MAX_NODES or full():
            return
        try:
            child = acc.getChildAtIndex(i)
        except Exception:
            continue
        if child is not None:
            yield child


def box(acc):
    """(x, y, width, height) on the screen, or None when the accessible has no component."""
    try:
        comp = acc.queryComponent()
        x, y = comp.getPosition(pyatspi.DESKTOP_COORDS)
        w, h = comp.getSize()
        return x, y, w, h
    except Exception:
        return None


def tag_of(role_name):
    tag = "".join(c if c.isalnum() else "-" for c in role_name.strip()) or "unknown"
    return tag if tag[0].isalpha() else "n-" + tag


def node(acc, depth):
    global count
    count += 1
    el = ET.Element(tag_of(acc.getRoleName()), {"name": acc.name or ""})
    try:
        for state in acc.getState().getStates():
            el.set("{%s}%s" % (NS["st"], pyatspi.stateToString(state)), "true")
    except Exception:
        pass
    b = box(acc)
    if b:
        el.set("{%s}screencoord" % NS["cp"], "(%d, %d)" % b[:2])
        el.set("{%s}size" % NS["cp"], "(%d, %d)" % b[2:])
    try:
        text = acc.queryText()
        content = text.getText(0, min(text.characterCount, 4000))
        if content:
            el.text = content
    except Exception:
        pass
    try:
        el.set("{%s}value" % NS["val"], str(acc.queryValue().currentValue))
    except Exception:
        pass
    for child in children(acc, depth):
        el.append(node(child, depth + 1))
    return el


# Roles a pointer or keyboard acts on: the set-of-marks candidates (OSWorld tags the same kinds of nodes).
MARK_ROLES = {"push button", "toggle button", "check box", "radio button", "menu item", "check menu item", "radio menu item",
              "menu", "combo box", "text", "entry", "password text", "spin button", "slider", "link", "page tab", "list item",
              "table cell", "tree item", "icon", "scroll bar", "tool bar button", "split button", "document text",
              "document spreadsheet", "document presentation", "paragraph", "heading"}
MAX_MARKS = 300


def collect_marks(acc, depth, out, screen):
    global count
    count += 1
    try:
        states = acc.getState()
        showing = states.contains(pyatspi.STATE_SHOWING) and states.contains(pyatspi.STATE_VISIBLE)
    except Exception:
        showing = False
    if not showing and depth > 1:
        return
    role = acc.getRoleName()
    b = box(acc) if role in MARK_ROLES else None
    if b:
        x, y, w, h = b
        if w > 0 and h > 0 and x < screen[0] and y < screen[1] and x + w > 0 and y + h > 0:
            x0, y0 = max(0, x), max(0, y)
            out.append({"role": role, "name": (acc.name or "")[:200], "x": x0, "y": y0,
                        "width": min(x + w, screen[0]) - x0, "height": min(y + h, screen[1]) - y0})
    for child in children(acc, depth, lambda: len(out) >= MAX_MARKS):
        collect_marks(child, depth + 1, out, screen)


def apps():
    desktop = pyatspi.Registry.getDesktop(0)
    return children(desktop, 0)


def main_marks(width, height):
    """The set-of-marks candidates on screen as a JSON list of {role, name, x, y, width, height}."""
    import json
    out = []
    for app in apps():
        collect_marks(app, 1, out, (width, height))
    sys.stdout.write(json.dumps(out))


def main():
    for prefix, uri in NS.items():
        ET.register_namespace(prefix, uri)
    root = ET.Element("desktop-frame", {"name": "main"})
    for app in apps():
        root.append(node(app, 1))
    sys.stdout.write(ET.tostring(root, encoding="unicode"))


# The events that change the tree: the env server settles once these have been quiet (and the screen undamaged).
# Of the state changes only showing (menus, dialogs, panes appearing): listening to all of them makes GTK apps send
# some on every keystroke, and a keystroke's screen change lands about 15 ms later.
WATCHED_EVENTS = ("object:children-changed", "object:property-change", "object:state-changed:showing")


def main_watch():
    """One line per AT-SPI event that changes the tree, until stdout closes."""
    def on_event(_event):
        try:
            sys.stdout.write("e\n")
            sys.stdout.flush()
        except (BrokenPipeError, OSError):
            os._exit(0)
    pyatspi.Registry.registerEventListener(on_event, *WATCHED_EVENTS)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    pyatspi.Registry.start()


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--marks":
        main_marks(int(sys.argv[2]), int(sys.argv[3]))
    elif len(sys.argv) == 2 and sys.argv[1] == "--watch":
        main_watch()
    else:
        main()
