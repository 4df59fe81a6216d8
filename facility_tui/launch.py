"""What a user's launch runs (the ``facility-tui`` script, ``python -m facility_tui``): the CLI,
with Python's cyclic garbage collector held off while the modules are imported.

Importing Textual, Rich, attrs and the core makes some 100,000 objects, every one of them kept for
the whole process, and the collector would walk them again and again as they pile up, a cost the
start-up feels (docs/benchmarks.md, 'Start-up and the headless commands'). The headless commands
(``apply``, ``show``, ``export``...) are short and finish with it off; the app and the player
view hand their modules to ``gc.freeze`` and turn it back on before they start (``cli.run_app``).
Only this entry point does this: importing ``facility_tui.cli`` or ``facility_tui.app`` (as the
tests do) leaves the collector alone.
"""

from __future__ import annotations


def main() -> int:
    import gc

    gc.disable()
    try:
        import sys

        from facility_tui.arguments import COMMANDS
        from facility_tui.codecache import install

        command = sys.argv[1] if sys.argv[1:] and sys.argv[1] in COMMANDS else "run"
        install(kind=command)  # (the code libraries write as text compiled once, not every launch)
        from facility_tui.cli import main as cli_main

        return cli_main()
    finally:
        # The process ends here. Python's shutdown runs one last full collection over every
        # object still alive, for nothing (docs/benchmarks.md, 'Start-up and the headless
        # commands'): frozen, they are left to the exit. (atexit hooks, flushing and closing
        # still run; everything was written already.)
        gc.freeze()
