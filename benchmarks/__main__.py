"""Run every benchmark (or the named ones) and end with one summary table.

    uv run python -m benchmarks [NAME ...] [--list] [--json FILE]

See benchmarks/__init__.py for the convention a benchmark module follows.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import Row, machine, print_rows  # noqa: E402


def discover() -> list[str]:
    """Modules of this folder that define a top-level run(); read, not imported, so
    listing them costs nothing and a broken one cannot stop the others."""
    names = []
    for path in sorted(HERE.glob("*.py")):
        if path.stem.startswith("_") or path.stem == "common":
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            names.append(path.stem)  # let the run say what is wrong with it
            continue
        if any(isinstance(node, ast.FunctionDef) and node.name == "run" for node in tree.body):
            names.append(path.stem)
    return names


def child(name: str, rows_file: str) -> int:
    import importlib

    module = importlib.import_module(f"benchmarks.{name}")
    rows = module.run()
    Path(rows_file).write_text(json.dumps([row.to_dict() for row in rows]))
    return 0


def run_one(name: str) -> tuple[list[Row], str | None]:
    with tempfile.TemporaryDirectory(prefix="devagent-bench-rows-") as folder:
        rows_file = Path(folder) / "rows.json"
        started = time.perf_counter()
        result = subprocess.run([sys.executable, "-m", "benchmarks", "--child", name,
                                 "--rows", str(rows_file)], cwd=ROOT,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"})
        took = time.perf_counter() - started
        if result.returncode != 0 or not rows_file.exists():
            return [], f"exited with {result.returncode} after {took:.0f} s"
        rows = [Row.from_dict(data) for data in json.loads(rows_file.read_text())]
        print(f"[{name}: {took:.0f} s]")
        return rows, None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run the benchmarks and print one summary table.")
    parser.add_argument("names", nargs="*", help="benchmarks to run (default: all)")
    parser.add_argument("--list", action="store_true", help="name the benchmarks and stop")
    parser.add_argument("--json", metavar="FILE", help="also write the rows to FILE")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--rows", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.child, args.rows)

    known = discover()
    if args.list:
        print("\n".join(known))
        return 0
    unknown = [name for name in args.names if name not in known]
    if unknown:
        print(f"no benchmark named {', '.join(unknown)}; there are: {', '.join(known)}",
              file=sys.stderr)
        return 2
    names = args.names or known
    print(f"benchmarks: {', '.join(names)}   machine: {machine()}", flush=True)
    rows: list[Row] = []
    failures: dict[str, str] = {}
    for name in names:
        print(f"\n=== {name} ===", flush=True)
        got, problem = run_one(name)
        rows += got
        if problem:
            failures[name] = problem
    print(f"\n=== summary ({machine()}) ===")
    print_rows(rows)
    for name, problem in failures.items():
        print(f"  {name}: FAILED to run ({problem})")
    if args.json:
        Path(args.json).write_text(json.dumps([row.to_dict() for row in rows], indent=1))
    return 0 if rows and not failures and all(row.passed for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
