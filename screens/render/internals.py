"""Every place the screens lean on a Textual internal, with the figure that pays for it (or
work around one, with the upstream cause).

Textual is pinned to the minor version these were measured on (``pyproject.toml``). Each entry
names the internal (a private name, or a public one whose behaviour is relied on), who overrides
or calls it, and why; ``tests/test_textual_internals.py`` fails loudly if one disappears, so an
upgrade of Textual shows at once what to measure again. Figures: ``docs/benchmarks.md``.
"""

from __future__ import annotations

from textual import events
from textual.app import App
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Input, OptionList

# (owner, attribute, where it is relied on, why: the figure that justifies it)
INTERNALS: tuple[tuple[type, str, str, str], ...] = (
    (
        Widget,
        "render_lines",
        "own_lines.OwnLines",
        "panes finish their own lines instead of the styles cache: 30–80 µs a line saved, "
        "most of a d confirm's frame (12.7 → 9.3–10.4 ms p50 at 200 combatants)",
    ),
    (
        Widget,
        "get_line_filters",
        "own_lines.OwnLines",
        "the filters the styles cache would apply, applied once per finished line",
    ),
    (
        Widget,
        "background_colors",
        "own_lines.OwnLines",
        "the padding colour the styles cache would use",
    ),
    (
        Strip,
        "apply_filter",
        "own_lines.OwnLines",
        "a finished line filtered as the styles cache would",
    ),
    (
        App,
        "get_line_filters",
        "app.FacilityApp, app.WatchApp (lines.Controls)",
        "a line filter of the app is the last guard against a control character in any "
        "widget's line (Textual calls its filters internal); a line is filtered once",
    ),
    (
        Widget,
        "_on_focus",
        "initiative.InitiativeList, command_bar.CommandBar",
        "focus repaints one row (or one colour), not the whole widget and its ancestors",
    ),
    (
        Widget,
        "_on_blur",
        "initiative.InitiativeList, command_bar.CommandBar",
        "no Blurred / DescendantBlur hops before a confirm's frame (~0.5 ms of d confirm)",
    ),
    (
        Input,
        "_on_blur",
        "command_bar.CommandBar",
        "as above: Input's own blur handler is skipped",
    ),
    (
        Input,
        "_on_key",
        "ordered_input.OrderedInput",
        "an input's own keys act in its key handler: no trip up to the app (~0.5 ms a confirm)",
    ),
    (
        Widget,
        "_bindings",
        "ordered_input.OrderedInput",
        "the input looks up its own bindings for a key, in its key handler",
    ),
    (
        App,
        "on_event",
        "app.OrderedKeys",
        "a key read but not yet handed on is held while the one before it is still being handled "
        "(in a burst, ctrl+y redid before the hit typed ahead of it had run: issue 28)",
    ),
    (
        events.Key,
        "is_forwarded",
        "app.OrderedKeys",
        "tells a key read from the terminal (held in turn) from one bubbling back up",
    ),
    (
        Widget,
        "message_queue_size",
        "app.OrderedKeys",
        "a key is done once no widget has anything queued (what it set off: a Submitted, a Blur)",
    ),
    (
        Widget,
        "_pending_message",
        "app.OrderedKeys",
        "the message a widget has taken off its queue ahead of time (to combine it with the one "
        "it runs): still queued for the check (tab then 1 typed 1 in the line it left)",
    ),
    (
        Screen,
        "focused",
        "main.MainScreen",
        "a reactive redeclared without repaint: a focus move repainted the whole screen",
    ),
    (
        Widget,
        "set_reactive",
        "command_bar.CommandBar",
        "clearing the line skips Input's watchers (0.6 → 0.2 ms of every confirm)",
    ),
    (
        OptionList,
        "_move_page",
        "palette.Palette",
        "upstream cause, worked around: a page key before the list has a size (the palette's "
        "list refilled from empty) raised KeyError: 0; the palette's page keys wait for it",
    ),
)


def missing() -> list[str]:
    """The internals this Textual no longer has: each one a change to measure again."""
    return [
        f"{owner.__name__}.{name} (used by {where})"
        for owner, name, where, _ in INTERNALS
        if not (hasattr(owner, name) or hasattr(owner(), name))  # (a class's, or an instance's)
    ]
