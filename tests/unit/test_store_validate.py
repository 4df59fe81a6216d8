"""Issue 11: a save whose checksum holds is still checked before it becomes the fight."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from facility_tui import cli, store
from tests.conftest import fought
from tests.paths import FIXTURES


def body_of(text: str) -> str:
    return text.split("\n", 1)[1]


def resigned(text: str, edit: Callable[[str], str]) -> str:
    """``text`` (a save) changed by ``edit`` and given checksums that hold again: a file that
    claims facility-tui wrote it as it is."""
    body = edit(body_of(text))
    assert body != body_of(text), "the edit changed nothing"
    state, rest = body.split("\n" + store.SEPARATOR + "\n")
    return store.format.sign3(state + "\n", rest.removesuffix(store.END_LINE + "\n"))


def hand_edited(text: str, edit: Callable[[str], str]) -> str:
    """``text`` changed by ``edit`` as a GM would: the checksum line left as it was."""
    head, body = text.split("\n", 1)
    changed = edit(body)
    assert changed != body, "the edit changed nothing"
    return head + "\n" + changed


def first(pattern: str, replacement: str) -> Callable[[str], str]:
    """Replace the first match only: the ``[encounter]`` table comes before the history's."""
    return lambda body: re.sub(pattern, replacement, body, count=1, flags=re.MULTILINE)


def only_combatants(table: str) -> Callable[[str], str]:
    """Every ``[[combatants]]`` table replaced by ``table`` (a top-level key, so before the
    ``[encounter]`` table)."""

    def change(body: str) -> str:
        state, sep, rest = body.partition(store.SEPARATOR)
        head = state.split("\n[[combatants]]", 1)[0]
        head = head.replace("\n[encounter]\n", f"\n{table}\n\n[encounter]\n", 1)
        return f"{head}\n{sep}{rest}"

    return change


def nth_combatant(n: int, edit: Callable[[str], str]) -> Callable[[str], str]:
    def change(body: str) -> str:
        parts = body.split("[[combatants]]\n")
        parts[n + 1] = edit(parts[n + 1])
        return "[[combatants]]\n".join(parts)

    return change


CASES: dict[str, tuple[Callable[[str], str], str]] = {
    "round -1": (
        first(r"^round = \d+$", "round = -1"),
        "encounter.round must be 0 or more, got -1",
    ),
    "round 10**19": (
        first(r"^round = \d+$", f"round = {10**19}"),
        f"encounter.round must be at most {store.MAX_ROUND}, got {10**19}",
    ),
    "round as text": (
        first(r"^round = \d+$", 'round = "2"'),
        "encounter.round must be a whole number, got '2'",
    ),
    "round missing": (first(r"^round = \d+\n", ""), "encounter.round is missing"),
    "name missing": (first(r"^name = .*\n", ""), "encounter.name is missing"),
    "state missing": (first(r"^state = .*\n", ""), "encounter.state is missing"),
    "turn past the order": (
        first(r"^turn = \d+$", "turn = 2"),
        "encounter.turn must be at most the order's last (1), got 2",
    ),
    "negative rolls": (first(r"^rolls = \d+$", "rolls = -4"), "encounter.rolls must be 0 or more"),
    "negative seed": (first(r"^seed = \d+$", "seed = -3"), "encounter.seed must be 0 or more"),
    "unknown phase": (
        first(r'^phase = "active"$', 'phase = "fighting"'),
        "encounter.phase must be one of setup, active, ended, got 'fighting'",
    ),
    "unknown system": (
        first(r'^system = "2297"$', 'system = "d&d"'),
        "encounter.system must be 2297 or facility, got 'd&d'",
    ),
    "order of numbers": (
        first(r"^order = .*$", "order = [1, 2]"),
        "encounter.order must be a list of combatant ids or sides",
    ),
    "combatants not a list": (only_combatants("combatants = 3"), "combatants must be a list"),
    "combatant without id": (
        nth_combatant(0, lambda t: t.replace('id = "alpha"\n', "", 1)),
        "combatants[0].id must be non-empty text, got nothing",
    ),
    "combatant name a number": (
        nth_combatant(1, lambda t: t.replace('name = "Beta"', "name = 7", 1)),
        "combatants[1].name must be non-empty text, got 7",
    ),
    "combatant a list": (
        only_combatants("combatants = [[1, 2]]"),
        "combatants[0] must be a table, got [1, 2]",
    ),
    "the same id twice": (
        nth_combatant(1, lambda t: t.replace('id = "beta"', 'id = "alpha"', 1)),
        "combatants[1].id 'alpha' is the id of an earlier combatant too",
    ),
}


@pytest.fixture
def saved_text() -> str:
    s = fought(1)  # round 2 of a fight of two: turn 0, order of 2
    assert s.encounter.round == 2 and len(s.encounter.order) == 2
    return store.dumps(s)


@pytest.mark.parametrize("case", CASES)
def test_a_wrong_save_with_a_good_checksum_is_refused_naming_the_key(
    case: str, saved_text: str
) -> None:
    edit, message = CASES[case]
    text = resigned(saved_text, edit)
    with pytest.raises(store.InvalidSave) as caught:
        store.loads(text, "fight.toml")
    shown = str(caught.value)
    assert shown.startswith("fight.toml: ") and message in shown, shown
    assert "\n" not in shown


@pytest.mark.parametrize("case", CASES)
def test_the_same_by_hand_is_refused_naming_the_line(case: str, saved_text: str) -> None:
    edit, message = CASES[case]
    with pytest.raises(store.InvalidSave) as caught:
        store.loads(hand_edited(saved_text, edit), "fight.toml")
    shown = str(caught.value)
    assert re.match(r"fight\.toml:\d+: ", shown) and message in shown, shown
    line = int(shown.split(":")[1])
    assert 1 < line < saved_text.split("\n").index(store.SEPARATOR) + 1
    assert "\n" not in shown


@pytest.mark.parametrize("case", ["combatants not a list", "round -1", "round 10**19"])
def test_on_disk_it_is_left_untouched_and_a_backup_offered(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "fight.toml"
    s = fought(1)
    store.save(s, path)  # with a backup of this round in fight.d/
    store.forget(path)
    bad = resigned(path.read_text(), CASES[case][0])
    path.write_text(bad)
    with pytest.raises(store.InvalidSave, match=re.escape(CASES[case][1])):
        store.load(path)
    assert cli.main(["show", str(path)]) == 2  # refused, saying how to go on
    err = capsys.readouterr().err
    assert CASES[case][1] in err and "--from-backup" in err and err.count("\n") == 1
    assert cli.main(["show", str(path), "--from-backup"]) == 0  # from the backup, saying so
    err = capsys.readouterr().err
    assert "backup" in err and err.count("\n") == 1
    assert path.read_text() == bad
    session, note = store.load_or_recover(path, from_backup=True)
    assert session.encounter == s.encounter and note is not None
    assert list(tmp_path.glob("fight.toml.corrupt-*"))  # set aside, never deleted


def test_a_wrong_history_base_drops_the_history_not_the_fight(saved_text: str) -> None:
    def base_round(body: str) -> str:
        head, base = body.split("[timeline.root]", 1)
        return (
            head
            + "[timeline.root]"
            + re.sub(r"^round = \d+$", "round = -1", base, count=1, flags=re.M)
        )

    loaded = store.loads(resigned(saved_text, base_round))
    assert loaded.encounter.round == 2 and not loaded.can_undo()
    assert "Undo history could not be rebuilt" in loaded.encounter.log[-1].text


def test_every_fixture_and_fresh_save_passes() -> None:
    for enc_text in (store.dumps(fought(3)), store.dumps(store.fresh_session())):
        store.loads(enc_text)
    folder = FIXTURES / "saves"
    for path in sorted(folder.glob("*.toml")):
        store.load(path)


def test_a_timeline_that_does_not_lead_to_the_fight_is_dropped_and_the_steps_since_kept(
    saved_text: str,
) -> None:
    """Issue 38: the check at open (the last step replayed from the fight kept nearest above)
    finds a step changed below the line; opened as the app opens a save, a
    command made before the check stays, undoable back to the fight as opened."""

    def last_roll(body: str) -> str:
        head, nodes = body.split("nodes = '''", 1)
        turn = [ln for ln in nodes.split("\n'''", 1)[0].split("\n") if '"next"' in ln][-1]
        changed = turn.replace('"line": "next"', '"line": "roll 1d4"')
        return head + "nodes = '''" + nodes.replace(turn, changed, 1)

    text = resigned(saved_text, last_roll)
    assert "could not be rebuilt" in store.loads(text).encounter.log[-1].text
    path = Path(__import__("tempfile").mkdtemp()) / "f.toml"
    path.write_text(text)
    opened = store.open_save(path, keep_aside=False, later=True).session
    at_open = opened.encounter
    opened.execute("roll 1d6")
    assert opened.settle() is not None and opened.lost
    assert len(opened.timeline) == 1 and opened.timeline.root == at_open
    opened.undo()
    assert opened.encounter == at_open and not opened.can_undo()
