"""Records (issue 17): hide/unhide, the Markdown report, export, validate and show --json's format.

Reports are checked against the logs of scripted, seeded fights: every log line appears under its
round, rounds in order, falls listed with their round, hidden ones absent from public reports.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from attrs import evolve

from facility_tui import store
from facility_tui.cli import JSON_FORMAT, main
from facility_tui.commands.grammar import CommandError
from facility_tui.commands.session import Session
from facility_tui.model.encounter import Encounter
from facility_tui.report import md, public_log, render_markdown, visible
from facility_tui.store import blank
from tests.paths import ROOT, SAVES

FIGHT_2297 = (
    "new 2297 Deck seed=7",
    'add "Sgt. Blanc" side=pc init=12',
    "add Boarder count=2 init=5",
    "add Lurker init=3",
    "note lurker waits | behind the #3 crate",
    "start",
    "hit boarder-1 20",
    "next",
    "hit blanc 12",
    "next",
    "next",
    "hit boarder-2 40",
    "hit lurker 9",
    "next",
    "next",
    "hide lurker",
    "hide blanc note",
)

FIGHT_FACILITY = (
    "new facility Lockdown seed=11",
    'add Ana side=pc ins=2 phy=1 weapon=pistol,rifle ppe="Security Vest, Respirator"',
    "add Bo side=pc ins=1 sci=1",
    "add Grunt track=12 saves=1,0,0,0,0",
    "add Brute track=30",
    "start d20=20",
    "strike ana grunt d20=15",
    "next",
    "harm ana 1 weapons d20=2",
    "suffer ana sci",
    "wound bo 5 phy",
    "next",
    "wound grunt 12",
    "wound brute 3",
    "hide brute",
    "next",
)


def fight(lines: tuple[str, ...]) -> Session:
    s = Session(evolve(blank(), seed=1))
    for line in lines:
        s.execute(line)
    return s


def sections(report: str) -> list[tuple[int, list[str]]]:
    """The 'Round by round' part of a report: (round, its bullet lines), in order."""
    part = report.split("## Round by round", 1)[1].split("\n## ", 1)[0]
    out: list[tuple[int, list[str]]] = []
    for line in part.splitlines():
        if line.startswith("### "):
            title = line[4:]
            out.append((0 if title == "Before combat" else int(title.split()[1]), []))
        elif line.startswith("- "):
            out[-1][1].append(line[2:].removeprefix("**").removesuffix("**"))
    return out


def check_against_log(report: str, enc: Encounter, log: list) -> None:  # type: ignore[type-arg]
    got = sections(report)
    rounds = [r for r, _ in got]
    assert rounds == sorted(set(rounds))  # each round once, in order
    flat = [(r, text) for r, lines in got for text in lines]
    assert flat == [(e.round, md(e.text)) for e in log]  # every line, in its round, in order


# -- hide / unhide -----------------------------------------------------------------------------


def test_hide_marks_a_combatant_or_its_note_and_unhide_takes_it_back() -> None:
    s = fight(FIGHT_2297[:5])
    s.execute("hide lurker")
    s.execute("hide blanc note")
    lurker, blanc = s.encounter.get("lurker"), s.encounter.get("sgt-blanc")
    assert (lurker.hidden, lurker.notes_hidden) == (True, False)
    assert (blanc.hidden, blanc.notes_hidden) == (False, True)
    assert s.encounter.log[-1].text == "Sgt. Blanc's note hidden from the players"
    s.execute("unhide lurker")
    assert not s.encounter.get("lurker").hidden
    s.execute("undo")
    assert s.encounter.get("lurker").hidden


@pytest.mark.parametrize(
    ("line", "match"),
    [
        ("hide", "needs who"),
        ("hide nobody", "no combatant"),
        ("hide lurker junk", "takes WHO or WHO note"),
        ("hide lurker note x", "unexpected 'x'"),
        ("unhide lurker", "already shown to the players"),
    ],
)
def test_hide_refuses_bad_lines_and_changes_nothing(line: str, match: str) -> None:
    s = fight(FIGHT_2297[:5])
    before = s.encounter
    with pytest.raises(CommandError, match=match):
        s.execute(line)
    assert s.encounter is before
    s.execute("hide lurker")
    with pytest.raises(CommandError, match="already hidden from the players"):
        s.execute("hide lurker")


def test_hidden_flags_are_saved_only_when_set_and_read_back(tmp_path: Path) -> None:
    s = fight(FIGHT_2297[:5])
    assert "hidden" not in store.dumps(s).split("# ---- below")[0]  # older files stay as they were
    s.execute("hide lurker")
    s.execute("hide blanc note")
    state = store.dumps(s).split("# ---- below")[0]
    assert sorted(re.findall(r"^(\w*hidden) = true$", state, re.M)) == ["hidden", "notes_hidden"]
    store.save(s, tmp_path / "f.toml")
    back = store.load(tmp_path / "f.toml")
    assert back.encounter == s.encounter


def test_a_hand_edit_can_hide_a_combatant(tmp_path: Path) -> None:
    path = tmp_path / "f.toml"
    store.save(fight(FIGHT_2297[:5]), path)
    text = path.read_text()
    path.write_text(text.replace('name = "Lurker"\n', 'name = "Lurker"\nhidden = true\n', 1))
    opened = store.open_save(path, keep_aside=False)
    assert opened.session.encounter.get("lurker").hidden
    assert opened.message and "hidden" in opened.message


def test_show_marks_hidden_combatants_for_the_gm(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "f.toml"
    store.save(fight(FIGHT_2297), path)
    capsys.readouterr()
    assert main(["show", str(path)]) == 0
    rows = capsys.readouterr().out.splitlines()[3:7]
    row = {name: next(r for r in rows if name in r) for name in ("Lurker", "Blanc", "Boarder 1")}
    assert row["Lurker"].endswith("(hidden)")
    assert row["Blanc"].endswith("(note hidden)")
    assert not row["Boarder 1"].endswith("hidden)")


# -- the Markdown report -------------------------------------------------------------------------


def test_report_of_a_2297_fight_follows_its_log() -> None:
    s = fight(FIGHT_2297)
    enc = s.encounter
    report = render_markdown(s)
    check_against_log(report, enc, list(enc.log))
    assert report.startswith("# Deck\n\n2297 rules · Round 3")
    # hits and what got through, injuries: the lines themselves
    assert "- Hit on Boarder 1: 20 physical vs PT 0 DR 0% → 20 gets through" in report
    assert "- Sgt. Blanc: Serious injury" in report
    fell = report.split("## Who fell\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert fell == ["- Round 1: Boarder 1 — dying", "- Round 2: Boarder 2 — dying"]
    final = report.split("## Final state\n\n", 1)[1]
    assert "| Lurker (hidden) |" in report  # the GM's journal keeps it, marked
    assert "| Boarder 1 | enemies | dying | Lethal | 20/20 |" in final  # (the list's words)


def test_report_of_a_facility_fight_follows_its_log() -> None:
    s = fight(FIGHT_FACILITY)
    report = render_markdown(s)
    check_against_log(report, s.encounter, list(s.encounter.log))
    assert "- Bo takes 3 on Physique (GM): ■■■ 3/3" in report
    assert "- Round 2: Grunt — out" in report
    final = report.split("## Final state\n\n", 1)[1]
    assert "| Ana | pcs | ok | S1/3 |" in final and "| Bo | pcs | Impaired 1 |" in final


@pytest.mark.parametrize("lines", [FIGHT_2297, FIGHT_FACILITY], ids=["2297", "facility"])
def test_public_report_leaves_out_what_is_hidden(lines: tuple[str, ...]) -> None:
    s = fight(lines)
    enc = s.encounter
    report = render_markdown(s, public=True)
    hidden = [c.name for c in enc.combatants if c.hidden]
    assert hidden and not any(name in report for name in hidden)
    assert "hidden" not in report  # no marker, no "hidden from the players" line
    check_against_log(report, enc, public_log(enc))
    kept = [e for e in enc.log if e not in public_log(enc)]
    hiding = ("hidden from the players", "shown to the players")  # hide's own lines
    assert kept and all(any(n in e.text for n in (*hidden, *hiding)) for e in kept)
    assert {c.name for c in visible(enc)} == {c.name for c in enc.combatants if not c.hidden}
    assert "/" not in report.split("## Final state", 1)[1]  # no exact damage or wounds


def test_public_report_leaves_out_a_hidden_note_and_its_log_line() -> None:
    s = fight(FIGHT_2297)
    s.execute("unhide blanc note")
    s.execute("note blanc the traitor")
    assert "traitor" in render_markdown(s, public=True)
    s.execute("hide blanc note")
    assert "the traitor" in render_markdown(s)
    public = render_markdown(s, public=True)
    assert "traitor" not in public and "Sgt. Blanc" in public


def test_names_cannot_break_the_report() -> None:
    s = fight(("new 2297 T seed=1", 'add "#1 | `x` *y*" init=3', "add - init=2"))
    report = render_markdown(s)
    rows = [r for r in report.splitlines() if r.startswith("| ") and "enemies" in r]
    # as many cells as the headers (participants: 4, final state: 7): no | of a name splits one
    assert [len(re.findall(r"(?<!\\)\|", row)) for row in rows] == [5, 5, 8, 8]
    assert "\\#1 \\| \\`x\\` \\*y\\*" in report
    assert "\n- Added - (enemies)" in report and "\n| \\- | enemies |" in report
    assert not any(line.startswith("# ") for line in report.splitlines()[1:])


# -- export --------------------------------------------------------------------------------------


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    path = tmp_path / "deck.toml"
    store.save(fight(FIGHT_2297), path)
    return path


def test_export_prints_or_writes_each_form(saved: Path, capsys: pytest.CaptureFixture[str]) -> None:
    session = store.load(saved)
    capsys.readouterr()
    assert main(["export", str(saved)]) == 0
    assert capsys.readouterr().out == render_markdown(session)
    assert main(["export", str(saved), "--log"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [f"[{e.round}] {e.text}" for e in session.encounter.log]
    assert main(["export", str(saved), "--json", "--public"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["format"] == JSON_FORMAT and "Lurker" not in json.dumps(data)
    out = saved.with_name("deck.md")
    assert main(["export", str(saved), "--md", "--public", "-o", str(out)]) == 0
    assert out.read_text() == render_markdown(session, public=True)
    assert capsys.readouterr() == ("", "")


def test_export_of_a_branch_follows_that_branch_and_leaves_the_save_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The export follows the branch being played; ``--branch`` (a name, or a step's number on
    it) exports another on its own; an unknown one is one line naming the branches, exit 2."""
    session = fight(FIGHT_2297)
    session.execute("roll 2d6")
    other = session.timeline.current
    session.timeline.name(other, "the long roll")
    session.undo()
    session.execute("roll 1d4")
    path = tmp_path / "deck.toml"
    store.save(session, path)
    before = path.read_bytes()
    capsys.readouterr()
    assert main(["export", str(path), "--log"]) == 0
    live = capsys.readouterr().out
    assert "Roll: 1d4" in live and "Roll: 2d6" not in live
    for word in ("the long roll", "THE LONG ROLL", str(other)):
        assert main(["export", str(path), "--log", "--branch", word]) == 0
        branch = capsys.readouterr().out
        assert "Roll: 2d6" in branch and "Roll: 1d4" not in branch
    assert main(["export", str(path), "--branch", "[red]nope"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert "no branch '[red]nope'" in err and "the long roll" in err
    assert path.read_bytes() == before


def test_export_refuses_to_write_over_the_save(
    saved: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = saved.read_bytes()
    for target in (saved, saved.parent / "." / saved.name):
        capsys.readouterr()
        assert main(["export", str(saved), "-o", str(target)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "is the save itself" in err
    assert saved.read_bytes() == before


def damaged_copies(tmp_path: Path) -> dict[str, Path]:
    """A missing file, a folder, a cut-short save, a save from a newer version, a hand edit that
    does not read as a fight: each with what its one line says."""
    good = (SAVES / "v3-facility.toml").read_text()
    paths = {
        "does not exist": tmp_path / "missing.toml",
        "is a folder": tmp_path / "folder.toml",
        "cut short": tmp_path / "cut.toml",
        "newer facility-tui": tmp_path / "newer.toml",
        "encounter.name is missing": tmp_path / "edited.toml",
    }
    paths["is a folder"].mkdir()
    paths["cut short"].write_text(good[: len(good) // 2])
    paths["newer facility-tui"].write_text(good.replace("schema_version = 3", "schema_version = 9"))
    paths["encounter.name is missing"].write_text(good.replace("\nname =", "\nnmae =", 1))
    return paths


def test_export_of_what_cannot_be_read_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for says, path in damaged_copies(tmp_path).items():
        capsys.readouterr()
        assert main(["export", str(path)]) == 2, says
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and says in err, err
        assert err.startswith("facility-tui: ") and "Traceback" not in err


def test_export_to_a_folder_is_one_line(saved: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["export", str(saved), "-o", str(saved.parent)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "could not write" in err


# -- validate ------------------------------------------------------------------------------------


def test_validate_passes_the_sample_saves(capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["validate", str(SAVES), str(SAVES / "v2-2297-long.d")]) == 0
    out = capsys.readouterr().out
    assert out.endswith("no problem\n") and out.count("\n") == 1


def test_validate_names_each_problem_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = damaged_copies(tmp_path)
    folder = paths.pop("is a folder")  # (a folder is checked file by file: it has none)
    paths["no .toml file in this folder"] = folder
    shutil.copy(SAVES / "v3-2297-hand-edit.toml", tmp_path / "good.toml")
    before = sorted((p.name, p.stat().st_mtime_ns) for p in tmp_path.iterdir())
    capsys.readouterr()
    assert main(["validate", *map(str, paths.values()), str(tmp_path / "good.toml")]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(paths)
    for line, (says, path) in zip(lines, paths.items(), strict=True):
        assert line.startswith(f"{path}:") and says in line
    assert any("edited.toml:8: encounter.name is missing" in line for line in lines)  # line, key
    assert sorted((p.name, p.stat().st_mtime_ns) for p in tmp_path.iterdir()) == before


def test_validate_checks_config_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text('theme = "nrod"\n[keys]\nnext = "space"\nwarp = "w"\n')
    capsys.readouterr()
    assert main(["validate", str(cfg)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"{cfg}: theme 'nrod'") and "did you mean nord" in lines[0]
    assert lines[1] == f"{cfg}: [keys] warp: no key has this id"
    cfg.write_text('theme = "nord"\n[keys]\nnext = "space"\n')
    assert main(["validate", str(cfg)]) == 0


def test_validate_an_empty_folder_is_a_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["validate", str(tmp_path)]) == 1
    assert capsys.readouterr().out == f"{tmp_path}: no .toml file in this folder\n"


# -- show --json's format ----------------------------------------------------------------------


def test_show_json_format_3_shape(saved: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """docs/show-json.md describes this shape; a change to it is a new format number."""
    capsys.readouterr()
    assert main(["show", str(saved), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["format"] == data["schema_version"] == 3
    assert list(data) == [
        "format",
        "schema_version",
        "name",
        "system",
        "phase",
        "round",
        "turn",
        "current",
        "next",
        "order",
        "seed",
        "rolls",
        "table_dice",
        "state",
        "combatants",
        "log",
        "history",
    ]
    lurker = next(c for c in data["combatants"] if c["id"] == "lurker")
    assert list(lurker) == [
        "id",
        "name",
        "side",
        "initiative",
        "notes",
        "hidden",
        "notes_hidden",
        "sheet",
        "handle",
        "init",
        "joined",
        "derived",
    ]
    assert lurker["hidden"] is True and lurker["notes_hidden"] is False
    assert lurker["init"] == "3" and lurker["joined"] == ""
    doc = (ROOT / "docs" / "show-json.md").read_text()
    assert "version of this JSON shape (3)" in doc and "`hidden`, `notes_hidden`" in doc
    assert "`init`, `joined`" in doc


def test_watch_of_a_missing_save_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["watch", str(tmp_path / "none.toml")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not exist" in err
    assert list(tmp_path.iterdir()) == []


def test_report_says_where_the_kept_history_starts() -> None:
    """Falls come from the kept history; the log keeps the older ones (a save written before
    every step was kept holds its last 200: its history starts mid-fight)."""
    played = Session(evolve(blank(), seed=1))
    for line in FIGHT_2297[:-6]:
        played.execute(line)
    s = Session(played.encounter)
    for line in FIGHT_2297[-6:]:
        s.execute(line)
    report = render_markdown(s)
    assert s.base.round == 2
    assert "(The kept history starts in round 2: falls before it are in the log.)" in report
    assert "- Round 1: Boarder 1 — dying" not in report  # before the kept history
    assert "- Round 2: Boarder 2 — dying" in report
    check_against_log(report, s.encounter, list(s.encounter.log))  # the log is whole


# -- the app's export key -------------------------------------------------------------------------


async def test_E_writes_the_report_beside_the_save_and_says_where(tmp_path: Path) -> None:
    """E (binding id ``export``) pressed bare, then twice in a burst: the report is written
    beside the save each time, the fight is unchanged, and the toast names the file."""
    from facility_tui.screens.main import MainScreen
    from facility_tui.screens.widgets.status_pane import path_within

    from facility_tui.app import FacilityApp
    from tests.screen_check import screen_lines

    room = 35  # the cells of a toast's line (its width in styles/app.tcss, less its edges)

    app = FacilityApp(save_dir=tmp_path / "a-campaign-folder-with-a-long-name", seed=1)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        main = app.screen
        assert isinstance(main, MainScreen)
        for line in ("new 2297 Deck seed=5", "add Blanc side=pc init=9", "start"):
            assert main.run_line(line)
        before = app.workspace.encounter
        await pilot.press("E")
        await pilot.pause()
        report = app.workspace.path.with_suffix(".md")
        assert report.read_text().startswith("# Deck")
        said = [str(n.message) for n in app._notifications]
        assert said[-1] == f"Report written to {path_within(str(report), room)}"
        assert said[-1].endswith(f"/{report.name}") and len(said[-1].split()[-1]) <= room
        await pilot.pause()
        shown = said[-1].split()[-1]  # on the screen, whole on a line (it was cut mid-word)
        assert any(shown in line for line in screen_lines(app)), screen_lines(app)
        await pilot.press("E", "E")
        await pilot.pause()
        assert app.workspace.encounter is before
        assert "Blanc" in report.read_text()


def test_F10_the_players_hear_why_one_is_out_in_a_word() -> None:
    """The player view's and the public report's states come from the rules, not from the list's
    text: a fled, surrendered or dead Facility combatant reads fled, surrendered, out."""
    from facility_tui.report import public_state

    s = fight(
        (
            "new facility F seed=1",
            "add Ana side=pc",
            "add Bo",
            "add Cy",
            "add Di",
            "fate bo fled",
            "fate cy surrendered",
            "fate di dead",
        )
    )
    enc = s.encounter
    states = {c.id: public_state(enc, c) for c in enc.combatants}
    assert [(p.state, p.fallen) for p in states.values()] == [
        ("ok", False),
        ("fled", True),
        ("surrendered", True),
        ("out", True),
    ]
    s.execute("wound ana 1 phy")
    assert public_state(s.encounter, s.encounter.get("ana")).state == "hurt"


def test_a_hidden_name_in_another_case_stays_out_of_the_public_log() -> None:
    """A line naming a hidden combatant in lower case ("the boarder flanks") is about it too, as
    the log pane's own filter finds it."""
    from facility_tui.report import public_log

    s = fight(("new 2297 T seed=1", "add Boarder init=3", "add Blanc side=pc", "hide boarder"))
    s.execute("log the boarder flanks left")
    s.execute("log Blanc waits")
    texts = [e.text for e in public_log(s.encounter)]
    assert "Blanc waits" in texts and not any("boarder" in t.lower() for t in texts)


@pytest.mark.parametrize("lines", [FIGHT_2297, FIGHT_FACILITY], ids=["2297", "facility"])
def test_the_reports_final_table_says_what_the_list_says(lines: tuple[str, ...]) -> None:
    """The GM's final table keeps the (hidden) mark, writes every cell whole (a file has no
    width: long effects are not cut) and says each state in the list's own words (``uncons.``
    where the players' words would say ``down``)."""
    from facility_tui.report import marks
    from facility_tui.systems import rules_for

    s = fight(
        (
            *lines,
            *(
                ("fatigue sgt-blanc 45", "add Raider init=2", "hit raider 11 through dice=3,4,4")
                if lines is FIGHT_2297
                else ()
            ),
        )
    )
    enc = s.encounter
    rules = rules_for(enc.system)
    final = render_markdown(s).split("## Final state\n\n", 1)[1].splitlines()[2:]
    cells = {row.split(" | ")[0].removeprefix("| "): row.split(" | ") for row in final}
    hidden = [c for c in enc.combatants if c.hidden]
    assert hidden and all(f"{c.name} (hidden)" in cells for c in hidden)
    for c in enc.combatants:
        row = cells[" ".join(filter(None, [c.name, marks(c)]))]
        assert row[2] == rules.view.state_word(enc, c)  # the State cell: the list's word
        listed_cells = [
            str(v) for k, v in rules.view.summary(enc, c).items() if k in rules.view.columns
        ]
        assert rules.view.public_state(enc, c).fallen <= (row[2] in listed_cells)  # ...as the list
        assert "…" not in " ".join(row)
    if lines is FIGHT_2297:
        assert cells["Sgt. Blanc (note hidden)"][2] == "uncons."
        effects = rules.view.summary(enc, enc.get("raider"))["Effects"]
        assert len(effects) > 100 and cells["Raider"][-1] == md(effects) + " |"


def test_the_reports_falls_and_initiatives_say_what_the_list_says() -> None:
    """Who fell says the state in the final table's words (it said 'down' where the table
    said Serious); the participants' initiative is the list's Init (the turn's, after its
    penalties), not the base number under it. Facility, whose list has no initiative, has
    no such column."""
    from facility_tui.report import falls
    from facility_tui.systems import rules_for

    s = fight(
        (
            "new 2297 Deck seed=7",
            'add "Dr. Vance" side=pc init=12 hlt=22',
            "add Boarder init=5",
            "start",
            "set vance injury serious effects=no",
            "set vance damage 26",
            "set vance fatigue 20",
            "next",
            "end",
        )
    )
    enc = s.encounter
    rules = rules_for("2297")
    vance = enc.get("dr-vance")
    report = render_markdown(s)
    assert rules.view.state_word(enc, vance) == "Incapacitated"
    assert "- Round 1: Dr. Vance — Incapacitated" in report
    final = report.split("## Final state", 1)[1]
    assert "| Dr. Vance | pcs | Incapacitated |" in final
    assert [w for _, _, w in falls(s, public=True)[0]] == ["down"]  # the players' word
    assert "Dr. Vance — down" in render_markdown(s, public=True)
    participants = report.split("## Participants", 1)[1].split("##", 1)[0]
    for c in enc.combatants:
        init = rules.view.summary(enc, c)["Init"]
        assert f"| {c.name} | {c.side} | {init} |" in participants
    assert rules.view.summary(enc, vance)["Init"] != str(vance.initiative)  # (12: its base)
    facility = render_markdown(fight(FIGHT_FACILITY))
    assert "| Name | Side | Notes |" in facility and "| Initiative |" not in facility


def test_show_json_gives_the_room_the_storage_items_give(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save = tmp_path / "lab.toml"
    lines = [
        "new facility Lab",
        'add "Dr. Vance" side=pc',
        'sheet vance items="Fanny Pack, Messenger Bag, Toolbox"',
    ]
    assert main(["apply", str(save), "-q", *lines]) == 0
    capsys.readouterr()
    assert main(["show", str(save), "--json"]) == 0
    vance = json.loads(capsys.readouterr().out)["combatants"][0]
    assert (vance["sheet"]["pockets"], vance["sheet"]["slots"]) == (2, 6)  # as saved
    derived = vance["derived"]
    assert (derived["pockets"], derived["slots"], derived["bulky"]) == (5, 11, ["Toolbox"])
