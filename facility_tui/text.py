"""Text from a GM or a save shown safely on a terminal (no Textual here).

``printable`` escapes the characters a terminal would act on instead of showing: the C0
controls (tab and newline included: a shown name or log line is one line), DEL and the C1
controls. Each becomes ``\\xNN``, so ``ESC`` shows as ``\\x1b`` and nothing can move the cursor,
clear the screen or change colours. It runs for every line a pane draws, so text without
controls (nearly all of it) is returned as is after one C-level scan.
"""

from __future__ import annotations

import re

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def _escape(match: re.Match[str]) -> str:
    return f"\\x{ord(match.group()):02x}"


def printable(s: str) -> str:
    """``s`` with every C0 control, DEL and C1 control written as ``\\xNN``; ``s`` itself when it
    has none."""
    if s.isprintable() or _CONTROL.search(s) is None:
        return s
    return _CONTROL.sub(_escape, s)
