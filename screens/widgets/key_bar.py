"""The key bar: one line at the bottom listing the keys that work right now.

Textual's ``Footer`` lists the keys in its own way: at 80 columns it cuts a key in the middle and
leaves the last ones out unseen, puts the command line's keys in another order and adds the
palette's; it also mounts a widget per key and rebuilds them all whenever the bindings may have
changed (every move of focus between the list and the command line). This bar is one line of
text (docs/benchmarks.md): the keys that fit whole, in the order they are declared, and a change
repaints that line only.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.keys import key_to_character
from textual.screen import Screen
from textual.widgets import Input

from ..render.text_pane import TextPane

GAP = "  "


class KeyBar(TextPane):
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        padding: 0 1;
        background: $footer-background;
        color: $footer-description-foreground;
    }
    KeyBar > .key-bar--key {
        color: $footer-key-foreground;
        text-style: bold;
    }
    """
    COMPONENT_CLASSES = {"key-bar--key"}

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._spans: list[tuple[int, int, str]] = []  # (from x, to x, key) for mouse clicks
        self._keys: list[tuple[str, str, str]] = []  # the keys last listed, to fit again
        self._stale = False  # keys to list again after the next frame

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self.app.screen_change_signal.subscribe(self, self._screen_changed)
        self._list_keys()

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)
        self.app.screen_change_signal.unsubscribe(self)

    def _shown(self) -> Screen[object]:
        """The screen whose keys act: a dialog over this bar's screen (without a bar of its
        own) takes the keys, so the bar lists the dialog's, never keys that would do nothing."""
        top = self.app.screen
        if top is self.screen or self.screen not in self.app.screen_stack:
            return self.screen
        return self.screen if top.query(KeyBar) else top

    def _screen_changed(self, screen: Screen[object]) -> None:
        if screen is not self.screen:  # (a dialog's keys may change while it is open)
            screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        # A listing queued waits for the top screen's next frame: a dialog closed before its
        # frame (escape pressed twice at once) took it along, and the bar was stuck on the
        # dialog's keys for good. A change of screen queues one anew.
        self._stale = False
        self._bindings_changed(screen)

    def _bindings_changed(self, _screen: Screen[object]) -> None:
        # A move of focus signals this twice; the keys are listed once, after the frame that
        # shows what the key did (as Textual's Footer does): the hints follow a frame later.
        if not self._stale:
            self._stale = True
            self.call_after_refresh(self._list_keys)

    def _list_keys(self) -> None:
        """List the shown keys of the focus chain, once per action (``u`` for ``u,ctrl+z``).

        While a text line has focus, its own keys are listed, and the screen's keys that do not
        type (a dialog's escape): the screen's letters type.
        """
        if not self.is_attached:
            return
        self._stale = False
        screen = self._shown()
        focused = screen.focused
        typing = focused if isinstance(focused, Input) else None
        seen: set[str] = set()
        keys: list[tuple[str, str, str]] = []  # (key, shown as, description)
        actions: list[str] = []
        for namespace, binding, enabled, _ in screen.active_bindings.values():
            if not binding.show or not enabled or binding.action in seen:
                continue
            if typing is not None and namespace is not typing and _types(binding.key):
                continue
            seen.add(binding.action)
            shown = self.app.get_key_display(binding)
            keys.append((binding.key.split(",")[0], shown, binding.description))
            actions.append(binding.action)
        # In the order they are declared (the chain merges them, and a key remapped by a config
        # file would go last): the line's own keys while it has focus, else the screen's.
        declared = [b.action for b in (typing or screen).BINDINGS if isinstance(b, Binding)]
        place = {action: i for i, action in reversed(list(enumerate(declared)))}
        order = sorted(range(len(keys)), key=lambda i: place.get(actions[i], len(declared)))
        self._show([keys[i] for i in order])

    def _show(self, keys: list[tuple[str, str, str]]) -> None:
        """The keys that fit whole, in their order: the gaps narrow first, then the last keys
        are left out (``?`` lists them all), never one cut in the middle."""
        self._keys = keys
        key_style = self.get_component_rich_style("key-bar--key", partial=True)
        items = [(shown, f" {d}" if len(shown) > 1 else d, key) for key, shown, d in keys]
        room = self.size.width or 10**6
        widths = [cell_len(shown + text) for shown, text, _ in items]
        gap = GAP if sum(widths) + len(GAP) * (len(items) - 1) <= room else " "
        line = Text(no_wrap=True, overflow="ellipsis")
        self._spans = []
        for (shown, text, key), width in zip(items, widths, strict=True):
            if line.cell_len + (len(gap) if line else 0) + width > room:
                break
            if line:
                line.append(gap)
            start = len(line)
            line.append(shown, key_style)  # "nNext", "esc Close"
            line.append(text)
            self._spans.append((start, len(line), key))
        self.update(line)

    def on_resize(self, event: events.Resize) -> None:
        self._show(self._keys)  # another width: other keys may fit

    def notify_style_update(self) -> None:
        super().notify_style_update()
        if self.is_mounted:  # the key colour comes from the theme
            self._bindings_changed(self.screen)

    def on_click(self, event: events.Click) -> None:
        x = event.x - self.styles.gutter.left
        for start, end, key in self._spans:
            if start <= x < end:
                self.app.simulate_key(key)
                return


def _types(key: str) -> bool:
    """Whether ``key`` types a character into a focused line (so its binding does not act)."""
    char = key_to_character(key)
    return char is not None and char.isprintable()
