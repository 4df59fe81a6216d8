"""What the app needs to know of 2297 before its rules load: its id, title, quick keys and the
rule options of ``add`` (cheap to import: the key bar and the dialogs read it at start-up)."""

from __future__ import annotations

from facility_tui.systems.base import QuickKey, SystemInfo

INFO = SystemInfo(
    id="2297",
    title="2297",
    option_hint='ag=3 cu=2 hlt=30 armor="Vest 10/20"',
    quick_keys=(
        QuickKey("d", "Damage", "hit {who} ", "damage through armor", id="damage"),
        QuickKey("1", "Maj", "major", "spend a Major of the acting combatant", id="major"),
        QuickKey("2", "Mov", "move", "spend a Move of the acting combatant", id="move"),
        QuickKey("3", "Min", "minor", "spend a Minor of the acting combatant", id="minor"),
        QuickKey(
            "r", "React (selected)", "react {who}", "spend its Reaction", shown=False, id="react"
        ),
        QuickKey(
            "t",
            "Attack",
            "attack {actor} {who} ",
            "the attack helper: the acting combatant attacks the selected one",
            id="attack",
        ),
        QuickKey("f", "First aid (on selected)", "aid {who} ", "first aid", shown=False, id="aid"),
    ),
)
