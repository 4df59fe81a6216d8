"""Types the app tier's tests share (its fixtures are in tests/app/conftest.py)."""

from __future__ import annotations

from collections.abc import Callable

from facility_tui.app import FacilityApp

AppMaker = Callable[..., FacilityApp]  # the ``make_app`` fixture: options as FacilityApp takes them
