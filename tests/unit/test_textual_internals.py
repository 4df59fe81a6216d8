"""Textual internals the screens rely on are as they were checked (``screens/render/internals.py``),
and every one the screens use is listed there."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from importlib.metadata import version

import facility_tui.screens
import pytest
from facility_tui.screens.render.internals import CHECKED, INTERNALS, changed
from textual.reactive import Reactive
from textual.screen import Screen
from textual.widget import Widget

from tests.paths import ROOT

LISTED = {(owner.__name__, name) for owner, name, _, _ in INTERNALS}


def test_every_internal_the_screens_lean_on_is_as_checked() -> None:
    assert changed() == [], (
        f"Textual {version('textual')} (checked on {CHECKED}) changed these: check each override "
        "against it, measure again what docs/benchmarks.md figures, then record the new hashes"
    )


def test_a_changed_internal_is_caught_and_named(monkeypatch: pytest.MonkeyPatch) -> None:
    def render_lines(self: Widget, crop: object) -> list[object]:
        return []

    monkeypatch.setattr(Widget, "render_lines", render_lines)
    monkeypatch.delattr(Screen, "_watch_focused")
    found = changed()
    assert [c.split(" ")[0] for c in found] == ["Widget.render_lines", "Screen.focused"]
    assert "render.own_lines.OwnLines" in found[0]


def _screens_classes() -> list[type]:
    names = [
        m.name
        for m in pkgutil.walk_packages(facility_tui.screens.__path__, "facility_tui.screens.")
    ]
    modules = [importlib.import_module(n) for n in [*names, "facility_tui.app"]]
    return [
        c
        for m in modules
        for _, c in inspect.getmembers(m, inspect.isclass)
        if c.__module__ == m.__name__
    ]


def _textual_base_with(cls: type, name: str) -> type | None:
    return next(
        (b for b in cls.__mro__[1:] if b.__module__.startswith("textual") and name in vars(b)),
        None,
    )


def test_every_private_textual_name_the_screens_override_or_redeclare_is_listed() -> None:
    """A private method of Textual's overridden (``_on_blur``), or one of its reactives declared
    again (``focused``), is relied on: each is in the list the test above checks."""
    unlisted = set()
    for cls in _screens_classes():
        for name, value in vars(cls).items():
            if name.startswith("__"):
                continue
            base = _textual_base_with(cls, name)
            if base is None:
                continue
            overridden = inspect.isfunction(value) or isinstance(value, property)
            relied = (overridden and name.startswith("_")) or isinstance(value, Reactive)
            if relied and (base.__name__, name) not in LISTED:  # (the Textual class it overrides)
                unlisted.add(f"{cls.__name__}.{name} ({base.__name__}'s)")
    assert not unlisted


def test_every_private_name_the_screens_read_is_theirs_or_listed() -> None:
    """``x._name`` in the screens' source is a name of their own, or a Textual internal listed
    (a module's path, ``textual._styles_cache``, is not a name read)."""
    sources = [*(ROOT / "screens").rglob("*.py"), ROOT / "facility_tui" / "app.py"]
    text = "\n".join(p.read_text(encoding="utf-8") for p in sources)
    read = set(re.findall(r"(?<!textual)(?<!rich)\.(_[a-z]\w*)", text))
    own = set(re.findall(r"(?:def |class |\b)(_[a-z]\w*)\b\s*(?:[:=(]|$)", text, re.M))
    own |= set(re.findall(r"self\.(_[a-z]\w*)\s*(?::[^=\n]*)?=[^=]", text))
    listed = {name for _, name in LISTED}
    assert sorted(read - own - listed) == []
