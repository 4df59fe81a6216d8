"""The demo encounter a first launch opens: a boarding action aboard the *Jean Bart* (2297)."""

from __future__ import annotations

from facility_tui.commands import apply
from facility_tui.model import Encounter
from facility_tui.store import blank

DEMO_2297 = (
    'new 2297 "Boarding the Jean Bart" seed=2297',
    'add "Lt. de Lisieux" side=pc init=1d6+6',
    'add "Sgt. Blanc" side=pc init=1d6+9',
    'add "Aspirant Cassart" side=pc init=1d6+7',
    'add "Cdt. Delaunay" side=pc init=1d6+5',
    'add "Boarder" side=enemy count=3 init=1d6+5',
    'add "Boarding Chief" side=enemy init=1d6+8',
)


def demo_encounter(lines: tuple[str, ...] = DEMO_2297) -> Encounter:
    enc = blank()
    for line in lines:
        enc = apply(enc, line).encounter
    return enc.logged("Demo fight. Press s to start combat, ctrl+n for a new encounter, ? for keys")
