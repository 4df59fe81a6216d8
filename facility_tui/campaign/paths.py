"""Where saves live: ``saves/`` in a checkout, else the platform's user data folder."""

from __future__ import annotations

from pathlib import Path

APP = "facility-tui"


def checkout_root() -> Path | None:
    """The source checkout this package runs from, if it does."""
    root = Path(__file__).resolve().parent.parent
    pyproject = root / "pyproject.toml"
    try:
        if pyproject.is_file() and f'name = "{APP}"' in pyproject.read_text(encoding="utf-8"):
            return root
    except OSError:
        return None
    return None


def default_saves() -> Path:
    root = checkout_root()
    if root is not None:
        return root / "saves"
    from platformdirs import user_data_path

    return user_data_path(APP, appauthor=False) / "saves"


def default_config() -> Path:
    """``config.toml`` in the platform's user config folder (read if it is there)."""
    from platformdirs import user_config_path

    return user_config_path(APP, appauthor=False) / "config.toml"
