"""Toasts under a dialog: a screen a dialog covers keeps the toasts it showed, seen through the
dialog's backdrop, while the dialog shows the same ones (Textual gives each screen its own
rack): each message was there twice. A screen with this mixin hides its rack as it is covered;
Textual shows it again, with the toasts still current, when the screen is back on top."""

from __future__ import annotations

from textual.dom import DOMNode

TOAST_RACK = "#textual-toastrack"  # (the rack Textual gives every screen for its toasts)


class ToastsHiddenWhenCovered(DOMNode):
    def on_screen_suspend(self) -> None:
        for rack in self.query_children(TOAST_RACK):
            rack.display = False
