"""python3 -m osworld_eval.reference <task.json>: puts the desktop in the end state a task's evaluator asks for.

OSWorld publishes no reference solutions. For evaluators whose result is an app's settings file and whose
expected value is a literal rule, that end state follows from the evaluator itself: the importer writes it
as the task's reference solution (after stopping the app, so it cannot write over the file). Each writer
changes only what its metric reads, through the same files the getters read.
"""
import json
import os
import sys

from lxml import etree

from . import chrome, gimp, writer


def _chrome_prefs(update):
    path = chrome.profile_file("Preferences") or os.path.join(chrome.PROFILE_DIRS[-1], "Preferences")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    prefs = {}
    if os.path.exists(path):
        with open(path) as f:
            prefs = json.load(f)
    update(prefs)
    with open(path, "w") as f:
        json.dump(prefs, f)


def _set(prefs, dotted, value):
    *parents, last = dotted.split(".")
    for p in parents:
        prefs = prefs.setdefault(p, {})
    prefs[last] = value


CHROME_PREF = {
    "enable_do_not_track": ("enable_do_not_track", lambda expected: expected == "true"),
    "profile_name": ("profile.name", lambda expected: expected),
    "default_search_engine": ("default_search_provider_data.template_url_data.short_name", lambda expected: expected),
}


def chrome_pref(func, result, rules):
    key, value = CHROME_PREF[result["type"]]
    expected = rules["expected"][0] if func == "match_in_list" else rules["expected"]
    _chrome_prefs(lambda p: _set(p, key, value(expected)))


def chrome_font_size(func, result, rules):
    size = rules["value"] if rules["type"] == "value" else rules["min"] + 4
    _chrome_prefs(lambda p: _set(p, "webkit.webprefs.default_font_size", size))


def gimp_config(func, result, rules):
    os.makedirs(gimp.GIMP_CONFIG_DIR, exist_ok=True)
    key = " ".join(rules["key"]) if isinstance(rules["key"], list) else rules["key"]
    with open(os.path.join(gimp.GIMP_CONFIG_DIR, result["file_name"]), "a") as f:
        f.write("(%s %s)\n" % (key, rules["value"]))


def writer_default_font(func, result, rules):
    path = result["path"].replace("/home/user/", "/root/")
    tree = etree.parse(path)
    oor = "{%s}" % writer.OOR
    item = etree.SubElement(tree.getroot(), "item", {oor + "path": writer.DEFAULT_FONT_PATH})
    prop = etree.SubElement(item, "prop", {oor + "name": "Standard", oor + "op": "fuse"})
    etree.SubElement(prop, "value").text = rules["font_name"]
    tree.write(path, xml_declaration=True, encoding="UTF-8")


def docx_font_names(func, result, rules):
    import docx
    path = result["path"].replace("/home/user/", "/root/")
    doc = docx.Document(path)
    for p in doc.paragraphs:
        for r in p.runs:
            r.font.name = rules["font_name"]
    doc.save(path)


# (metric, result getter) → writer of the end state, given the rule the task expects.
WRITERS = {
    ("exact_match", "enable_do_not_track"): chrome_pref,
    ("exact_match", "profile_name"): chrome_pref,
    ("match_in_list", "default_search_engine"): chrome_pref,
    ("check_font_size", "chrome_font_size"): chrome_font_size,
    ("check_config_status", "gimp_config_file"): gimp_config,
    ("find_default_font", "vm_file"): writer_default_font,
    ("compare_font_names", "vm_file"): docx_font_names,
}


def main():
    with open(sys.argv[1]) as f:
        ev = json.load(f)["evaluator"]
    funcs = ev["func"] if isinstance(ev["func"], list) else [ev["func"]]
    listify = lambda v: v if isinstance(v, list) else [v] * len(funcs)
    for func, result, expected in zip(funcs, listify(ev["result"]), listify(ev["expected"])):
        writer_fn = WRITERS.get((func, result["type"]))
        if writer_fn is None or expected.get("type") != "rule":
            sys.stderr.write("no reference end state for %s on %s\n" % (func, result["type"]))
            return 1
        writer_fn(func, result, expected["rules"])
        print("reference: %s on %s" % (func, result["type"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
