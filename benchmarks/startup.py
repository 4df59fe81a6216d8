"""Figures 1, 2 and 6: start-up to first frame, peak memory, and ``facility-tui apply``.

Every launch is a fresh interpreter (``child.py``), app and bare runs interleaved (their order
alternates each repeat), after one unmeasured warm-up launch of each. ``apply`` is timed as the
whole process, ``python -m facility_tui apply SAVE next``, against the bare first frame of the same
run; one extra ``python -X importtime`` launch checks that it imports no Textual.

Children get a bytecode cache of their own (``PYTHONPYCACHEPREFIX`` in the run's temporary folder,
filled by the warm-up launches), so they start as an installed app does even where
``PYTHONDONTWRITEBYTECODE`` is set; nothing is written next to the sources.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import Row, median

CHILD = Path(__file__).with_name("child.py")
TIMEOUT = 60


def _child_env(work: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    env["XDG_CONFIG_HOME"] = str(work / "config")  # the launch looks for a config file: none
    return env


def _launch(
    kind: str, workdir: Path, env: dict[str, str], saves: Path | None = None
) -> dict[str, float]:
    """One launch; the app opens a fresh copy of the ``saves`` folder (its newest save), or with
    none an empty folder, so the demo. The bare app shows the rows the app's last launch showed."""
    folder = workdir / f"saves-{kind}"
    shutil.rmtree(folder, ignore_errors=True)
    if saves is None or kind == "bare":
        folder.mkdir()
    else:
        shutil.copytree(saves, folder)
    arg = str(workdir if kind == "bare" else folder)
    t0 = time.monotonic()
    out = subprocess.run(
        [sys.executable, str(CHILD), kind, repr(t0), arg],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=True,
        env=env,
    )
    data = json.loads(out.stdout.strip().splitlines()[-1])
    data["d20"] = float(data["d20"])
    if kind == "app":
        (workdir / "rows.json").write_text(json.dumps(data.pop("rows")))
    return data


def _apply(save: Path, line: str, env: dict[str, str]) -> float:
    cmd = [sys.executable, "-m", "facility_tui", "apply", str(save), line, "-q"]
    t0 = time.perf_counter()
    subprocess.run(cmd, capture_output=True, timeout=TIMEOUT, check=True, env=env)
    return time.perf_counter() - t0


def _apply_imports(save: Path, env: dict[str, str]) -> tuple[bool, list[tuple[int, str]]]:
    """Whether ``apply`` imports Textual, and its costliest top-level imports (µs, name)."""
    cmd = [sys.executable, "-X", "importtime", "-m", "facility_tui", "apply", str(save), "next"]
    err = subprocess.run(
        cmd, capture_output=True, text=True, timeout=TIMEOUT, check=True, env=env
    ).stderr
    top: list[tuple[int, str]] = []
    textual = False
    for line in err.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = (p.strip() for p in line.split(":", 1)[1].split("|"))
        textual |= name.strip() == "textual" or name.strip().startswith("textual.")
        if not name.startswith(" ") and cumulative.isdigit():
            top.append((int(cumulative), name.strip()))
    return textual, sorted(top, reverse=True)[:3]


def measure(repeat: int) -> tuple[list[Row], float]:
    """The rows, and the bare first-frame median (for the ratio of other figures)."""
    with tempfile.TemporaryDirectory(prefix="bench-start-") as tmp:
        work = Path(tmp)
        env = _child_env(work)
        save = work / "fight.toml"
        subprocess.run(
            [sys.executable, "-m", "facility_tui", "apply", str(save), "--seed", "1", "-q",
             "add Goon count=6 init=2d6", "add Hero side=pc init=2d6", "start"],
            capture_output=True, timeout=TIMEOUT, check=True, env=env,
        )  # fmt: skip
        _launch("app", work, env), _launch("bare", work, env), _apply(save, "next", env)  # warm-up
        runs: dict[str, list[dict[str, float]]] = {"app": [], "bare": []}
        applied: dict[str, list[float]] = {"next": [], "roll 2d6": []}
        for i in range(repeat):
            kinds = ["app", "bare"] if i % 2 == 0 else ["bare", "app"]
            for kind in kinds:
                runs[kind].append(_launch(kind, work, env))
            for line in applied:
                applied[line].append(_apply(save, line, env))
        imports_textual, heavy = _apply_imports(save, env)

    def fig(kind: str, key: str) -> float:
        return median([r[key] for r in runs[kind]])

    app_t, bare_t = fig("app", "first_frame"), fig("bare", "first_frame")
    app_m, bare_m = fig("app", "maxrss_kib") / 1024, fig("bare", "maxrss_kib") / 1024
    # Ratios are the median of each repeat's own ratio: the app launch and the bare one next to
    # it share the machine's state, which on a shared machine drifts between fast and slow
    # spells lasting several launches (the ratio of the two medians went from 1.28× to 0.95×
    # between two runs of the same code; see docs/benchmarks.md).
    pairs = zip(runs["app"], runs["bare"], strict=True)
    ratio = median([a["first_frame"] / b["first_frame"] for a, b in pairs])
    rows = [
        Row(
            "start-up to first frame, demo",
            f"{app_t:.3f} s",
            f"{bare_t:.3f} s",
            ratio,
            "≤ 1.25× bare",
            ratio <= 1.25,
            f"from spawn to the first composed frame showing the table rows, 80×24 headless; "
            f"ratio: median of {len(runs['app'])} paired launches (of the medians: "
            f"{app_t / bare_t:.2f}×); imports + App(): {fig('app', 'constructed'):.3f} s vs bare "
            f"{fig('bare', 'constructed'):.3f} s; d20 loaded before the first frame: "
            f"{'yes' if fig('app', 'd20') else 'no'}",
        ),
        Row(
            "peak memory at start-up",
            f"{app_m:.1f} MiB",
            f"{bare_m:.1f} MiB",
            app_m / bare_m,
            "≤ 1.5× bare",
            app_m / bare_m <= 1.5,
            "peak RSS (VmHWM) of the child at exit, right after its first frame",
        ),
    ]
    for line, times in applied.items():
        t = median(times)
        # (paired too: each apply with the bare launch of its own repeat)
        paired = median([a / b["first_frame"] for a, b in zip(times, runs["bare"], strict=True)])
        row = Row(f"`facility-tui apply` {line}, whole process", f"{t:.3f} s", f"{bare_t:.3f} s",
                  paired)  # fmt: skip
        if line == "next":
            row.budget, row.ok = "≤ 0.5× bare start-up", paired <= 0.5
            top = ", ".join(f"{name} {us / 1000:.0f} ms" for us, name in heavy)
            row.note = f"imports Textual: {'YES' if imports_textual else 'no'}; heaviest: {top}"
        else:
            row.note = "orientation: a command that rolls dice imports d20"
        rows.append(row)
    return rows, bare_t
