"""The user's config file: keys remapped by binding id, and a theme (no Textual here).

```toml
theme = "gruvbox"

[keys]
next = "space"
undo = "u,ctrl+z"
```

A config never stops the app: a file that cannot be read or parsed gives the defaults, an entry
that is wrong is left out; each problem is one line naming the file and the key.
"""

from __future__ import annotations

import tomllib
from collections.abc import Collection
from pathlib import Path

from attrs import field, frozen

from facility_tui.model.text import did_you_mean

KEY_NAME_MAX = 40  # a key name longer than this is a typo ("ctrl+shift+pagedown" is 19)


@frozen
class Config:
    keymap: dict[str, str] = field(factory=dict)  # binding id -> keys, comma-separated
    theme: str | None = None
    problems: tuple[str, ...] = ()  # one line each, to show the GM


def _keys_problem(value: object) -> str | None:
    """Why ``value`` is not a list of keys (None: it is one)."""
    if not isinstance(value, str):
        return 'the keys must be a string, as in next = "space" or undo = "u,ctrl+z"'
    names = [k.strip() for k in value.split(",")]
    if not value.strip() or any(
        not k or len(k) > KEY_NAME_MAX or any(ch.isspace() or not ch.isprintable() for ch in k)
        for k in names
    ):
        return f"{value!r} is not a key or a comma-separated list of keys"
    return None


def load(path: Path, binding_ids: Collection[str], themes: Collection[str]) -> Config:
    """The config in ``path``, checked against the binding ids and themes the app has."""
    where = str(path)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Config(problems=(f"{where}: no such config file; using the default keys",))
    except (OSError, UnicodeDecodeError) as err:
        why = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        return Config(problems=(f"{where}: cannot be read ({why}); using the default keys",))
    except tomllib.TOMLDecodeError as err:
        return Config(problems=(f"{where}: not valid TOML ({err}); using the default keys",))
    problems: list[str] = []
    keymap: dict[str, str] = {}
    theme: str | None = None
    for top, value in raw.items():
        if top == "theme":
            if not isinstance(value, str):
                problems.append(f'{where}: theme must be a string, as in theme = "nord"')
            elif value not in themes:
                problems.append(
                    f"{where}: theme {value!r} is not one of the themes"
                    f"{did_you_mean(value, themes)}; "
                    f"there are {', '.join(sorted(themes))}"
                )
            else:
                theme = value
        elif top == "keys":
            if not isinstance(value, dict):
                problems.append(f"{where}: keys must be a table: [keys] then lines like next = …")
                continue
            for bid, keys in value.items():
                if bid not in binding_ids:
                    problems.append(
                        f"{where}: [keys] {bid}: no key has this id{did_you_mean(bid, binding_ids)}"
                    )
                elif (bad := _keys_problem(keys)) is not None:
                    problems.append(f"{where}: [keys] {bid}: {bad}")
                else:
                    keymap[bid] = ",".join(k.strip() for k in str(keys).split(","))
        else:
            problems.append(f"{where}: {top}: not a setting (there are theme and [keys])")
    problems += _clashes(where, keymap)
    return Config(keymap=keymap, theme=theme, problems=tuple(problems))


def _clashes(where: str, keymap: dict[str, str]) -> list[str]:
    """Two ids given the same key in the file: the key would do one of them only."""
    owner: dict[str, str] = {}
    out: list[str] = []
    for bid, keys in keymap.items():
        for key in keys.split(","):
            if key in owner:
                out.append(f"{where}: [keys] {bid}: {key} is also given to {owner[key]}")
            else:
                owner[key] = bid
    return out
