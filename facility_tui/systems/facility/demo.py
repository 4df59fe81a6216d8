"""A Facility demo: lockdown in the Oπ block, seed 001/000's setting (F1–F12).

``DEMO_FACILITY`` builds the encounter (like ``demo.DEMO_2297``); ``DEMO_FACILITY_FIGHT`` plays the
first exchanges, for docs and tests. Both are plain command lines.
"""

from __future__ import annotations

DEMO_FACILITY: tuple[str, ...] = (
    'new facility "Lockdown in the Oπ Block" seed=1',
    'add "Anne O\'Malley" side=pc adm=2 ins=1 phy=-1 nor=1 ppe="Lab Coat, Latex Gloves" '
    "weapon=improvised",
    'add "Dale (Maintenance)" side=pc job=tech phy=1 sci=1 weapon=heavy',
    'add "Officer Reyes" side=pc phy=2 ins=2 sci=-1 ppe="Security Vest, Security Helmet" '
    "weapon=pistol,light",
    'add "Containment Drone" side=enemy count=2 track=4 saves=1,0,0,2,0',
    'add "Eχ0001.001 Nominative Determinism" side=enemy track=8 saves=0,2,0,0,3',
)

DEMO_FACILITY_FIGHT: tuple[str, ...] = (
    "start help=anne",
    'tech dale barricade 1 name="Filing-cabinet barricade"',
    "strike reyes containment-drone-1",
    "salvage reyes back=1",
    "ablate reyes helmet",
    "next",
    "harm anne 2 anomalies as=social-phenomena",
    "suffer anne",
    "harm reyes 3 weapons by=containment-drone-2",
    "ablate reyes vest",
    "next",
)
