"""Textual internals the screens rely on are still there (see ``screens/internals.py``)."""

from __future__ import annotations

from importlib.metadata import version

from facility_tui.screens.internals import INTERNALS, missing
from textual.reactive import Reactive
from textual.screen import Screen


def test_every_internal_the_screens_lean_on_still_exists() -> None:
    assert missing() == [], f"Textual {version('textual')} changed: measure these again"


def test_the_pin_matches_the_measured_textual() -> None:
    assert version("textual").startswith("8.2."), "the benchmarks were measured on Textual 8.2"


def test_focused_is_still_a_reactive_to_redeclare() -> None:
    assert isinstance(Screen.__dict__["focused"], Reactive)
    assert all(why for *_, why in INTERNALS)
