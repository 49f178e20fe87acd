"""What every benchmark shares: the Row it reports and the table the rows make.

A Row holds one measure: its floor (the same work done the plainest way, measured in the
same run), its figure and the target. The target bounds the ratio figure / floor, or the
figure itself for an absolute target (`of="figure"`, e.g. idle CPU under 1 % of a core).
"""

from __future__ import annotations

import math
import os
import statistics
import subprocess
from dataclasses import asdict, dataclass, field
from pathlib import Path


@dataclass
class Row:
    measure: str
    figure: float
    floor: float | None = None
    limit: float = 1.0          # the most the ratio (or the figure) may be
    of: str = "ratio"           # "ratio": limit bounds figure / floor; "figure": the figure
    unit: str = "ms"
    floor_is: str = ""          # what the floor is, in a few words
    note: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def ratio(self) -> float | None:
        if self.floor is None or self.floor <= 0 or math.isnan(self.figure):
            return None
        return self.figure / self.floor

    @property
    def passed(self) -> bool:
        value = self.ratio if self.of == "ratio" else self.figure
        return bool(value is not None and not math.isnan(value) and value <= self.limit)

    @property
    def target(self) -> str:
        if self.of == "ratio":
            return f"ratio <= {self.limit:g}"
        return f"<= {self.limit:g} {self.unit}"

    def to_dict(self) -> dict:
        # numpy scalars (from medians and percentiles) are not JSON
        data = {**asdict(self), "ratio": self.ratio, "passed": self.passed}
        return {k: float(v) if hasattr(v, "dtype") else v for k, v in data.items()}

    @classmethod
    def from_dict(cls, data: dict) -> Row:
        names = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in names})


def value(number: float | None, unit: str) -> str:
    if number is None or math.isnan(number):
        return "—"
    if unit == "ms":
        return f"{number:,.0f} ms" if number >= 100 else f"{number:.3g} ms"
    if unit == "MB":
        return f"{number:,.1f} MB"
    if unit == "%":
        return f"{number:.2f} %"
    return f"{number:.3g} {unit}".strip()


def table(rows: list[Row]) -> str:
    """The rows as a Markdown table: measure, floor, figure, ratio, target, pass/fail."""
    lines = ["| measure | floor | figure | ratio | target | result |",
             "|---|---|---|---|---|---|"]
    for row in rows:
        floor = value(row.floor, row.unit)
        if row.floor_is and row.floor is not None:
            floor += f" ({row.floor_is})"
        ratio = "—" if row.ratio is None else f"{row.ratio:.2f}x"
        lines.append(f"| {row.measure} | {floor} | {value(row.figure, row.unit)} | {ratio} | "
                     f"{row.target} | {'pass' if row.passed else 'FAIL'} |")
    return "\n".join(lines)


def print_rows(rows: list[Row]) -> None:
    print()
    print(table(rows))
    for row in rows:
        if row.note:
            print(f"  {row.measure}: {row.note}")


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))
    return ordered[index]


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def machine() -> str:
    return f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}"


# git for the benchmarks' generated repositories: none of the machine's configuration
GIT_ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_AUTHOR_NAME": "B",
           "GIT_AUTHOR_EMAIL": "b@example.com", "GIT_COMMITTER_NAME": "B", "GIT_COMMITTER_EMAIL": "b@example.com"}


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, env=GIT_ENV, stdout=subprocess.DEVNULL)


def module_repository(root: Path, files: int, filler: str = "") -> Path:
    """A new git repository of `files` small Python modules, 100 to a folder (pkg/modNNN/fileNNN.py),
    each followed by `filler`; nothing committed yet."""
    root.mkdir(parents=True)
    git(root, "init", "-q")
    for n in range(files):
        here = root / "pkg" / f"mod{n // 100:03}"
        here.mkdir(parents=True, exist_ok=True)
        (here / f"file{n % 100:03}.py").write_text(f"def f_{n}(x):\n    return x + {n}\n" + filler)
    return root


def commit_all(root: Path) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first")
