"""The hand-back's summary (issue 24): when the GM ends a fight, one screen says what handing
each PC back changes in party.toml; enter keeps all, a PC's number skips it, n skips all,
escape leaves it for later; keys typed in a burst act in order."""

from __future__ import annotations

from pathlib import Path

import pytest
from facility_tui.screens.main import MainScreen
from facility_tui.screens.party_dialog import PartyReturnDialog
from facility_tui.screens.widgets.command_bar import CommandBar
from textual.widgets import Label

from facility_tui import cli
from facility_tui.app import FacilityApp
from facility_tui.campaign.folder import Campaign
from facility_tui.campaign.party import load
from facility_tui.systems.r2297.sheet import Sheet2297
from tests.app.test_choice_menu import app_for, save_of, typed
from tests.app.test_key_order import burst, settled

FIGHT = [
    "new 2297 Deck seed=5",
    'add "Sgt. Blanc" side=pc hlt=32 weapon="PAM9 3d6+2 SA 17"',
    'add "Aspirant Cassart" side=pc hlt=20',
    "party add blanc",
    "party add cassart",
    "add Boarder init=3",
    "start",
    "hit blanc 6",
    "hit cassart 3",
]


def damage(folder: Path) -> dict[str, int]:
    out = {}
    for m in load(Campaign(folder)):
        assert isinstance(m.pc.sheet, Sheet2297)
        out[m.pc.name] = m.pc.sheet.damage
    return out


def dialog_text(app: FacilityApp) -> str:
    assert isinstance(app.screen, PartyReturnDialog)
    return "\n".join(str(label.render()) for label in app.screen.query(Label))


@pytest.mark.parametrize(
    ("keys", "handed"),
    [
        ("enter", {"Sgt. Blanc": 6, "Aspirant Cassart": 3}),
        ("y", {"Sgt. Blanc": 6, "Aspirant Cassart": 3}),
        ("1 enter", {"Sgt. Blanc": 0, "Aspirant Cassart": 3}),
        ("2 enter", {"Sgt. Blanc": 6, "Aspirant Cassart": 0}),
        ("1 1 enter", {"Sgt. Blanc": 6, "Aspirant Cassart": 3}),  # skipped, then kept again
        ("1 2 enter", {"Sgt. Blanc": 0, "Aspirant Cassart": 0}),
        ("n", {"Sgt. Blanc": 0, "Aspirant Cassart": 0}),
        ("escape", {"Sgt. Blanc": 0, "Aspirant Cassart": 0}),
        ("x 7 enter", {"Sgt. Blanc": 6, "Aspirant Cassart": 3}),  # keys it does not know
    ],
)
async def test_end_shows_what_changes_and_the_keys_choose(
    tmp_path: Path, keys: str, handed: dict[str, int]
) -> None:
    save = save_of(tmp_path, FIGHT)
    app = app_for(save)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settled(pilot)
        burst(app, typed("end"))  # the end and the dialog's keys, in one burst
        await settled(pilot)
        shown = dialog_text(app)
        assert "1 keep Sgt. Blanc: damage 0 → 6" in shown.replace("\n", " ")
        assert "2 keep Aspirant Cassart: damage 0 → 3" in shown.replace("\n", " ")
        burst(app, keys)
        await settled(pilot)
        assert isinstance(app.screen, MainScreen)
        assert damage(tmp_path) == handed
        toasts = [n.message for n in app._notifications]
        if handed == {"Sgt. Blanc": 0, "Aspirant Cassart": 0}:
            assert toasts[-1].startswith("Party: nothing handed back")
        else:
            assert toasts[-1].startswith("Party: ")
            assert "handed back" in toasts[-1]


async def test_a_burst_through_end_and_the_dialog_then_party_undo(tmp_path: Path) -> None:
    save = save_of(tmp_path, FIGHT)
    before = (tmp_path / "party.toml").read_text(encoding="utf-8")
    app = app_for(save)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settled(pilot)
        burst(app, f"{typed('end')} 2 enter {typed('party undo')}")
        await settled(pilot)
        assert isinstance(app.screen, MainScreen)
        assert (tmp_path / "party.toml").read_text(encoding="utf-8") == before
        burst(app, typed("party redo"))
        await settled(pilot)
        assert damage(tmp_path) == {"Sgt. Blanc": 6, "Aspirant Cassart": 0}
        assert app.workspace.encounter.phase.value == "ended"


async def test_no_dialog_without_a_party_or_when_nothing_changes(tmp_path: Path) -> None:
    save = save_of(tmp_path, [*FIGHT[:3], *FIGHT[5:7]])  # no party.toml
    app = app_for(save)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settled(pilot)
        burst(app, typed("end"))
        await settled(pilot)
        assert isinstance(app.screen, MainScreen)
    assert not (tmp_path / "party.toml").exists()
    save = save_of(tmp_path, FIGHT[:7], "g")  # the party, unhurt
    app = app_for(save)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settled(pilot)
        burst(app, typed("end"))
        await settled(pilot)
        assert isinstance(app.screen, MainScreen)
        main = app.screen
        main.runner.offer_return()  # as the palette's "Party: hand back" does
        await settled(pilot)
        assert app._notifications and list(app._notifications)[-1].message == (
            "Party: nothing to hand back"
        )


@pytest.mark.parametrize(
    ("keys", "handed"),
    [
        ("enter", {"Sgt. Blanc": 14, "Aspirant Cassart": 3}),  # Blanc's later state stays
        ("1 enter", {"Sgt. Blanc": 6, "Aspirant Cassart": 3}),  # asked for: rolled back
        ("1 2 enter", {"Sgt. Blanc": 6, "Aspirant Cassart": 0}),
        ("2 enter", None),  # all skipped: nothing handed back
    ],
)
async def test_a_fight_older_than_the_roster_says_so_and_asks(
    tmp_path: Path, keys: str, handed: dict[str, int] | None
) -> None:
    """Deck took its party, then Airlock took it too, fought and handed Blanc back: ending
    Deck would roll Blanc back, so its row says so and starts skipped."""
    save_of(tmp_path, FIGHT[:5], "one")  # the party
    deck = save_of(tmp_path, ["new 2297 Deck seed=5", "party join"], "deck")
    airlock = [
        "new 2297 Airlock seed=4",
        "party join",
        "add Boarder init=3",
        "start",
        "hit blanc 14",
        "end",
        "party return",
    ]
    save_of(tmp_path, airlock, "airlock")
    assert cli.apply_cmd(deck, FIGHT[5:], seed=3, quiet=True) == 0
    app = app_for(deck)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settled(pilot)
        burst(app, typed("end"))
        await settled(pilot)
        shown = " ".join(dialog_text(app).split())
        assert (
            "The roster has moved on since this fight took its party (Sgt. Blanc): skipped, "
            "unless its number keeps it" in shown
        )
        assert "1 skip Sgt. Blanc (roster moved on): damage 14 → 6" in shown
        assert "2 keep Aspirant Cassart: damage 0 → 3" in shown
        assert "⏎ hand back those kept · 1-9 skip or keep a PC" in shown
        burst(app, keys)
        await settled(pilot)
        assert isinstance(app.screen, MainScreen)
        assert damage(tmp_path) == (handed or {"Sgt. Blanc": 14, "Aspirant Cassart": 0})


async def test_the_hand_backs_preview_is_never_cut(tmp_path: Path) -> None:
    """The command line gives a long preview the rows it needs (it was cut after three, with
    an ellipsis): here what four PCs' hand-back changes, at 80x24."""
    pcs = [f'add "Crew {n}" side=pc hlt=30 weapon="PAM9 3d6+2 SA 17"' for n in range(1, 5)]
    hits = [f"hit crew-{n} {9 + n}" for n in range(1, 5)]
    adds = [f"party add crew-{n}" for n in range(1, 5)]
    save = save_of(tmp_path, ["new 2297 Deck seed=5", *pcs, *adds, *hits, "end"])
    app = app_for(save)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settled(pilot)
        while not isinstance(app.screen, MainScreen):  # (the dialog the end left: later)
            await pilot.press("escape")
        main = app.screen
        assert isinstance(main, MainScreen)
        burst(app, "colon " + " ".join("space" if c == " " else c for c in "party return"))
        await settled(pilot)
        await pilot.pause(0.7)  # (past the moment the bar sizes itself)
        bar = main.query_one(CommandBar)
        said = app.workspace.preview("party return")
        assert len(said) == 4 and bar.preview == " │ ".join(said)
        drawn = "".join(bar.render_line(y).text for y in range(bar.size.height))
        assert "…" not in drawn
        flat = "".join(drawn.split())
        for line in said:
            assert "".join(line.split()) in flat.replace("│", "")
