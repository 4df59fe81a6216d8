"""The app tier: the tracker driven by Textual's Pilot, headless, on a save folder of its own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from facility_tui.app import FacilityApp
from tests.apps import AppMaker


@pytest.fixture
def make_app(tmp_path: Path) -> AppMaker:
    """``make_app(**options)``: a tracker on this test's own save folder with seeded dice (seed 1),
    as ``FacilityApp`` takes them (``demo="facility"``, ``open_file=``, ``clock=``...)."""

    def make(**options: Any) -> FacilityApp:
        if "open_file" not in options:
            options.setdefault("save_dir", tmp_path)
        options.setdefault("seed", 1)
        return FacilityApp(**options)

    return make
