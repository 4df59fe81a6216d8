"""The 2297 demo: a boarding action aboard the liner *Jean Bart* (seed 004's campaign), as the
plain command lines that build it."""

from __future__ import annotations

DEMO_2297: tuple[str, ...] = (
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
