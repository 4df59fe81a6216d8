"""The command pipeline: a typed line read (``grammar``), found among the commands
(``dispatch``: the common ``verbs`` and the rule systems' own), run on a ``spec.Call`` with its
dice, and kept in the ``session``'s history; ``rounds`` is the round state machine they drive.
"""
