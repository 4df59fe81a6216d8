"""The Textual application: opens the workspace and shows the main screen."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from textual.app import App
from textual.notifications import SeverityLevel

from facility_tui.paths import default_saves
from facility_tui.screens.main import MainScreen
from facility_tui.text import printable
from facility_tui.workspace import Workspace


def _stylesheet() -> Path:
    # Beside the styles package's own file (an installed package is a folder: Textual reads the
    # sheet from a path), without importlib.resources and zipfile at every start-up.
    import facility_tui.styles

    return Path(facility_tui.styles.__file__).with_name("app.tcss")


class FacilityApp(App[None]):
    """facility-tui: the GM's combat tracker."""

    CSS_PATH = _stylesheet()
    TITLE = "facility-tui"
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self,
        save_dir: Path | None = None,
        open_file: Path | None = None,
        seed: int | None = None,
        clock: Callable[[], str] | None = None,
        demo: str | None = None,
    ) -> None:
        super().__init__()
        self.clock = clock or (lambda: time.strftime("%H:%M:%S"))
        folder = save_dir if save_dir is not None else default_saves()
        if open_file is not None and save_dir is None:
            folder = open_file.resolve().parent
        self.workspace = Workspace(folder, seed)
        self.workspace.demo = demo
        self._open_file = open_file
        self._toasted = False  # a toast was shown since they were last cleared

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Every toast is plain text: messages carry names, typed lines and usage strings
        (``[cover=5|10]``), which are data, never markup; control characters show escaped."""
        self._toasted = True
        super().notify(
            printable(message),
            title=printable(title),
            severity=severity,
            timeout=timeout,
            markup=False,
        )

    def clear_toasts(self) -> None:
        """Take the toasts down (none shown: nothing to do, off the key path)."""
        if self._toasted:
            self._toasted = False
            self.clear_notifications()

    def on_mount(self) -> None:
        self.push_screen(MainScreen(self.workspace, self._open_file))

    def on_unmount(self) -> None:
        self.workspace.close(timeout=3.0)  # whatever way the app ends, the last change is written
