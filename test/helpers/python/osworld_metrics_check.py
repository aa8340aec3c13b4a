"""Runs inside the desktop image: osworld_eval metrics on a wrong and a right input, files made by the real apps
where they make them (Chromium's profile, LibreOffice's user profile and its docx export) and by the libraries
graders use elsewhere. Prints {"<metric>": {"wrong": score, "right": score}, ...} as JSON."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, "/opt/openforge/python")
from osworld_eval import chrome, gimp, metrics, reference, runner, writer  # noqa: E402

out = {}
work = tempfile.mkdtemp()


def pair(name, wrong, right):
    out[name] = {"wrong": float(wrong), "right": float(right)}


def chromium_session(seconds=6, deadline=120):
    """A real Chromium run on the default profile (headless), ended by SIGTERM so it writes its Preferences; on a
    loaded machine it is given until its profile has Preferences (or the deadline) before it is ended."""
    p = subprocess.Popen(CHROMIUM + ["--headless=new", "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(seconds)
    until = time.time() + deadline
    while chrome.profile_file("Preferences") is None and time.time() < until:
        time.sleep(0.5)
    p.terminate()
    p.wait(timeout=120)


# headless Chromium takes a throwaway profile unless told the default one
CHROMIUM = ["chromium", "--no-sandbox", "--no-first-run", "--password-store=basic", "--user-data-dir=/root/.config/chromium"]
chromium_session()
prefs_written = chrome.profile_file("Preferences") is not None

task = lambda func, rtype, rules: {"evaluator": {"func": func, "result": {"type": rtype}, "expected": {"type": "rule", "rules": rules}}}


def run_reference(doc):
    path = os.path.join(work, "task.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    subprocess.run([sys.executable, "-m", "osworld_eval.reference", path], check=True, capture_output=True)


def chrome_case(name, func, rtype, rules):
    metric = runner.METRICS[func]
    wrong = metric(runner.GETTERS[rtype]({}), rules)
    run_reference(task(func, rtype, rules))
    chromium_session(4)  # Chromium keeps the written value across a run of its own
    pair(name, wrong, metric(runner.GETTERS[rtype]({}), rules))


chrome_case("exact_match/enable_do_not_track", "exact_match", "enable_do_not_track", {"expected": "true"})
chrome_case("exact_match/profile_name", "exact_match", "profile_name", {"expected": "Thomas"})
chrome_case("match_in_list/default_search_engine", "match_in_list", "default_search_engine", {"expected": ["Microsoft Bing", "Bing"]})
chrome_case("check_font_size", "check_font_size", "chrome_font_size", {"type": "range", "min": 16, "max": 99999})
bm = {"bookmark_bar": {"children": [{"type": "folder", "name": "Favorites", "children": []}, {"type": "url", "name": "x", "url": "https://example.org/"}]}}
pair("is_expected_bookmarks", chrome.is_expected_bookmarks(bm, {"type": "bookmark_bar_folders_names", "names": ["Work"]}),
     chrome.is_expected_bookmarks(bm, {"type": "bookmark_bar_folders_names", "names": ["Favorites"]}))

# GIMP: a gimprc as GIMP writes it (a comment header, one setting a line)
gimprc = os.path.join(work, "gimprc")
with open(gimprc, "w") as f:
    f.write("# GIMP gimprc\n\n(undo-levels 5)\n(theme \"Dark\")\n")
rule = {"key": "undo-levels", "value": "100"}
wrong = gimp.check_config_status(gimprc, rule)
with open(gimprc, "a") as f:
    f.write("(undo-levels 100)\n")
pair("check_config_status", wrong, gimp.check_config_status(gimprc, rule))

from PIL import Image  # noqa: E402

img = Image.new("RGBA", (800, 700), (0, 0, 0, 0))
img.paste((200, 120, 40, 255), (100, 50, 100 + 400, 50 + 512))
img.save(os.path.join(work, "right.png"))
Image.new("RGB", (600, 700), (200, 120, 40)).save(os.path.join(work, "wrong.png"))
size_rule = {"height": 512, "ignore_transparent": True}
pair("check_image_size", gimp.check_image_size(os.path.join(work, "wrong.png"), size_rule), gimp.check_image_size(os.path.join(work, "right.png"), size_rule))

# Writer: the image's own registrymodifications.xcu, then with the default font the reference writes; LibreOffice still loads it
xcu = os.path.join(work, "registrymodifications.xcu")
shutil.copy("/root/.config/libreoffice/4/user/registrymodifications.xcu", xcu)
font = {"font_name": "Times New Roman"}
wrong = writer.find_default_font(xcu, font)
reference.writer_default_font("find_default_font", {"path": xcu}, font)
pair("find_default_font", wrong, writer.find_default_font(xcu, font))

import docx  # noqa: E402

src = os.path.join(work, "zoo.docx")
d = docx.Document()
for text in ["Dublin Zoo", "It opened in 1831."]:
    d.add_paragraph().add_run(text).font.name = "Arial"
d.save(src)
wrong = writer.compare_font_names(src, font)
reference.docx_font_names("compare_font_names", {"path": src}, font)
# through LibreOffice: the fonts survive its docx export, as when a user saves in Writer
subprocess.run(["soffice", "--headless", "--norestore", "--convert-to", "docx:MS Word 2007 XML", "--outdir", os.path.join(work, "lo"), src],
               check=True, capture_output=True, timeout=180)
pair("compare_font_names", wrong, writer.compare_font_names(os.path.join(work, "lo", "zoo.docx"), font))

# Calc: compare_table's sheet references (a bare integer is the result's sheet by index; RI/EI pick the workbook)
from openpyxl import Workbook  # noqa: E402


def workbook(name, sheets):
    wb = Workbook()
    for i, (title, rows) in enumerate(sheets):
        ws = wb.active if i == 0 else wb.create_sheet()
        ws.title = title
        for row in rows:
            ws.append(row)
    path = os.path.join(work, name)
    wb.save(path)
    return path


expected_book = workbook("expected.xlsx", [("Sheet1", [["Name", "Total"], ["a", 3]])])
right_book = workbook("right.xlsx", [("Data", [["Name", "Total"], ["a", 3]]), ("Copy", [["Name", "Total"], ["a", 3]])])
wrong_book = workbook("wrong.xlsx", [("Data", [["Name", "Total"], ["a", 4]]), ("Copy", [["Name", "Total"], ["a", 3]])])
by_int = {"rules": [{"type": "sheet_data", "sheet_idx0": 0, "sheet_idx1": "EI0"}]}
pair("compare_table/integer sheet index", metrics.compare_table(wrong_book, expected_book, **by_int), metrics.compare_table(right_book, expected_book, **by_int))
within = {"rules": [{"type": "sheet_data", "sheet_idx0": "RI0", "sheet_idx1": "RNCopy"}]}
pair("compare_table/two sheets of the result", metrics.compare_table(wrong_book, expected_book, **within), metrics.compare_table(right_book, expected_book, **within))

# Writer: compare_docx_files with OSWorld's options (by default the whole text, runs of whitespace as one space)
def document(name, paragraphs):
    d = docx.Document()
    for text in paragraphs:
        d.add_paragraph(text)
    path = os.path.join(work, name)
    d.save(path)
    return path


expected_doc = document("expected.docx", ["Dublin Zoo", "It opened in 1831."])
resplit_doc = document("resplit.docx", ["Dublin Zoo  It opened", "in 1831.", ""])
reordered_doc = document("reordered.docx", ["It opened in 1831.", "Dublin Zoo"])
pair("compare_docx_files/ignore_blanks", metrics.compare_docx_files(reordered_doc, expected_doc), metrics.compare_docx_files(resplit_doc, expected_doc))
in_order = {"ignore_blanks": False}
pair("compare_docx_files/ignore_order", metrics.compare_docx_files(reordered_doc, expected_doc, **in_order),
     metrics.compare_docx_files(reordered_doc, expected_doc, ignore_order=True, **in_order))
out["compare_docx_files/fuzzy_match"] = metrics.compare_docx_files(document("typo.docx", ["Dublin Zoo", "It opened in 1832."]), expected_doc, fuzzy_match=True)

# compare_csv: lines as written (OSWorld does not parse the csv), strict by default, any of several expected files
def text_file(name, text):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(text)
    return path


expected_csv = text_file("expected.csv", "name,total\na,3\n")
quoted_csv = text_file("quoted.csv", '"name","total"\n"a",3\n')
padded_csv = text_file("padded.csv", "name,total \na,3\n")
pair("compare_csv/lines as written", metrics.compare_csv(quoted_csv, expected_csv), metrics.compare_csv(padded_csv, [quoted_csv, expected_csv], strict=False))

# compare_subscript_contains: a run subscript in both documents at the same place
def subscripted(name, sub):
    d = docx.Document()
    p = d.add_paragraph()
    p.add_run("H")
    p.add_run("2").font.subscript = sub
    p.add_run("O")
    path = os.path.join(work, name)
    d.save(path)
    return path


pair("compare_subscript_contains", metrics.compare_subscript_contains(subscripted("plain.docx", False), subscripted("gold.docx", True)),
     metrics.compare_subscript_contains(subscripted("sub.docx", True), subscripted("gold2.docx", True)))

# The general metrics with OSWorld's semantics
pair("literal_match", metrics.literal_match("3 ", "3") + metrics.literal_match(["a", "b"], ["a"], type="list"),
     metrics.literal_match(3, "3") * metrics.literal_match([1, "B"], ["1", "b"], type="list", ignore_case=True))
pair("check_direct_json_object", metrics.check_direct_json_object("{'a': 'x'}", {"expected": {"a": "y"}}),
     metrics.check_direct_json_object("{'a': 'x'}", {"expected": {"a": "x"}}))
pair("check_direct_json_object/expect_in_result",
     metrics.check_direct_json_object({"k": "hello world"}, {"expected": {"k": "bye"}, "expect_in_result": True}),
     metrics.check_direct_json_object({"k": "hello world", "l": ["x", "y"]}, {"expected": {"k": "world", "l": ["z", "y"]}, "expect_in_result": True}))
notes = text_file("notes.txt", "alpha\n")
pair("file_contains", metrics.file_contains(notes, {"expected": ["beta"]}), metrics.file_contains(notes, {"expected": ["alpha"]}))
log = text_file("times.log", "started 09:15:02\nno time here\nended 23:59:60\n")
pair("check_line_number", metrics.check_line_number(log, {"expected": "3"}), metrics.check_line_number(log, {"expected": "2"}))
pair("check_moved_jpgs", metrics.check_moved_jpgs(["a.jpg", "b.jpg", "notes.txt"], {"expected": ["a.jpg", "b.jpg"]}),
     metrics.check_moved_jpgs({"children": [{"name": "b.jpg"}, {"name": "a.jpg"}]}, {"expected": ["a.jpg", "b.jpg"]}))

pair("match_in_list", metrics.match_in_list("Google", {"expected": ["Bing"]}), metrics.match_in_list("Bing", {"expected": ["Microsoft Bing", "Bing"]}))
pair("is_in_list", metrics.is_in_list(["/root/a"], {"expected": "/root/b"}), metrics.is_in_list(["/root/a", "/root/b"], {"expected": "/root/b"}))
listing = os.path.join(work, "gsettings.out")
with open(listing, "w") as f:
    f.write("'Adwaita'\n")
wrong = metrics.check_list(listing, {"expect": ["Orchis"], "unexpect": ["Adwaita-dark"]})
with open(listing, "w") as f:
    f.write("'Orchis-Dark'\n")
pair("check_list", wrong, metrics.check_list(listing, {"expect": ["Orchis"], "unexpect": ["Adwaita"]}))

# A postconfig download the importer carried (tests/cache/postconfig-<name>), put in place and run from home, as OSWorld's os tasks do
from osworld_eval import getters  # noqa: E402

getters.CACHE_DIR = work
with open(os.path.join(work, "postconfig-eval it.sh"), "w") as f:
    f.write("test -d /root/done && echo ok\n")
url = "https://huggingface.co/datasets/xlangai/ubuntu_osworld_file_cache/resolve/main/os/0000/eval%20it.sh"
evaluator = {
    "postconfig": [{"type": "download", "parameters": {"files": [{"url": url, "path": "eval.sh"}]}}],
    "func": "check_include_exclude",
    "result": {"type": "vm_command_line", "command": "bash eval.sh", "shell": True},
    "expected": {"type": "rule", "rules": {"include": ["ok"], "exclude": []}},
}
wrong = runner.evaluate(evaluator)
os.makedirs("/root/done")
pair("postconfig download + check_include_exclude", wrong, runner.evaluate(evaluator))

out["_chromium_wrote_preferences"] = prefs_written
print(json.dumps(out))
