"""Times the secret filter on 1 MB of adversarial text against 1 MB of ordinary source code.

    uv run python benchmarks/masking.py [--size BYTES] [--rounds N]

Every tool result passes the filter before the model sees it, so its time must grow in
step with its input whatever the input is. The adversarial inputs are the ones that made
the old patterns backtrack across a whole line: long runs of `a.` and `a-`, private key
headers without an END, URL-like runs; and a few more that aim at the new scanner's
anchors. The ordinary input is this repository's own Python, repeated. Prints the best of
N rounds for each, the worst adversarial time, and worst / ordinary
(targets: under 1 s, and at most 3x).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memory.secrets import mask_secrets  # noqa: E402

TARGET_SECONDS = 1.0
TARGET_RATIO = 3.0


def repeat(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def adversarial(size: int) -> dict[str, str]:
    tail = " https://user:pw@example.com/ "  # one URL, as in the report that found the problem
    return {
        "a. run": repeat("a.", size - len(tail)) + tail,
        "a- run": repeat("a-", size - len(tail)) + tail,
        "BEGIN headers, no END": repeat("-----BEGIN RSA PRIVATE KEY-----\n", size),
        "BEGIN headers on one line": repeat("-----BEGIN OPENSSH PRIVATE KEY-----", size),
        "URL-like run": "https://" + repeat("a.b-c/", size - 8),
        "URL userinfo run": repeat("http://u:p@h/", size),
        "key = value run": repeat("token=", size),
        "key: value pairs": repeat("password: x ", size),
        "prefix run": repeat("sk-", size),
        "name-like run": repeat("creds_", size),
        "base64 lines": repeat("QUtJQUlPU0ZPRE5ON0VYQU1QTEVBS0lBSU9TRk9ETk43RVhBTVBMRQ==\n", size),
        "percent escapes": repeat("%41", size),
        "zero-width run": repeat("a\u200b", size),
        "full-width run": repeat("ｓｋ－", size),
    }


def ordinary(size: int) -> str:
    sources = sorted(p for folder in ("agent", "memory", "tui") for p in (ROOT / folder).rglob("*.py"))
    code = "\n".join(p.read_text(encoding="utf-8") for p in sources)
    return repeat(code, size)


def best_time(text: str, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        mask_secrets(text)
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    base = best_time(ordinary(args.size), args.rounds)
    print(f"ordinary source code, {args.size:,} characters: {base:.3f} s")
    worst_name, worst = "", 0.0
    for name, text in adversarial(args.size).items():
        seconds = best_time(text, args.rounds)
        print(f"  {name:28} {seconds:.3f} s  ({seconds / base:.2f}x)")
        if seconds > worst:
            worst_name, worst = name, seconds
    print(f"worst adversarial: {worst_name}, {worst:.3f} s (target under {TARGET_SECONDS:.0f} s)")
    print(f"worst / ordinary: {worst / base:.2f}x (target at most {TARGET_RATIO:.0f}x)")


if __name__ == "__main__":
    main()
