"""Measures the secret filter on the fresh corpus in tests/memory/data/.

    uv run python benchmarks/secret_corpus.py [--verbose]

Every credential text goes through the real MemoryStore's write commands (create,
str_replace, insert, and rename to a name holding its key) and through the tools' last
masking pass; every ordinary note through create and an insert next to it. Prints the
share of credential texts refused by every command and masked in tool output (target at
least 97 %), and the share of ordinary notes refused (target at most 1 %).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.memory.secret_corpus import measure  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true", help="list every miss and false refusal")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        f = measure(Path(folder) / "memories")
    print(f"credential texts: {f.credentials}")
    for name in ("create", "str_replace", "insert", "rename"):
        print(f"  refused by {name:12} {f.refused.get(name, 0):4} of {f.tried.get(name, 0):4}"
              f"  ({f.rate(f.refused.get(name, 0), f.tried.get(name, 0)):.1f} %)")
    print(f"  refused by every command: {f.refused_by_all} of {f.credentials} ({f.rate(f.refused_by_all, f.credentials):.1f} %, target >= 97 %)")
    print(f"  masked in tool output:    {f.masked} of {f.credentials} ({f.rate(f.masked, f.credentials):.1f} %, target >= 97 %)")
    print(f"ordinary notes: {f.notes}")
    print(f"  refused: {f.notes_refused} of {f.notes} ({f.rate(f.notes_refused, f.notes):.1f} %, target <= 1 %)")
    if args.verbose:
        for miss in f.misses:
            print(f"  miss: {miss}")
        for note in f.false_refusals:
            print(f"  false refusal: {note!r}")


if __name__ == "__main__":
    main()
