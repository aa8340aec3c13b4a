"""Metrics: 0..1 scores of a getter's result against what is expected, with OSWorld's names and arguments."""
import csv
import difflib
import json
import re
import zipfile

from lxml import etree


def exact_match(result, rules):
    return 1.0 if result == rules["expected"] else 0.0


def fuzzy_match(result, rules):
    return difflib.SequenceMatcher(None, str(result or ""), str(rules["expected"])).ratio()


def literal_match(result, expected, **options):
    kind = options.get("type", "str")
    if kind == "list":
        return 1.0 if list(result or []) == list(expected) else 0.0
    if options.get("ignore_case"):
        return 1.0 if str(result).lower() == str(expected).lower() else 0.0
    return 1.0 if result == expected else 0.0


def check_include_exclude(result, rules):
    if result is None:
        return 0.0
    include = rules.get("include", [])
    exclude = rules.get("exclude", [])
    return 1.0 if all(i in result for i in include) and not any(e in result for e in exclude) else 0.0


def check_direct_json_object(result, rules):
    if isinstance(result, str):
        try:
            result = json.loads(result)
        except ValueError:
            return 0.0
    expected = rules["expected"]
    if not isinstance(result, dict):
        return 0.0
    return 1.0 if all(result.get(k) == v for k, v in expected.items()) else 0.0


def file_contains(path, expected):
    if path is None:
        return 0.0
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    return 1.0 if all(e in text for e in expected) else 0.0


def check_line_number(path, rules):
    if path is None:
        return 0.0
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = [l for l in f.read().splitlines() if l.strip()]
    return 1.0 if str(len(lines)) == str(rules["expected"]) else 0.0


def compare_text_file(result, expected, **options):
    if result is None:
        return 0.0
    a = open(result, encoding="utf-8", errors="replace").read()
    b = open(expected, encoding="utf-8", errors="replace").read()
    if options.get("ignore_blanks"):
        a, b = re.sub(r"\s+", " ", a).strip(), re.sub(r"\s+", " ", b).strip()
    if options.get("ignore_case"):
        a, b = a.lower(), b.lower()
    return 1.0 if a == b else 0.0


def compare_csv(result, expected, **options):
    if result is None:
        return 0.0
    with open(result, newline="", encoding="utf-8", errors="replace") as f:
        a = [row for row in csv.reader(f)]
    with open(expected, newline="", encoding="utf-8", errors="replace") as f:
        b = [row for row in csv.reader(f)]
    return 1.0 if a == b else 0.0


def _sheets(path):
    import openpyxl
    wb = openpyxl.load_workbook(path, data_only=True)
    return wb, [ws.title for ws in wb.worksheets]


def _sheet_values(wb, name):
    ws = wb[name]
    rows = [tuple(c for c in row) for row in ws.iter_rows(values_only=True)]
    while rows and all(v is None for v in rows[-1]):
        rows.pop()
    return [tuple(_norm(v) for v in row) for row in rows]


def _norm(v):
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def _pick(wb, names, ref, other_names=None):
    """OSWorld's sheet references: RN<name>/EN<name> by name, RI<n>/EI<n> by index."""
    kind, key = ref[:2], ref[2:]
    if kind in ("RN", "EN"):
        return key if key in names else None
    idx = int(key)
    return names[idx] if 0 <= idx < len(names) else None


def compare_table(result, expected=None, **options):
    """Sheet data of two workbooks: every sheet by default; rules of type sheet_data compare named/indexed sheets."""
    if result is None:
        return 0.0
    try:
        rwb, rnames = _sheets(result)
    except Exception:
        return 0.0
    if expected is None:
        return 0.0
    ewb, enames = _sheets(expected)
    rules = options.get("rules") or [{"type": "sheet_data", "all": True}]
    for r in rules:
        if r.get("type") not in ("sheet_data", "sheet_print"):
            raise NotImplementedError("compare_table rule %s" % r.get("type"))
        if r.get("all"):
            if rnames != enames:
                return 0.0
            pairs = list(zip(rnames, enames))
        else:
            a = _pick(rwb, rnames, r["sheet_idx0"])
            b = _pick(ewb, enames, r["sheet_idx1"])
            if a is None or b is None:
                return 0.0
            pairs = [(a, b)]
        for a, b in pairs:
            if _sheet_values(rwb, a) != _sheet_values(ewb, b):
                return 0.0
    return 1.0


def compare_docx_files(result, expected, **options):
    if result is None:
        return 0.0
    import docx
    try:
        a = [p.text for p in docx.Document(result).paragraphs]
    except Exception:
        return 0.0
    b = [p.text for p in docx.Document(expected).paragraphs]
    if options.get("ignore_blanks", True):
        a = [t.strip() for t in a if t.strip()]
        b = [t.strip() for t in b if t.strip()]
    if options.get("ignore_case"):
        a, b = [t.lower() for t in a], [t.lower() for t in b]
    return 1.0 if a == b else 0.0


def compare_subscript_contains(result, expected, **options):
    """The text of every subscript run of the expected document is subscript in the result too."""
    if result is None:
        return 0.0
    import docx

    def subscripts(path):
        return [r.text for p in docx.Document(path).paragraphs for r in p.runs if r.font.subscript and r.text]

    try:
        got = subscripts(result)
    except Exception:
        return 0.0
    want = subscripts(expected)
    return 1.0 if want and all(w in got for w in want) else 0.0


def check_moved_jpgs(result, rules):
    """The .jpg names in a folder listing are exactly the expected ones."""
    if result is None:
        return 0.0
    names = result if isinstance(result, list) else list(result)
    return 1.0 if sorted(n for n in names if n.lower().endswith(".jpg")) == sorted(rules["expected"]) else 0.0


def match_in_list(result, rules):
    """The result is one of the expected values."""
    return 1.0 if result in rules["expected"] else 0.0


def is_in_list(result, rules):
    """The expected value is one of the result's."""
    return 1.0 if result is not None and rules["expected"] in result else 0.0


def check_list(path, rules):
    """Every `expect` regex matches some line of the file and no `unexpect` regex matches any."""
    if path is None:
        return 0.0
    expect = [re.compile(p) for p in rules.get("expect", [])]
    unexpect = [re.compile(p) for p in rules.get("unexpect", [])]
    seen = [False] * len(expect)
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            seen = [s or r.search(line) is not None for s, r in zip(seen, expect)]
            if any(r.search(line) for r in unexpect):
                return 0.0
    return 1.0 if all(seen) else 0.0


def _xml_texts(path, members):
    texts = []
    with zipfile.ZipFile(path) as z:
        for name in sorted(n for n in z.namelist() if members(n)):
            root = etree.fromstring(z.read(name))
            for el in root.iter():
                if el.text and el.text.strip() and etree.QName(el).localname in ("t", "p", "span", "h"):
                    texts.append(el.text.strip())
    return texts


def odf_text(path):
    """The text paragraphs of an OpenDocument file (odt, ods, odp)."""
    return _xml_texts(path, lambda n: n == "content.xml")


def compare_pptx_files(result, expected, **options):
    """Slide by slide text of two pptx files (the examine_* options on shapes are not checked)."""
    if result is None:
        return 0.0
    slides = lambda p: _xml_texts(p, lambda n: re.match(r"ppt/slides/slide\d+\.xml$", n) is not None)
    try:
        return 1.0 if slides(result) == slides(expected) else 0.0
    except zipfile.BadZipFile:
        return 0.0


METRICS = {name: fn for name, fn in globals().items() if callable(fn) and not name.startswith("_") and name not in ("odf_text",) and fn.__module__ == __name__}
