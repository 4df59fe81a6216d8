"""What the app needs to know of Facility before its rules load: its id, title, quick keys and
the rule options of ``add`` (cheap to import: the key bar and the dialogs read it at start-up)."""

from __future__ import annotations

from facility_tui.systems.base import QuickKey, SystemInfo

INFO = SystemInfo(
    id="facility",
    title="Facility",
    option_hint='phy=1 ins=2 ppe="Hard Hat" (NPC: track=4)',
    add_example="add Thug track=4 weapon=pistol",
    side_initiative=True,
    quick_keys=(
        QuickKey(
            "d",
            "Damage",
            "harm {who} {by}",
            "a hazard with its save, by the acting side's next attacker",
            id="damage",
        ),
        QuickKey("w", "Wound", "wound {who} ", "wounds without a save", id="wound"),
        QuickKey(
            "t",
            "Attack",
            "strike {actor} {who} ",
            "an attack: by the selected one in its side's turn (type the target), else on it "
            "(type the PC: the cursor waits for it)",
            id="attack",
        ),
        QuickKey("v", "Save (selected rolls)", "save {who} ", "a save", shown=False, id="save"),
    ),
)
