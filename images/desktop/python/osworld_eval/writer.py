"""LibreOffice Writer's fonts as OSWorld's metrics read them: the default font in the user profile, the fonts of a document's runs."""
from lxml import etree

OOR = "http://openoffice.org/2001/registry"
DEFAULT_FONT_PATH = "/org.openoffice.Office.Writer/DefaultFont"


def find_default_font(path, rules):
    """The Writer default (Standard) font set in registrymodifications.xcu is rules["font_name"]."""
    if not path:
        return 0.0
    try:
        root = etree.parse(path).getroot()
    except etree.XMLSyntaxError:
        return 0.0
    found = None
    for item in root.iter("item"):
        if item.get("{%s}path" % OOR) != DEFAULT_FONT_PATH:
            continue
        for prop in item.iter("prop"):
            if prop.get("{%s}name" % OOR) == "Standard":
                value = prop.find("value")
                found = value.text if value is not None else None
    return 1.0 if found == rules["font_name"] else 0.0


def compare_font_names(path, rules):
    """Every run of every paragraph has the font rules["font_name"] (a run that inherits its font fails, as in OSWorld)."""
    if not path:
        return 0.0
    import docx
    try:
        doc = docx.Document(path)
    except Exception:
        return 0.0
    runs = [r for p in doc.paragraphs for r in p.runs]
    return 1.0 if all(r.font.name == rules["font_name"] for r in runs) else 0.0


METRICS = {"find_default_font": find_default_font, "compare_font_names": compare_font_names}
