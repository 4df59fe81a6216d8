"""Every place the screens lean on a Textual internal, and what each one was last checked as.

Textual may follow its minor releases (``pyproject.toml``: ``textual>=8.2,<9``). Each entry
names the internal (a private name, or a public one whose inner workings are relied on), who
overrides or calls it, and why; the figures that keep an override are in docs/benchmarks.md.
``FINGERPRINTS`` holds a short hash of each internal as Textual ``CHECKED`` had it (its source,
or for a reactive its declaration and watcher, or for an attribute set at run time every line of
its class that names it); ``tests/unit/test_textual_internals.py`` fails when one changed or is
gone, and names it: check the override against the new Textual (and measure it again if it is a
figure's), then record the new hash (``python -m facility_tui.screens.render.internals``).
"""

from __future__ import annotations

import hashlib
import inspect
from typing import Any

from textual._styles_cache import StylesCache
from textual.app import App
from textual.dom import DOMNode
from textual.message import Message
from textual.message_pump import MessagePump
from textual.reactive import Reactive
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Input, OptionList

CHECKED = "8.2.8"  # the Textual the fingerprints were taken from

# (owner, attribute, where it is relied on, why)
INTERNALS: tuple[tuple[type, str, str, str], ...] = (
    (
        Widget,
        "render_lines",
        "render.own_lines.OwnLines",
        "panes finish their own lines instead of going through the styles cache, a line once",
    ),
    (
        StylesCache,
        "render_line",
        "render.own_lines.OwnLines",
        "what the styles cache does to a line of a plain pane, which OwnLines does itself",
    ),
    (
        Widget,
        "get_line_filters",
        "render.own_lines.OwnLines",
        "the filters the styles cache would apply, applied once per finished line",
    ),
    (
        DOMNode,
        "background_colors",
        "render.own_lines.OwnLines",
        "the padding colour the styles cache would use",
    ),
    (
        Strip,
        "apply_filter",
        "render.own_lines.OwnLines",
        "a finished line filtered as the styles cache would",
    ),
    (
        Widget,
        "virtual_size",
        "render.text_pane.TextPane, widgets.log_pane.LogPane, widgets.command_bar.CommandBar",
        "a reactive redeclared without layout: a pane's new height, the log's growth, the line's "
        "new text lay out only what needs it, not the whole screen",
    ),
    (
        App,
        "get_line_filters",
        "app.FacilityApp, app.WatchApp (render.lines.Controls)",
        "a line filter of the app is the last guard against a control character in any "
        "widget's line (Textual calls its filters internal); a line is filtered once",
    ),
    (
        Widget,
        "focus",
        "widgets.initiative.InitiativeList",
        "focus taken at once, repainting the cursor's row only (Widget.focus repaints the list)",
    ),
    (
        Widget,
        "watch_has_focus",
        "widgets.initiative.InitiativeList, widgets.command_bar.CommandBar",
        "no restyle when focus comes and goes (every confirm): only the cursor row's look and "
        "the line's colour change",
    ),
    (
        Widget,
        "_on_focus",
        "widgets.initiative.InitiativeList, widgets.command_bar.CommandBar",
        "focus repaints one row (or one colour), not the whole widget and its ancestors",
    ),
    (
        Widget,
        "_on_blur",
        "widgets.initiative.InitiativeList, widgets.command_bar.CommandBar",
        "no Blurred / DescendantBlur hops before a confirm's frame",
    ),
    (
        Input,
        "_on_focus",
        "widgets.command_bar.CommandBar",
        "runs after the bar's own focus handler, which gives the bar its focused colour",
    ),
    (
        Input,
        "_on_blur",
        "widgets.command_bar.CommandBar",
        "as above: Input's own blur handler is skipped",
    ),
    (
        Input,
        "render_line",
        "widgets.command_bar.CommandBar",
        "the typed line as Input draws it, the preview laid over it past the cursor",
    ),
    (
        Screen,
        "focused",
        "main.MainScreen",
        "a reactive redeclared without repaint: a focus move repainted the whole screen",
    ),
    (
        Widget,
        "_on_key",
        "choice_menu.ChoiceMenu, party_dialog.PartyReturnDialog, roll_prompt.RollPrompt",
        "a dialog with no field takes every key in its own handler, in the order typed, and "
        "stops it there",
    ),
    (
        App,
        "on_event",
        "app.OrderedKeys",
        "a key read but not yet handed on is held while the one before it is still being handled "
        "(in a burst, ctrl+y redid before the hit typed ahead of it had run: issue 28)",
    ),
    (
        Message,
        "is_forwarded",
        "app.OrderedKeys",
        "tells a key read from the terminal (held in turn) from one bubbling back up",
    ),
    (
        MessagePump,
        "message_queue_size",
        "app.OrderedKeys",
        "a key is done once no widget has anything queued (what it set off: a Submitted, a Blur)",
    ),
    (
        MessagePump,
        "_pending_message",
        "app.OrderedKeys",
        "the message a widget has taken off its queue ahead of time (to combine it with the one "
        "it runs): still queued for the check (tab then 1 typed 1 in the line it left)",
    ),
    (
        OptionList,
        "_move_page",
        "palette.Palette",
        "upstream cause, worked around: a page key before the list has a size (the palette's "
        "list refilled from empty) raised KeyError: 0; the palette's page keys wait for it",
    ),
)

# (owner, attribute) -> its hash as Textual ``CHECKED`` had it
FINGERPRINTS: dict[tuple[str, str], str] = {
    ("Widget", "render_lines"): "608610ba0f2a",
    ("StylesCache", "render_line"): "ac0d889db8c0",
    ("Widget", "get_line_filters"): "347be6799857",
    ("DOMNode", "background_colors"): "db5a2ab503eb",
    ("Strip", "apply_filter"): "eed7cd6aaca9",
    ("Widget", "virtual_size"): "008400b20aa5",
    ("App", "get_line_filters"): "dea7fbac8797",
    ("Widget", "focus"): "e14b1c985997",
    ("Widget", "watch_has_focus"): "0039c63209dd",
    ("Widget", "_on_focus"): "b4aed965f016",
    ("Widget", "_on_blur"): "8099f06b576c",
    ("Input", "_on_focus"): "2665ecc87309",
    ("Input", "_on_blur"): "38c413dc084c",
    ("Input", "render_line"): "40f321a72e8e",
    ("Screen", "focused"): "352e706647e0",
    ("Widget", "_on_key"): "772bcb4e901b",
    ("App", "on_event"): "d527484ba108",
    ("Message", "is_forwarded"): "af047038c255",
    ("MessagePump", "message_queue_size"): "23afbe1096a2",
    ("MessagePump", "_pending_message"): "fa3a0840e931",
    ("OptionList", "_move_page"): "01e142cc20f8",
}


def fingerprint(owner: type, name: str) -> str | None:
    """A short hash of ``owner.name`` as this Textual has it (None: it has none): the source of
    a method or property; for a reactive, its declaration and its watchers; for an attribute set
    at run time, every line of ``owner``'s source that names it."""
    found = inspect.getattr_static(owner, name, None)
    if isinstance(found, staticmethod | classmethod):
        found = found.__func__
    if isinstance(found, property):
        found = found.fget
    if inspect.isfunction(found):
        text = inspect.getsource(found)
    else:
        holder = next((c for c in owner.__mro__ if name in vars(c)), owner)
        lines = [line.strip() for line in inspect.getsource(holder).splitlines()]
        named = [line for line in lines if name in line]
        if isinstance(found, Reactive):
            named = [line for line in named if "Reactive(" in line or "reactive(" in line]
            for watcher in (f"watch_{name}", f"_watch_{name}"):
                method: Any = getattr(holder, watcher, None)
                if inspect.isfunction(method):
                    named.append(inspect.getsource(method))
        if not named:
            return None
        text = "\n".join(named)
    return hashlib.sha1(text.encode()).hexdigest()[:12]


def changed() -> list[str]:
    """The internals this Textual has otherwise than they were checked (or has no more)."""
    out = []
    for owner, name, where, _ in INTERNALS:
        now = fingerprint(owner, name)
        if now != FINGERPRINTS.get((owner.__name__, name)):
            said = "gone" if now is None else f"now {now}"
            out.append(f"{owner.__name__}.{name} ({said}; used by {where})")
    return out


if __name__ == "__main__":  # the fingerprints of the Textual installed, to record once checked
    for owner, name, _, _ in INTERNALS:
        print(f'    ("{owner.__name__}", "{name}"): "{fingerprint(owner, name)}",')
