"""The command grammar, name resolution, and refusals that change nothing."""

from __future__ import annotations

import pytest

from facility_tui.commands.grammar import CommandError, parse
from facility_tui.commands.session import Session
from tests.conftest import run


def test_parse_words_quotes_and_options() -> None:
    p = parse('add "Sgt. Blanc" side=pc init=2d6+3')
    assert p.verb == "add"
    assert p.args == ("Sgt. Blanc",)
    assert dict(p.options) == {"side": "pc", "init": "2d6+3"}


def test_parse_rejects_unbalanced_quotes() -> None:
    with pytest.raises(CommandError):
        parse('add "Blanc')


def test_names_resolve_by_id_name_prefix_and_number(session: Session) -> None:
    run(session, "new 2297 T seed=1", 'add "Sgt. Blanc" init=15', "add Cassart init=12")
    session.execute("note blanc watch the door")
    session.execute("note SGT. BLANC still")
    session.execute("note cas hurt")
    session.execute("note #1 first")
    enc = session.encounter
    assert enc.get("sgt-blanc").notes == "first"
    assert enc.get("cassart").notes == "hurt"


def test_ambiguous_prefix_is_refused(session: Session) -> None:
    run(session, "new 2297 T seed=1", "add Boarder count=2")
    with pytest.raises(CommandError, match="could be"):
        session.execute("remove boarder")


@pytest.mark.parametrize(
    "line",
    [
        "flibble",
        "add",
        "remove nobody",
        "init 1 foo",
        "init 1 2d",
        "add X side=martian",
        "add X wings=2",
        "roll 100000d6",
        "next now",  # (next alone starts combat in setup, as the n key does)
        "resume",  # not ended
        "prev",
        "redo",
        "add X count=0",
    ],
)
def test_bad_input_changes_nothing(session: Session, line: str) -> None:
    run(session, "new 2297 T seed=1", "add A init=5")
    before = session.encounter
    undo = session.undo_steps
    with pytest.raises(CommandError) as err:
        session.execute(line)
    assert "\n" not in str(err.value)
    assert session.encounter == before
    assert session.undo_steps == undo


def test_undo_and_redo_with_no_history_are_refused(session: Session) -> None:
    for line in ("undo", "redo"):
        with pytest.raises(CommandError, match="nothing to"):
            session.execute(line)


def test_count_adds_numbered_combatants(session: Session) -> None:
    run(session, "new 2297 T seed=1", "add Boarder count=3 init=1d6")
    names = [c.name for c in session.encounter.combatants]
    assert names == ["Boarder 1", "Boarder 2", "Boarder 3"]


def test_duplicate_names_get_distinct_ids(session: Session) -> None:
    run(session, "new 2297 T seed=1", "add Thug", "add Thug")
    assert [c.id for c in session.encounter.combatants] == ["thug", "thug-2"]


def test_C4_manual_initiative_is_logged_as_override(session: Session) -> None:
    run(session, "new 2297 T seed=1", "add A init=5", "init a 2d6+10")
    last = session.encounter.log[-1]
    assert last.kind.value == "override"
    assert 12 <= session.encounter.get("a").initiative <= 22


def test_count_builds_a_sheet_for_each(session: Session) -> None:
    """Rolled stats are rolled for every combatant that count= adds, not shared."""
    run(session, "new facility F seed=5", "add Temp count=3 roll=yes")
    sheets = [c.sheet for c in session.encounter.combatants]
    assert len(sheets) == 3 and len({repr(s) for s in sheets}) == 3


def test_names_resolve_by_the_starts_of_consecutive_words(session: Session) -> None:
    run(session, "new 2297 T seed=1", "add Containment Drone count=2", "add Dr. Okafor")
    assert session.execute("note drone-2 x") and session.encounter.get("containment-drone-2").notes
    session.execute('note "cont dr 1" y')
    assert session.encounter.get("containment-drone-1").notes == "y"
    with pytest.raises(CommandError, match="could be"):
        session.execute("note dr z")  # Drone 1, Drone 2 and Dr. Okafor
    session.execute("note dr2 w")  # (letters then digits: two words, as the list shows it)
    assert session.encounter.get("containment-drone-2").notes == "w"


def test_a_number_in_a_name_is_a_whole_word(session: Session) -> None:
    """``goon1`` and ``goon 1`` are Goon 1, not Goon 10 (a number is not the start of another)."""
    run(session, "new 2297 T seed=1", "add Goon count=12")
    session.execute("note goon1 a")
    session.execute('note "goon 12" b')
    enc = session.encounter
    assert (enc.get("goon-1").notes, enc.get("goon-12").notes) == ("a", "b")
    with pytest.raises(CommandError, match="no combatant called 'goon13'"):
        session.execute("note goon13 c")


def test_counts_of_one_are_said_in_the_singular() -> None:
    """A count of one in the log, a refusal, a pane or a reminder reads "1 round", "1 turn",
    "1 wound" (never "1 rounds", nor "wound(s)")."""
    import re

    from attrs import evolve

    from facility_tui.store import blank
    from facility_tui.systems import rules_for

    plural_one = re.compile(
        r"(?<![\d./])1 (?:\w+ )?"
        r"(rounds|dice|wounds|turns|faces|numbers|slots|pockets|rooms|hours|files)\b(?!=)|\(s\)"
    )
    said: list[str] = []

    def play(*lines: str) -> Session:
        s = Session(evolve(blank(), seed=3))
        for line in lines:
            try:
                said.append(s.execute(line).message)
            except CommandError as err:
                said.append(str(err))
            enc = s.encounter
            rules = rules_for(enc.system)
            said.extend(d.text for d in rules.view.reminders(enc))
            for c in enc.combatants:
                said.extend(
                    r.text for p in rules.view.panes(enc, c) for r in p.rows if hasattr(r, "text")
                )
        said.extend(e.text for e in s.encounter.log)
        return s

    play(
        "new 2297 Range seed=7",
        'add A side=pc init=20 skill=100 weapon="Gun 2d6 SS/BF 1"',
        "add B init=10 hlt=500 sta=500",
        "start",
        "attack a b mode=BF free",  # refused: the gun has 1 round
        "attack a b mode=SS free",  # uses 1 round
        "reload a",  # 1 round
    )
    play(
        "new facility Lab seed=5",
        'add Ana side=pc phy=1 sci=0 ins=0 adm=0 nor=0 ppe="Respirator"',
        "add Drone track=3",
        "start first=pc",
        "harm ana 1 contaminants save=no",
        "harm ana 1 contaminants d20=1",  # pending: 1 contaminants wound, ablate or suffer
        "wound drone 4",  # 1 beyond the track
        "add Dale side=pc job=tech parts=1 clearance=1",
        "tech dale workorder 2",  # refused: 1 slot of Spare Parts
        "tech dale reroute 1 dice=3",  # 1 room, 1 hour
    )
    wrong = [text for text in said if plural_one.search(text)]
    assert not wrong
    for meant in (
        "Gun has 1 round, BF needs 5",
        "uses 1 round (0 left)",
        "reloads Gun (1 round)",
        "no save against 1 contaminants wound",
        "Ana: 1 contaminants wound, ablate or suffer",
        "1 wound beyond Drone's track capacity 3",
        "Dale has 1 slot of Spare Parts",
        "across 1 room, 1 hour of work",
    ):
        assert any(meant in text for text in said), meant


def test_messages_name_only_commands_the_line_has() -> None:
    """A message that quotes a command (`'newday' resets`, `'deal ana'`) names one the line
    takes, or a word of a command's usage (`'through'`): never `'show'` or `'help'`, which are
    not commands of the line. (The CLI's own help, cli.py and arguments.py, names its
    subcommands.)"""
    import ast
    import re
    from pathlib import Path

    from facility_tui.commands.dispatch import _index, help_lines
    from facility_tui.systems import ids

    known = {name for system in ids() for name in _index(system)}
    usage_words = {w for usage, _ in help_lines() for w in re.findall(r"[a-z][a-z-]*", usage)}
    quoted = re.compile(r"(?<![A-Za-z])'([a-z][a-z-]+)(?:'| )")  # ('s: a possessive)
    wrong = []
    for path in sorted(Path("facility_tui").rglob("*.py")):
        if path.name in ("cli.py", "arguments.py"):
            continue
        tree = ast.parse(path.read_text())
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            and node.body
            and isinstance(node.body[0], ast.Expr)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if id(node) in docstrings:
                    continue
                for word in quoted.findall(node.value):
                    if word not in known | usage_words:
                        wrong.append(f"{path}:{node.lineno}: '{word}' in {node.value!r}")
    assert not wrong, "\n".join(wrong)


def test_an_unknown_name_says_whom_the_fight_has(session: Session) -> None:
    run(session, "new 2297 T seed=1", "add Rook side=pc", "add Vance")
    with pytest.raises(CommandError, match=r"no combatant called 'rok' \(did you mean Rook\?\)$"):
        session.execute("hit rok 3")
    with pytest.raises(CommandError, match=r"called 'zzz': the fight has Rook, Vance$"):
        session.execute("hit zzz 3")


def test_a_line_is_read_once_per_text_and_system() -> None:
    """A read line is kept (a forecast runs the same few thousands of times): the same text in
    the same rules gives the same reading; another text, or the same text in other rules, its
    own; a refused line is refused each time, never kept as read."""
    from facility_tui.commands.dispatch import read_line

    first = read_line("soak boarder-1 2 no", "2297")
    assert read_line("soak boarder-1 2 no", "2297") is first
    other = read_line("soak boarder-1 3 no", "2297")
    assert other is not first
    assert other.parsed.args == ("boarder-1", "3", "no")
    assert read_line("next", "facility").system == "facility"
    assert read_line("next", "2297").system == "2297"
    for _ in range(2):
        with pytest.raises(CommandError, match="rule of 2297, not of facility"):
            read_line("soak boarder-1 2 no", "facility")


def test_lines_with_no_campaign_share_a_window_that_keeps_nothing() -> None:
    """A line applied with no campaign (a forecast's play, a save with no folder) reads through
    one shared window: a read is refused in one line, and nothing of it is kept for the next."""
    from facility_tui.commands import dispatch
    from facility_tui.model.encounter import Encounter

    enc = dispatch.apply(Encounter("x", "2297"), "new 2297 Duel seed=5").encounter
    with pytest.raises(CommandError, match="no campaign folder to read the template 'guard'"):
        dispatch.apply(enc, "add from=guard")
    window = dispatch._NO_CAMPAIGN
    assert window.read == [] and window.campaign is None and not window.replaying
    done = dispatch.apply(enc, 'add Ann side=pc hlt=10 weapon="Gun 1d6 SS"')
    assert done.reads == () and window.read == []
