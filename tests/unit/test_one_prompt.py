"""One prompt per roll (issue 23): with table dice, a 2297 attack asks for all its d10s at once
(2d10, or 3d10kh2 with Advantage), each face counting (the kept two, a double); the d10s are still
recorded one by one, so older histories replay as they were."""

from __future__ import annotations

import pytest

from facility_tui import store
from facility_tui.commands.dice import DiceError, NeedRoll
from facility_tui.commands.dispatch import Applied, answered, apply
from facility_tui.model.encounter import Encounter

FIGHT = (
    "new 2297 Deck seed=5",
    "add Ana side=pc init=20 hlt=20 sta=20 skill=12 weapon='SMG 3d6+1 SA/BF 30'",
    "add Bo init=5 hlt=20 sta=20 armor='Vest 10/20'",
    "start",
    "tabledice all",
)


def build() -> Encounter:
    enc = store.blank()
    for line in FIGHT:
        enc = apply(enc, line).encounter
    assert enc.current == "ana"
    return enc


def asked(enc: Encounter, line: str) -> NeedRoll:
    with pytest.raises(NeedRoll) as need:
        apply(enc, line, prompt=True)
    return need.value


def finish(enc: Encounter, line: str) -> Applied:
    """Run ``line`` in prompt mode, letting the tracker roll every roll asked after it."""
    while True:
        try:
            return apply(enc, line, prompt=True)
        except NeedRoll as need:
            line = answered(line, enc.system, need.index, [None] * need.count)


@pytest.mark.parametrize(
    ("line", "expr", "count"),
    [("attack ana bo", "2d10", 2), ("attack ana bo adv=1", "3d10kh2", 3)],
)
def test_A5_the_attack_d10s_are_one_prompt(line: str, expr: str, count: int) -> None:
    enc = build()
    need = asked(enc, line)
    assert (need.expr, need.index, need.sides, need.sums) == (expr, 0, (10,) * count, False)
    assert need.label == f"Ana — attack d10, {expr}"
    assert need.hint.startswith(f"Type each of the {count} faces (d10)")
    faces = [7, 7, 3][:count]
    assert need.answer(" ".join(map(str, faces))) == faces
    assert need.answer(",".join(map(str, faces))) == faces
    with pytest.raises(DiceError, match="each die counts"):
        need.answer("14")  # the faces count here (the two kept, a double), not their sum
    typed = answered(line, enc.system, need.index, faces)
    assert typed == f"{line} dice={','.join(map(str, faces))}"
    damage = asked(enc, typed)  # the next roll: the hit's damage, after the d10s
    assert damage.index == count and "damage" in damage.what
    done = finish(enc, typed)  # the tracker rolls the damage and the rest
    assert [r.expr for r in done.rolls[:count]] == ["1d10"] * count  # recorded one by one
    said = [e.text for e in done.encounter.log]
    assert any(
        t.startswith(f"Ana attacks Bo: {expr} ({', '.join(map(str, faces))} typed) keep 7+7 +5")
        for t in said
    )
    assert done.encounter == apply(enc, done.line).encounter


def test_A5_an_attack_with_some_d10s_typed_asks_for_the_rest_at_once() -> None:
    enc = build()
    need = asked(enc, "attack ana bo adv=1 dice=4")
    assert (need.index, need.sides, need.more) == (1, (10, 10), True)
    assert need.label.endswith("3d10kh2 (2 more dice)")


def test_A5_without_table_dice_the_attack_rolls_as_before() -> None:
    """The tracker's own rolls draw the same dice as when each d10 was rolled on its own."""
    enc = apply(build(), "tabledice app").encounter
    done = apply(enc, "attack ana bo adv=1", prompt=True)
    d10s = [r for r in done.rolls if r.expr == "1d10"]
    assert len(d10s) == 3
    again = apply(enc, "attack ana bo adv=1 dice=" + ",".join(str(r.total) for r in d10s))
    assert [r.total for r in again.rolls[:3]] == [r.total for r in d10s]
