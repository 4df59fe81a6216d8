"""What the app does with a bug it meets while the table plays: keep the fight, say so, keep a
record for the report. No Textual here."""

from __future__ import annotations

import time
import traceback
from pathlib import Path

ERROR_LOG = "facility-tui-errors.log"


def internal_error(folder: Path, line: str, err: BaseException) -> str:
    """Record ``err`` (raised while running ``line``) in the save folder's error log, and return
    the one line the GM sees. Commands are pure: the fight is as it was before the line."""
    where = folder / ERROR_LOG
    try:
        with where.open("a", encoding="utf-8") as f:
            f.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} running {line!r}\n")
            f.write("".join(traceback.format_exception(err)))
        kept = f"; details in {where}"
    except OSError:
        kept = ""
    return f"Bug: '{line}' failed ({type(err).__name__}); nothing changed{kept}"
