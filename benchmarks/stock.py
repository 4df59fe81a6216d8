"""The app with one of Textual's own widgets (or its own code path) in place of an override of
the screens, for the key benchmarks' ``variants``: what each override still saves, measured in
the same run as the app and stock Textual making the same screen change.

Each variant patches the screens' classes while a session builds and runs its app, and puts them
back after. Only the code path changes: what the screen shows is the same (the snapshots of the
swap are compared cell for cell where a variant became the app's way).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from rich.text import Text


def _patched(owner: Any, name: str, value: Any) -> contextlib.AbstractContextManager[None]:
    @contextlib.contextmanager
    def patch() -> Iterator[None]:
        had = name in owner.__dict__
        old = owner.__dict__.get(name)
        if value is _DELETE:
            if had:
                delattr(owner, name)
        else:
            setattr(owner, name, value)
        try:
            yield
        finally:
            if had:
                setattr(owner, name, old)
            elif value is not _DELETE:
                delattr(owner, name)

    return patch()


_DELETE = object()


@contextlib.contextmanager
def _own_lines() -> Iterator[None]:
    """Every pane's lines through Textual's styles cache (``Widget.render_lines``)."""
    from facility_tui.screens.render.own_lines import OwnLines
    from textual.widget import Widget

    with _patched(OwnLines, "render_lines", Widget.render_lines):
        yield


@contextlib.contextmanager
def _key_bar() -> Iterator[None]:
    """Textual's ``Footer`` for the key bar."""
    from facility_tui.screens import main
    from textual.widgets import Footer

    with _patched(main, "KeyBar", lambda id=None: Footer(id=id)):
        yield


@contextlib.contextmanager
def _static_panes(*, same_lines_no_layout: bool) -> Iterator[None]:
    """Textual's ``Static`` under the status line and the panes' column (``TextPane``'s API on
    ``Static.update``); ``same_lines_no_layout``: ``Static.update(layout=False)`` while the text
    keeps its number of lines (Textual's own way to skip the layout pass)."""
    from facility_tui.screens.widgets.detail_pane import DetailPane
    from facility_tui.screens.widgets.status_pane import StatusPane
    from textual.widgets import Static

    class StaticPane(Static):
        DEFAULT_CSS = "StaticPane { height: auto; }"

        def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
            super().__init__(id=id, classes=classes)
            self._text = Text()

        @property
        def text(self) -> Text:
            return self._text

        def show_lines(self, lines: Sequence[Text]) -> None:
            self.update(Text("\n").join(lines))

        def update(self, content: Any = "", *, layout: bool = True) -> None:
            old = self._text
            self._text = content if isinstance(content, Text) else Text(str(content))
            if same_lines_no_layout:
                same = len(old.plain.split("\n")) == len(self._text.plain.split("\n"))
                layout = layout and not same
            super().update(content, layout=layout)

    panes = (StatusPane, DetailPane)
    bases = [cls.__bases__ for cls in panes]
    for cls in panes:
        cls.__bases__ = (StaticPane,)
    try:
        yield
    finally:
        for cls, was in zip(panes, bases, strict=True):
            cls.__bases__ = was


def _text_pane() -> contextlib.AbstractContextManager[None]:
    return _static_panes(same_lines_no_layout=False)


def _static_lines() -> contextlib.AbstractContextManager[None]:
    """As ``text-pane``, laid out only when the text's number of lines changes."""
    return _static_panes(same_lines_no_layout=True)


@contextlib.contextmanager
def _focus_repaint() -> Iterator[None]:
    """The main screen's ``focused`` as Textual declares it (a move of focus repaints it)."""
    from facility_tui.screens.main import MainScreen

    with _patched(MainScreen, "focused", _DELETE):
        yield


@contextlib.contextmanager
def _focus_handlers() -> Iterator[None]:
    """Textual's focus and blur handling for the list and the command bar (a restyle, the
    whole widget repainted, Blurred and DescendantBlur posted)."""
    from facility_tui.screens.widgets.command_bar import CommandBar
    from facility_tui.screens.widgets.initiative import InitiativeList

    with contextlib.ExitStack() as patches:
        for owner in (InitiativeList, CommandBar):
            for name in ("_on_focus", "_on_blur", "watch_has_focus"):
                patches.enter_context(_patched(owner, name, _DELETE))
        patches.enter_context(_patched(InitiativeList, "focus", _DELETE))
        yield


@contextlib.contextmanager
def _virtual_size() -> Iterator[None]:
    """``virtual_size`` as Textual declares it (a change lays the screen out) for the panes, the
    log and the command line."""
    from facility_tui.screens.render.text_pane import TextPane
    from facility_tui.screens.widgets.command_bar import CommandBar
    from facility_tui.screens.widgets.log_pane import LogPane

    with contextlib.ExitStack() as patches:
        for owner in (TextPane, LogPane, CommandBar):
            patches.enter_context(_patched(owner, "virtual_size", _DELETE))
        yield


@contextlib.contextmanager
def _rich_log() -> Iterator[None]:
    """Textual's ``RichLog`` for the log: the new entries written, or (undo) the log cleared
    and its last lines written again."""
    from facility_tui.screens import main
    from facility_tui.screens.widgets.log_pane import entry_text
    from textual.reactive import Reactive
    from textual.widgets import RichLog

    class StockLog(RichLog):
        DEFAULT_CSS = "StockLog { overflow-x: hidden; scrollbar-gutter: stable; }"
        encounter: Reactive[Any] = Reactive(None, repaint=False, always_update=True)

        def __init__(self, *, keep: int = 200, id: str | None = None) -> None:
            super().__init__(id=id, max_lines=keep, wrap=True)
            self.keep = keep
            self._shown: Sequence[Any] = ()
            self.border_title = "Log"

        def watch_encounter(self, enc: Any) -> None:
            if enc is None or enc.log is self._shown:
                return
            shown, log = self._shown, enc.log
            self._shown = log
            grown = 0 < len(shown) <= len(log) and log[len(shown) - 1] is shown[-1]
            if not grown:
                self.clear()
            for entry in log[len(shown) if grown else -self.keep :]:
                self.write(entry_text(entry))

        def cycle_kind(self) -> Text:
            return Text("Log")

        def toggle_who(self, name: str) -> Text:
            return Text("Log")

    with _patched(main, "LogPane", StockLog):
        yield


# name -> (how the figure says it, the patch)
VARIANTS: dict[str, tuple[str, Callable[[], contextlib.AbstractContextManager[None]]]] = {
    "own-lines": ("the styles cache for the panes' lines", _own_lines),
    "key-bar": ("Textual's Footer", _key_bar),
    "text-pane": ("Textual's Static for the status and panes", _text_pane),
    "rich-log": ("Textual's RichLog for the log", _rich_log),
    "static-lines": ("Static, laid out only when its lines change", _static_lines),
    "focus-repaint": ("Screen.focused repainting", _focus_repaint),
    "focus-handlers": ("Textual's focus and blur handlers", _focus_handlers),
    "virtual-size": ("virtual_size laying the screen out", _virtual_size),
}


def variant(name: str | None) -> contextlib.AbstractContextManager[None]:
    """The patch of variant ``name`` (None: the app as it is)."""
    return contextlib.nullcontext() if name is None else VARIANTS[name][1]()
