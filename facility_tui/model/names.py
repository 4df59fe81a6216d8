"""How a name shortens to fit a column, keeping what tells it apart: from the front, its
leading words abbreviated (``Cont. Drone 1``), then to initials, then left out; its last words
stay whole as long as anything does. The initiative list (``screens/widgets/list_layout.py``)
and the forecast's text (``facility_tui.forecast.engine``) shorten names so."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from rich.cells import cell_len

__all__ = ["name_forms", "shorten_names"]


def _kept_tail(words: list[str]) -> int:
    """How many last words stay whole: the last, and the one before a short last word (the
    ``Drone`` of ``Drone 1``, the ``Team`` of ``Team B``)."""
    if len(words) >= 2 and len(words[-1]) <= 2:
        return 2
    return 1


def _abbreviated(word: str) -> str:
    return word[:4] + "." if len(word) > 5 and word[:4].isalnum() else word


def _initial(word: str) -> str:
    return word[0] + "." if len(word) > 2 and word[0].isalnum() else word


@lru_cache(maxsize=4096)
def name_forms(name: str) -> tuple[str, ...]:
    """Shorter forms of a name, longest first, each keeping its end: leading words abbreviated
    (``Cont.``), then to an initial (``C.``), then left out from the first; last, the kept words
    themselves lose their front (``…rone 1``)."""
    words = name.split()
    forms: list[str] = []
    last = words[-1] if words else ""
    if len(words) > 1 and len(last) > 3 and last[0] == "(" and last[-1] == ")":
        # A last word in brackets qualifies the name (``Dale (Maintenance)``): it gives way
        # first, so the name itself stays (``Dale (Main.)``, ``Dale (M.)``, ``Dale``).
        head = " ".join(words[:-1])
        forms = [f"{head} ({_abbreviated(last[1:-1])})", f"{head} ({last[1]}.)", head]
        forms += name_forms(head)
        shorter = {f: cell_len(f) for f in dict.fromkeys(forms) if cell_len(f) < cell_len(name)}
        return tuple(sorted(shorter, key=lambda form: -shorter[form]))
    if len(words) > 1:
        tail = _kept_tail(words)
        lead, kept = words[:-tail], words[-tail:]
        shown = list(lead)
        for step in (_abbreviated, _initial):
            for i, word in enumerate(lead):
                shown[i] = step(word)
                forms.append(" ".join([*shown, *kept]))
        for i in range(len(shown)):
            forms.append(" ".join([*shown[i + 1 :], *kept]))
        rest = " ".join(kept)
    else:
        rest = name
    for cut in range(1, len(rest)):
        forms.append("…" + rest[cut:])
    shorter = {form: cell_len(form) for form in forms if cell_len(form) < cell_len(name)}
    return tuple(sorted(shorter, key=lambda form: -shorter[form]))  # (stable: ties in order)


def shorten_names(names: Sequence[tuple[str, str]], width: int) -> list[str] | None:
    """Each ``(lead, name)`` as shown in ``width`` cells: ``lead + name`` whole when it fits,
    else ``lead`` and the longest form of the name that fits and looks like no other name shown.
    None when that cannot be done at this width. (A lead is a mark kept whole: ``(h) ``.)"""
    whole = [lead + name for lead, name in names]
    fits = [cell_len(text) <= width for text in whole]
    taken = {text for text, ok in zip(whole, fits, strict=True) if ok}
    taken_full = set(whole)  # a shortened name never reads as another's whole name
    out: list[str] = []
    for (lead, name), text, ok in zip(names, whole, fits, strict=True):
        if ok:
            out.append(text)
            continue
        room = width - cell_len(lead)
        for form in name_forms(name):
            shown = lead + form
            if cell_len(form) <= room and shown not in taken and shown not in taken_full:
                taken.add(shown)
                out.append(shown)
                break
        else:
            return None
    return out
