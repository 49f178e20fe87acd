"""Times the secret filter on 1 MB of adversarial text against 1 MB of ordinary source code.

    uv run python benchmarks/masking.py [--size BYTES] [--rounds N]

Every tool result passes the filter before the model sees it, so its time must grow in
step with its input whatever the input is. The adversarial inputs are the ones that made
the old patterns backtrack across a whole line: long runs of `a.` and `a-`, private key
headers without an END, URL-like runs. The ordinary input is this repository's own
Python, repeated. Prints the best CPU time of N rounds for each, the worst adversarial
time, and worst / ordinary (targets: under 1 s, and at most 3x); then, with no target,
further hostile inputs aimed at the new scanner's anchors and disguise views.
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
    """The inputs the issue names: runs that made the old patterns backtrack."""
    tail = " https://user:pw@example.com/ "  # one URL, as in the report that found the problem
    return {
        "a. run and a URL": repeat("a.", size - len(tail)) + tail,
        "a- run and a URL": repeat("a-", size - len(tail)) + tail,
        "BEGIN headers, no END": repeat("-----BEGIN RSA PRIVATE KEY-----\n", size),
        "BEGIN headers on one line": repeat("-----BEGIN OPENSSH PRIVATE KEY-----", size),
        "URL-like run": "https://" + repeat("a.b-c/", size - 8),
        "URL-like lines": repeat("https://a.b/" + "a." * 40 + "x\n", size),
    }


def hostile(size: int) -> dict[str, str]:
    """More inputs aimed at the new scanner's own anchors and views (no target)."""
    return {
        "URL userinfo run": repeat("http://u:p@h/", size),
        "key = value run": repeat("token=", size),
        "key: value pairs": repeat("password: x ", size),
        "prefix run": repeat("sk-", size),
        "name-like run": repeat("creds_", size),
        "base64 lines": repeat("QUtJQUlPU0ZPRE5ON0VYQU1QTEVBS0lBSU9TRk9ETk43RVhBTVBMRQ==\n", size),
        "percent escapes": repeat("%41", size),
        "HTML entities": repeat("a&amp;", size),
        "zero-width run": repeat("a\u200b", size),
        "full-width run": repeat("\uff53\uff4b\uff0d", size),
        "ligatures": repeat("\ufb01\ufb01a", size),
        # issue 24's views and rules
        "ANSI colour codes": repeat("ab\x1b[01;31m\x1b[K", size),
        "YAML hex escapes": repeat("\\x73\\x6b", size),
        "joined literals": repeat('"ab" + ', size),
        "joined list items": repeat('"ab", ', size),
        "JWK fields": '{"kty": "EC", ' + repeat('"d": "abcdefghijklmnopqrstuvwx", ', size) + "}",
        "PuTTY private lines": "Private-Lines: 9\n" + repeat("AAAAbbbbCCCC\n", size),
        "recovery phrase words": "seed phrase: " + repeat("word ", size),
        "query code= run": repeat("?code=", size),
        # names and values on different lines, prose, escaped JSON, Oracle logins, inline base64
        "table rule lines": "| password | token |\n" + repeat("|---|---|\n", size),
        "name fields without values": repeat("- name: API_TOKEN\n", size),
        "announced token lines": repeat("created token\n", size),
        "escaped JSON fields": repeat('\\"a\\": \\"b\\", ', size),
        "Oracle logins": repeat("sqlplus a/b@", size),
        "SMTP-like userinfo": repeat("smtp://a@b:c@", size),
        "inline base64 runs": repeat("x='QUtJQUlPU0ZPRE5ON0VYQU1QTEVBS0lB' ", size),
        "sentence anchors": repeat("use abcdefgh as the ", size),
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


def report(title: str, texts: dict[str, str], base: float, rounds: int) -> tuple[str, float]:
    print(title)
    worst_name, worst = "", 0.0
    for name, text in texts.items():
        seconds = best_time(text, rounds)
        print(f"  {name:28} {seconds:.3f} s  ({seconds / base:.2f}x)")
        if seconds > worst:
            worst_name, worst = name, seconds
    return worst_name, worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    base = best_time(ordinary(args.size), args.rounds)
    print(f"ordinary source code, {args.size:,} characters: {base:.3f} s (CPU, best of {args.rounds})")
    name, worst = report("the issue's adversarial inputs:", adversarial(args.size), base, args.rounds)
    print(f"worst adversarial: {name}, {worst:.3f} s (target under {TARGET_SECONDS:.0f} s)")
    print(f"worst / ordinary: {worst / base:.2f}x (target at most {TARGET_RATIO:.0f}x)")
    name, worst = report("further hostile inputs (no target):", hostile(args.size), base, args.rounds)
    print(f"worst further: {name}, {worst:.3f} s, {worst / base:.2f}x ordinary")


if __name__ == "__main__":
    main()
