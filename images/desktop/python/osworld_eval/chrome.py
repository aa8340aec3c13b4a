"""Chromium's profile as OSWorld's Chrome getters read it (Preferences, Bookmarks), and the metrics on it.

OSWorld's VM runs Google Chrome with its default profile (~/.config/google-chrome); the desktop image runs
Chromium, whose default profile is ~/.config/chromium. The getters read whichever exists, with the same
defaults OSWorld's getters give when a key is absent.
"""
import json
import os

PROFILE_DIRS = ("/root/.config/google-chrome/Default", "/root/.config/chromium/Default")


def profile_file(name):
    """The profile file (Preferences, Bookmarks, ...) of the first profile that has it; None when none does."""
    for d in PROFILE_DIRS:
        path = os.path.join(d, name)
        if os.path.exists(path):
            return path
    return None


def _json(name):
    path = profile_file(name)
    if path is None:
        return None
    try:
        with open(path) as f:
            return json.load(f)
    except ValueError:
        return None


def _prefs():
    return _json("Preferences") or {}


def enable_do_not_track(config):
    return "true" if _prefs().get("enable_do_not_track") else "false"


def profile_name(config):
    return _prefs().get("profile", {}).get("name")


def chrome_font_size(config):
    return _prefs().get("webkit", {}).get("webprefs", {"default_fixed_font_size": 13, "default_font_size": 16, "minimum_font_size": 13})


def default_search_engine(config):
    return _prefs().get("default_search_provider_data", {}).get("template_url_data", {}).get("short_name", "Google")


def bookmarks(config):
    data = _json("Bookmarks")
    return data.get("roots", {}) if data else []


GETTERS = {
    "enable_do_not_track": enable_do_not_track,
    "profile_name": profile_name,
    "chrome_font_size": chrome_font_size,
    "default_search_engine": default_search_engine,
    "bookmarks": bookmarks,
}


def check_font_size(font_size, rule):
    """The default font size equals rule["value"] (type value) or lies strictly between min and max (type range)."""
    size = (font_size or {}).get("default_font_size", 16)
    if rule["type"] == "value":
        return 1.0 if size == rule["value"] else 0.0
    if rule["type"] == "range":
        return 1.0 if rule["min"] < size < rule["max"] else 0.0
    raise NotImplementedError("check_font_size rule type %s" % rule["type"])


def is_expected_bookmarks(roots, rule):
    """The bookmark bar's folders (or site URLs) are exactly the expected set."""
    if not roots:
        return 0.0
    children = roots.get("bookmark_bar", {}).get("children", [])
    if rule["type"] == "bookmark_bar_folders_names":
        return 1.0 if {c["name"] for c in children if c.get("type") == "folder"} == set(rule["names"]) else 0.0
    if rule["type"] == "bookmark_bar_websites_urls":
        return 1.0 if {c["url"] for c in children if c.get("type") == "url"} == set(rule["urls"]) else 0.0
    raise NotImplementedError("is_expected_bookmarks rule type %s" % rule["type"])


METRICS = {"check_font_size": check_font_size, "is_expected_bookmarks": is_expected_bookmarks}
