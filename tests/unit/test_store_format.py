"""Save format (issue 5): round trips, migrations, schemas. (Log files, names, atomic writes and
backups have test files of their own: test_store_logfiles, _files, _atomic, _backups.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from facility_tui import store
from facility_tui.commands.grammar import quote
from facility_tui.commands.session import Session
from facility_tui.model.codec import encode
from facility_tui.store import migrations
from facility_tui.store.steps import STEP_CHUNK
from tests.paths import SAVES


def fight(*lines: str, seed: int = 3) -> Session:
    session = store.fresh_session()
    session.apply(f"new 2297 Test seed={seed}")
    for line in lines:
        session.execute(line)
    return session


def long_fight(rounds: int) -> Session:
    session = fight("add Alpha side=pc init=12", "add Beta init=5", "add Gamma init=3", "start")
    while session.encounter.round <= rounds:
        session.apply("roll 2d6")
        session.apply("next")
    return session


def same(a: Session, b: Session) -> None:
    assert a.encounter == b.encounter
    assert a.undo_steps == b.undo_steps
    assert a.redo_steps == b.redo_steps
    assert a.base == b.base


def test_round_trip_keeps_fight_and_history(tmp_path: Path) -> None:
    s = long_fight(3)
    s.undo()
    s.undo()
    path = tmp_path / "f.toml"
    store.save(s, path)
    same(store.load(path), s)


def test_text_that_toml_and_json_find_awkward(tmp_path: Path) -> None:
    # Control characters are refused as input now, but an older save may hold some.
    old = fight().encounter.logged("tab\tdel\x7fend")
    s = Session(old)
    s.apply("add Alpha side=pc init=12")
    for text in ["it'''s", "a'b''c", 'quote " back\\slash', "ünï 🐉 中", "''"]:
        s.apply(f"log {quote(text)}")
    odd = "O'''Brien \"the\" \\ 🐉"
    s.apply("rename alpha " + quote(odd))
    path = tmp_path / "f.toml"
    store.save(s, path)
    same(store.load(path), s)
    same(store.loads(store.dumps(s)), s)


def test_every_step_is_kept_and_the_main_file_holds_only_the_newest(tmp_path: Path) -> None:
    """No step is ever trimmed (issue 38); the main file holds fewer than a step file's worth
    of them, the rest sealed in write-once step files."""
    path = tmp_path / "f.toml"
    s = long_fight(80)
    assert len(s.undo_steps) > 400
    store.save(s, path)
    loaded = store.load(path)
    same(loaded, s)
    nodes = path.read_text().split("nodes = '''")[1].split("\n'''")[0].strip().splitlines()
    assert len(nodes) < STEP_CHUNK
    assert len(list((tmp_path / "f.d").glob("steps-*.toml"))) == len(s.undo_steps) // STEP_CHUNK


@pytest.mark.parametrize("fixture", sorted(SAVES.glob("v1-*.toml")), ids=lambda p: p.stem)
def test_schema_1_fixtures_migrate(fixture: Path, tmp_path: Path) -> None:
    expected = json.loads(fixture.with_suffix(".expected.json").read_text())
    path = tmp_path / fixture.name
    path.write_bytes(fixture.read_bytes())
    loaded = store.load(path)
    got = encode(loaded.encounter)
    # The rules may have changed since the fixture was written: then the history does not replay,
    # and it is dropped with a note; the fight itself must be exactly what schema 1 held.
    if got["log"][-1]["text"].startswith("Undo history could not be rebuilt"):
        got["log"].pop()
        assert loaded.undo_steps == []
    else:
        assert [encode(s) for s in loaded.undo_steps] == expected["undo"]
        assert [encode(s) for s in loaded.redo_steps] == expected["redo"]
    # Rule systems add fields with defaults over time: what schema 1 held must be there unchanged.
    assert_within(expected["encounter"], got)
    store.save(loaded, path)  # written as schema 2, the original kept aside
    assert path.read_text().startswith("#facility-tui state-sha256=")
    assert list((tmp_path / f"{path.stem}.d").glob("before-upgrade-*.toml"))
    same(store.load(path), loaded)


def assert_within(expected: object, got: object, where: str = "encounter") -> None:
    if isinstance(expected, dict):
        assert isinstance(got, dict), where
        for key, value in expected.items():
            assert key in got, f"{where}.{key}"
            assert_within(value, got[key], f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected), where
        for i, (e, g) in enumerate(zip(expected, got, strict=True)):
            assert_within(e, g, f"{where}[{i}]")
    else:
        assert got == expected, where


def test_every_schema_version_has_a_fixture_and_a_migration() -> None:
    for version in range(1, store.SCHEMA_VERSION):
        assert version in migrations.MIGRATIONS
        assert list(SAVES.glob(f"v{version}-*.toml")), f"no fixture of schema {version}"
    assert list(SAVES.glob(f"v{store.SCHEMA_VERSION}-*.toml"))


def test_schema_2_fixture_loads() -> None:
    for fixture in SAVES.glob("v2-*.toml"):
        loaded = store.load(fixture)
        assert loaded.encounter.log


def test_newer_schema_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    path = tmp_path / "f.toml"
    path.write_text('schema_version = 99\n[encounter]\nname = "x"\n')
    with pytest.raises(store.NewerSave, match=r"f\.toml.*newer.*upgrade facility-tui"):
        store.load(path)
    with pytest.raises(store.NewerSave):
        store.load_or_recover(path)
    assert path.exists()


def test_a_schema_2_history_keeps_what_set_injury_did_then() -> None:
    """``set WHO injury LEVEL`` now brings the level's effects; a history saved before replays
    as it ran then (``effects=no``), so its undo steps still rebuild."""
    doc = {
        "schema_version": 2,
        "history": {
            "undo": [{"line": "set blanc injury serious", "rolls": []}, {"line": "next"}],
            "redo": [{"line": "set a injury light effects=yes"}],
        },
    }
    out = migrations.migrate(doc)["history"]
    assert [s["line"] for s in out["undo"]] == ["set blanc injury serious effects=no", "next"]
    assert out["redo"] == [{"line": "set a injury light effects=yes"}]


def test_a_save_reformats_only_the_combatants_changed_since_it_was_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opened and saved again, a fight reuses each unchanged combatant's table as it was read
    (a thousand-goon fight's ``apply`` formats the few a command changed), and the file is the
    one a writer formatting every table afresh writes."""
    from facility_tui.store import format as fmt
    from facility_tui.store import writer
    from facility_tui.store.saver import saver_for

    s = fight(*(f"add Goon{i} init={i}" for i in range(12)), "start")
    path = tmp_path / "f.toml"
    store.save(s, path)
    store.forget(path)
    opened = store.open_save(path, keep_aside=False, later=True).session
    # a view reading the save again at each autosave keeps the tables of the last read only
    store.open_save(path, keep_aside=False, later=True)
    opened = store.open_save(path, keep_aside=False, later=True).session
    assert len(saver_for(path).writer._read) == len(opened.encounter.combatants)
    made: list[str] = []
    real = fmt.combatant_text

    def counted(c: object) -> str:
        made.append(getattr(c, "id", "?"))
        return real(c)

    monkeypatch.setattr(writer, "combatant_text", counted)
    opened.execute("hit goon3 5")
    store.save(opened, path)
    assert made == ["goon3"]
    monkeypatch.setattr(writer, "combatant_text", real)
    fresh = writer.Writer().state(opened.encounter)
    assert path.read_text().split("\n", 1)[1].startswith(fresh)


def test_a_save_from_before_the_combatants_kept_their_init_keeps_its_history(
    tmp_path: Path,
) -> None:
    """Written before a combatant kept its add line's init= (and what it joined as from the
    party): the replay gives them, the saved fight has none, and the history is kept all the
    same, opened whole, hand-edited, or as its newest good version."""
    fixture = SAVES / "v3-2297-before-init.toml"
    path = tmp_path / fixture.name
    path.write_bytes(fixture.read_bytes())
    loaded = store.load(path)
    steps = [s.line for s in loaded.undo_steps]
    assert steps[:2] == ["new 2297 Deck seed=5", 'add "Sgt. Blanc" side=pc init=12']
    assert not any("could not be rebuilt" in e.text for e in loaded.encounter.log)
    assert loaded.encounter.get("boarder-1").init == ""  # as saved
    loaded.undo()
    assert loaded.encounter.get("boarder-1").init == "1d6+5"  # as its step replays now
    lazy = store.open_save(path, later=True).session  # (as the app opens it)
    assert lazy.settle() is None and len(lazy.undo_steps) == 6
    # a hand edit of it keeps the history and adds the edit as one step
    text = path.read_text(encoding="utf-8").replace('name = "Boarder 2"', 'name = "Raider"', 1)
    path.write_text(text, encoding="utf-8")
    edited = store.load(path)
    assert edited.undo_steps[-1].edit is not None and len(edited.undo_steps) == 7
    assert edited.encounter.combatants[2].name == "Raider"
