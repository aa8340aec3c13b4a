"""Metrics: 0..1 scores of a getter's result against what is expected, with OSWorld's names and arguments."""
import json
import os
import re
import zipfile

from lxml import etree


def exact_match(result, rules):
    return 1.0 if result == rules["expected"] else 0.0


def _lcs_length(a, b):
    """Length of the longest common subsequence, bit-parallel over the characters of a (Hyyrö's recurrence)."""
    if not a or not b:
        return 0
    masks = {}
    for i, ch in enumerate(a):
        masks[ch] = masks.get(ch, 0) | (1 << i)
    full = (1 << len(a)) - 1
    row = full
    for ch in b:
        matches = row & masks.get(ch, 0)
        row = ((row + matches) | (row - matches)) & full
    return len(a) - bin(row).count("1")


def similarity(a, b):
    """OSWorld's fuzz.ratio / 100 (rapidfuzz): the normalised Indel similarity, 2·LCS / (len a + len b)."""
    a, b = str(a), str(b)
    if not a and not b:
        return 1.0
    return 2.0 * _lcs_length(a, b) / (len(a) + len(b))


def fuzzy_match(result, rules):
    return similarity(result or "", rules["expected"])


def literal_match(result, expected, **options):
    """OSWorld's: `type` str compares the text of both (`ignore_case`), list the text of each item, same length."""
    kind = options.get("type", "str")
    fold = (lambda t: t.lower()) if options.get("ignore_case") else (lambda t: t)
    if kind == "str":
        return 1.0 if fold(str(result)) == fold(str(expected)) else 0.0
    if kind == "list":
        if not isinstance(result, (list, tuple)) or not isinstance(expected, (list, tuple)) or len(result) != len(expected):
            return 0.0
        return 1.0 if [fold(str(x)) for x in result] == [fold(str(x)) for x in expected] else 0.0
    raise NotImplementedError("literal_match type %s" % kind)


def check_include_exclude(result, rules):
    if result is None:
        return 0.0
    include = rules.get("include", [])
    exclude = rules.get("exclude", [])
    return 1.0 if all(i in result for i in include) and not any(e in result for e in exclude) else 0.0


def check_direct_json_object(result, rules):
    """OSWorld's: a JSON object (a string is read with its single quotes as double) holds the expected values; with
    `expect_in_result`, a list of expected values is matched by any one and an expected string is found inside."""
    try:
        if isinstance(result, str):
            result = json.loads(result.strip().replace("'", '"'))
        if not isinstance(result, dict):
            return 0.0
        expected = rules.get("expected", {})
        if any(v == "__EVALUATION_FAILED__" for v in expected.values()):
            return 0.0
        if not rules.get("expect_in_result", False):
            for key, want in expected.items():
                got = result.get(key)
                if expected.get("ignore_list_order", False):
                    want, got = sorted(want), sorted(got)
                if want != got:
                    return 0.0
            return 1.0
        for key, want in expected.items():
            got = result.get(key)
            if isinstance(want, list):
                if not any((isinstance(got, list) and w in got) or (isinstance(got, str) and w == got) for w in want):
                    return 0.0
            elif isinstance(want, str):
                if want not in got:
                    return 0.0
            else:
                return 0.0
        return 1.0
    except Exception:
        return 0.0


def file_contains(path, config):
    """Every string of config["expected"] is in the file's text."""
    if not path:
        return 0.0
    try:
        with open(path) as f:
            text = f.read()
    except (OSError, UnicodeDecodeError):
        return 0.0
    return 1.0 if all(e in text for e in config["expected"]) else 0.0


_CLOCK_TIME = re.compile(r"([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)")


def check_line_number(path, rules):
    """OSWorld's: the number of lines holding a clock time (hh:mm:ss) is the expected number."""
    if path is None or not os.path.isfile(path):
        return 0.0
    try:
        with open(path) as f:
            count = sum(1 for line in f if _CLOCK_TIME.search(line))
        return 1.0 if count == int(rules["expected"]) else 0.0
    except (OSError, UnicodeDecodeError, ValueError):
        return 0.0


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


def _lines(path):
    """A text file's lines, in the first of OSWorld's encodings that reads it."""
    for encoding in ("utf-8", "utf-8-sig", "latin-1"):
        try:
            with open(path, encoding=encoding) as f:
                return f.read().splitlines()
        except UnicodeDecodeError:
            continue
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read().splitlines()


def compare_csv(result, expected, **options):
    """Line by line, as OSWorld compares csv files: `strict` (default on) keeps each line's surrounding blanks,
    `ignore_case`; several expected files pass when any of them matches."""
    if result is None:
        return 0.0
    try:
        got = _lines(result)
    except OSError:
        return 0.0
    norm = lambda lines: [(l if options.get("strict", True) else l.strip()) for l in lines]
    fold = (lambda lines: [l.lower() for l in lines]) if options.get("ignore_case") else (lambda lines: lines)
    for path in [expected] if isinstance(expected, str) else list(expected or []):
        try:
            want = _lines(path)
        except OSError:
            continue
        if fold(norm(got)) == fold(norm(want)):
            return 1.0
    return 0.0


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


def _sheet(ref, result, expected):
    """OSWorld's sheet references, as (workbook, sheet name) or None: RI<n>/RN<name> the result's sheet by index or
    name, EI<n>/EN<name> the expected workbook's; a bare integer is the result's sheet by index."""
    if isinstance(ref, int):
        (wb, names), kind, key = result, "I", ref
    elif isinstance(ref, str) and len(ref) > 2 and ref[0] in "RE" and ref[1] in "IN":
        (wb, names), kind, key = (result if ref[0] == "R" else expected), ref[1], ref[2:]
    else:
        raise ValueError("compare_table: sheet reference %r is not RI<n>, RN<name>, EI<n>, EN<name> or an integer" % (ref,))
    if kind == "N":
        return (wb, key) if key in names else None
    idx = int(key)
    return (wb, names[idx]) if 0 <= idx < len(names) else None


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
            pairs = [((rwb, a), (ewb, b)) for a, b in zip(rnames, enames)]
        else:
            a = _sheet(r["sheet_idx0"], (rwb, rnames), (ewb, enames))
            b = _sheet(r["sheet_idx1"], (rwb, rnames), (ewb, enames))
            if a is None or b is None:
                return 0.0
            pairs = [(a, b)]
        for a, b in pairs:
            if _sheet_values(*a) != _sheet_values(*b):
                return 0.0
    return 1.0


def compare_docx_files(result, expected, **options):
    """Paragraph text of two docx files with OSWorld's options: ignore_blanks (default on: the whole text with runs of
    whitespace as one space), ignore_case, ignore_order, delete_empty_lines, content_only and fuzzy_match (similarity)."""
    if not result or not expected:
        return 0.0
    import docx

    try:
        a = [p.text for p in docx.Document(result).paragraphs]
        b = [p.text for p in docx.Document(expected).paragraphs]
    except Exception:
        return 0.0
    if options.get("ignore_order"):
        a, b = sorted(a), sorted(b)
    if options.get("delete_empty_lines"):
        a, b = [t for t in a if t.strip()], [t for t in b if t.strip()]
    fold = (lambda t: t.lower()) if options.get("ignore_case") else (lambda t: t)
    whole = lambda paras: fold(re.sub(r"\s+", " ", "\n".join(paras)).strip())
    if options.get("content_only"):
        return similarity(whole(a), whole(b))
    if options.get("ignore_blanks", True):
        if options.get("fuzzy_match"):
            return similarity(whole(a), whole(b))
        return 1.0 if whole(a) == whole(b) else 0.0
    if len(a) != len(b):
        return 0.0
    if options.get("fuzzy_match"):
        return sum(similarity(fold(x), fold(y)) for x, y in zip(a, b)) / len(a) if a else 1.0
    return 1.0 if all(fold(x) == fold(y) for x, y in zip(a, b)) else 0.0


def compare_subscript_contains(result, expected, **options):
    """OSWorld's check: some run of the result is subscript where the expected document's run at the same place
    (paragraph by paragraph, run by run) is subscript too."""
    if not result or not expected:
        return 0.0
    import docx

    try:
        a, b = docx.Document(result), docx.Document(expected)
    except Exception:
        return 0.0
    for pa, pb in zip(a.paragraphs, b.paragraphs):
        for ra, rb in zip(pa.runs, pb.runs):
            if ra.font.subscript and rb.font.subscript:
                return 1.0
    return 0.0


def check_moved_jpgs(result, rules):
    """OSWorld's: the folder holds exactly the expected names (every entry counts, not only .jpg files)."""
    if result is None:
        return 0.0
    names = [c["name"] for c in result["children"]] if isinstance(result, dict) else list(result)
    expected = rules["expected"]
    return 1.0 if len(names) == len(expected) and set(names) == set(expected) else 0.0


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
