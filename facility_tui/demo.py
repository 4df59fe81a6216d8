"""Demo encounters: a first launch opens the 2297 one, a boarding action aboard the *Jean Bart*;
``--demo facility`` opens a lockdown in the Facility."""

from __future__ import annotations

from facility_tui.dispatch import apply
from facility_tui.model import Encounter, System
from facility_tui.store import blank

DEMO_2297 = (
    'new 2297 "Boarding the Jean Bart" seed=2297',
    'add "Lt. de Lisieux" side=pc ag=2 cu=3 hlt=24 sta=26 edge=3 skill=13 dodge=19 '
    'armor="Naval vest 15/20" weapon="PAM9 3d6+2 SA 21"',
    'add "Sgt. Blanc" side=pc ag=3 cu=2 hlt=32 sta=30 edge=2 skill=15 dodge=19 '
    'armor="Combat armor 25/40, Helmet 10/20" weapon="FAM-90 5d6+1 SA/BF/AF 60"',
    'add "Aspirant Cassart" side=pc ag=2 cu=1 hlt=20 sta=22 edge=2 skill=11 dodge=17 '
    'armor="Naval vest 15/20" weapon="PAM9 3d6+2 SA 17"',
    'add "Cdt. Delaunay" side=pc ag=1 cu=3 hlt=22 sta=24 edge=3 skill=12 dodge=18 '
    'weapon="PAM9 3d6+2 SA 17" aware=partial',
    'add "Boarder" side=enemy count=3 ag=1 cu=1 hlt=20 sta=20 skill=10 dodge=16 '
    'armor="Vacsuit 10/20" weapon="SMG 3d6+1 SA/BF/AF 30"',
    'add "Boarding Chief" side=enemy ag=2 cu=2 hlt=26 sta=26 edge=1 skill=13 dodge=18 '
    'armor="Assault armor 25/40" weapon="Shotgun 4d6 SS 8"',
    "rollinit",
)


def demo_lines(system: System) -> tuple[str, ...]:
    if system is System.FACILITY:
        from facility_tui.systems.facility.demo import DEMO_FACILITY

        return DEMO_FACILITY
    return DEMO_2297


def demo_encounter(system: System = System.R2297) -> Encounter:
    enc = blank()
    for line in demo_lines(system):
        enc = apply(enc, line).encounter
    return enc.logged("Demo fight. Press s to start combat, ctrl+n for a new encounter, ? for keys")
