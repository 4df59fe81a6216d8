"""A dialog whose line holds the keys while its figures scroll below it (the forecast, the
tuning): ↑/↓ a line, page up/down a page, without leaving the line."""

from __future__ import annotations

from typing import ClassVar, TypeVar

from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen

from .toasts import ToastsHiddenWhenCovered

_R = TypeVar("_R")


class ScrollingModal(ToastsHiddenWhenCovered, ModalScreen[_R]):
    """Its ``SCROLLED`` view (an id) scrolls by the keys below."""

    SCROLLED: ClassVar[str] = ""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down", "scroll(1)", "Scroll", show=False),
        Binding("up", "scroll(-1)", "Scroll", show=False),
        Binding("pagedown", "page(1)", "Page", show=False),
        Binding("pageup", "page(-1)", "Page", show=False),
    ]

    def action_scroll(self, step: int) -> None:
        self.query_one(f"#{self.SCROLLED}", VerticalScroll).scroll_relative(y=step, animate=False)

    def action_page(self, step: int) -> None:
        view = self.query_one(f"#{self.SCROLLED}", VerticalScroll)
        view.scroll_relative(y=step * max(1, view.size.height - 1), animate=False)
