"""Issue 24: both demo fights rebuilt from the campaign alone — the party for the PCs, templates
for the enemies — and the keys it takes, against typing each combatant out. The rebuilt fight
has the demo's combatants: the same names, sides and sheets (initiative aside: it is rolled)."""

from __future__ import annotations

from pathlib import Path

import pytest

from facility_tui.campaign.folder import Campaign
from facility_tui.model.encounter import PCS, Combatant, Encounter
from facility_tui.systems import rules_for
from facility_tui.workspace import Workspace

# What the GM types to bring each demo's combatants into a new fight from the campaign, once the
# PCs are in the party and the enemies' kinds are templates.
FROM_CAMPAIGN = {
    "facility": [
        "party join",
        "add from=containment-drone count=2",
        "add from=nominative-determinism",
    ],
    "2297": [
        "party join",
        "add from=boarder count=3",
        "add from=boarding-chief",
        "aware delaunay partial",  # (awareness is the fight's, not the party's: A2)
    ],
}
# The enemies kept as templates: (the one to keep, the template's name)
TEMPLATES = {
    "facility": [
        ("containment-drone-1", "containment-drone"),
        ("e-0001-001-nominative-determinism", "nominative-determinism"),
    ],
    "2297": [("boarder-1", "boarder"), ("boarding-chief", "boarding-chief")],
}


def keys(lines: list[str]) -> int:
    """Keys to type ``lines`` on the command line: ``:``, the characters, enter."""
    return sum(len(line) + 2 for line in lines)


def as_built(c: Combatant) -> tuple[object, ...]:
    return (c.name, c.side, c.notes, c.hidden, c.sheet)


def prepared_campaign(folder: Path, system: str) -> Workspace:
    """The demo built once as a GM would, its PCs put in the party, its enemies kept as
    templates; then a new, empty fight of the same rules."""
    ws = Workspace(folder, seed=1)
    ws.start_demo(system)
    enc = ws.encounter
    for c in enc.combatants:
        if c.side == PCS:
            ws.execute(f"party add {c.id}")
    for cid, name in TEMPLATES[system]:
        ws.execute(f"template save {cid} {name}")
    ws.new_encounter(system, "Rebuilt")
    return ws


def demo_lines(system: str) -> list[str]:
    return [line for line in rules_for(system).demo if line.startswith("add ")]


def built(lines: list[str], system: str) -> Encounter:
    from facility_tui.commands.dispatch import apply
    from facility_tui.store import blank

    enc = apply(blank(), f"new {system} Typed seed=1").encounter
    for line in lines:
        enc = apply(enc, line).encounter
    return enc


@pytest.mark.parametrize("system", ["facility", "2297"])
def test_a_demo_rebuilt_from_the_party_and_templates_is_the_demo(
    tmp_path: Path, system: str
) -> None:
    ws = prepared_campaign(tmp_path, system)
    for line in FROM_CAMPAIGN[system]:
        ws.execute(line)
    rebuilt = ws.encounter
    typed = built(demo_lines(system), system)
    assert sorted(map(as_built, rebuilt.combatants), key=repr) == sorted(
        map(as_built, typed.combatants), key=repr
    )
    assert Campaign(tmp_path).party.exists()


@pytest.mark.parametrize(
    ("system", "typed_keys", "campaign_keys"), [("facility", 418, 81), ("2297", 795, 87)]
)
def test_the_keys_it_takes(system: str, typed_keys: int, campaign_keys: int) -> None:
    """The README's table: keys to bring a demo's combatants in, typed out and from the
    campaign."""
    assert (keys(demo_lines(system)), keys(FROM_CAMPAIGN[system])) == (typed_keys, campaign_keys)
