"""Facility commands (F1–F12, C4): what a GM types to roll, hurt, heal and fight, one module
per topic. See ``docs/rules-facility.md`` for examples.

- ``helpers``: what the commands share (options, the d20, checks with help, saves, wounds and
  their spill-over, the attack mark);
- ``rolls``: a stat roll, Salvage, the vanguard, a save (F2, F3, F7);
- ``harm``: hazards, ablating PPE or suffering, wounds (F4–F6);
- ``attacks``: a PC's strike and what follows it (F7, F8);
- ``healing``: Break, tend, the shift's rest, scars (F9);
- ``sheets``: sheets from ``add``'s options, PPE, fates, hand corrections (F1, F6, F10, C4);
- ``tech``: the Maintenance Technician's techniques (F12).

The package's ``load()`` lists the topic modules in the order ``help`` and the docs show the
commands. Follow-up choices are commands too: a failed roll leaves a *pending* roll
(``salvage``), a hit waits for ``deal`` or ``crit``, a miss for ``miss`` or ``salvage``, a failed
save with PPE that could be ablated waits for ``ablate`` or ``suffer``. Every die is rolled
through the call's dice (recorded, so undo/redo/reload never re-roll) or typed with ``d20=N``.
"""

from facility_tui.systems.facility.commands.helpers import faces

__all__ = ["faces"]  # (a roll's faces, read by the typed-dice tests)
