"""Catalogs as data (issue 24): the rules' weapons, PPE, storage items, jobs and scales shipped
as TOML in each rule system's package, a campaign's own ``catalogs/*.toml`` adding to them or
overriding them by name, each mistake refused with its file and line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from facility_tui.systems.facility import core

FIXTURE = Path(__file__).parent / "fixtures" / "catalog_constants.json"


def _figures() -> dict[str, Any]:
    """The Facility figures as the rules code sees them, in plain data."""

    def ppe(p: core.PPEItem) -> dict[str, Any]:
        return {
            "number": p.number,
            "name": p.name,
            "rating": p.rating,
            "covers": sorted(p.covers),
            "bonuses": [list(b) for b in p.bonuses],
            "narrow": [list(b) for b in p.narrow],
            "impairs": p.impairs,
            "unless_armor": p.unless_armor,
            "notes": p.notes,
        }

    def wpn(w: core.Weapon) -> dict[str, Any]:
        fields = ("key", "name", "count", "sides", "flat", "crit_count", "crit_sides")
        return {f: getattr(w, f) for f in (*fields, "gun", "consumable", "notes")}

    def job(k: str, j: core.Job) -> dict[str, Any]:
        return {
            "key": k,
            "name": j.name,
            "saves": [getattr(j.saves, s) for s in core.SAVES],
            "expertise": list(j.expertise),
            "ppe": list(j.ppe),
            "parts": j.parts,
            "clearance": j.clearance,
            "uniform": j.uniform,
        }

    return {
        "ppe": [ppe(p) for p in core.PPE_CATALOG],
        "weapons": [wpn(w) for w in core.WEAPONS.values()],
        "weapon_words": dict(sorted(core._WEAPON_WORDS.items())),
        "jobs": [job(k, j) for k, j in core.JOBS.items()],
        "job_words": dict(sorted(core._JOB_WORDS.items())),
        "competence": {str(t): core.competence(t) for t in range(3, 19)},
    }


def test_F6_F8_F12_F1_shipped_figures_are_the_former_constants() -> None:
    """The fixture was written from the Python constants before they moved to TOML: the numbers
    the rules use did not change in the move."""
    assert _figures() == json.loads(FIXTURE.read_text(encoding="utf-8"))
