"""2297 commands: what the GM types (A2–A11, C4), one module per topic. See
``docs/rules-2297.md`` for examples.

- ``helpers``: what the commands share (``rule``, ``who``, ``turn_actor``...);
- ``actions``: awareness, initiative and the action economy (A2–A4);
- ``injuries``: hits through armor, injuries, first aid and healing (A6–A8, A10);
- ``fatigue``: fatigue, rests and stims (A9);
- ``conditions``: conditions (A11);
- ``attacks``: the attack helper and ammo (A5);
- ``corrections``: ``set WHO FIELD VALUE`` (C4).

The package's ``load()`` lists the topic modules in the order ``help`` and the docs show the
commands. Every command refuses bad input with a one-line ``CommandError`` and, since the
encounter is immutable, a refusal changes nothing.
"""
