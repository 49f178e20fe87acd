"""The corpus the secret filter is measured on: credential texts and ordinary developer notes.

Both live as data in tests/memory/data/. A credential text is a template: each «...»
marks a secret, either «=literal» or «alphabet:length», filled from a generator seeded by
the template itself, so the values look real, are the same on every run, and no scanner
mistakes the data file for a leak. An entry may also be base64-wrapped (`encode`), and
its secrets disguised (`disguise`) the way a careless paste or a hostile text would.

    secrets    the secret parts as they appear in the final text: none may survive masking
    name       a file name holding the first secret (creds_<secret>.md), or None when the
               secret cannot be a name (it has a slash, a space or a line break)
"""

from __future__ import annotations

import base64
import random
import re
import zlib
from dataclasses import dataclass
from pathlib import Path

import yaml

DATA = Path(__file__).parent / "data"

ALPHABETS = {
    "alnum": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
    "alpha": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    "lower": "abcdefghijklmnopqrstuvwxyz0123456789",
    "upper": "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    "hex": "0123456789abcdef",
    "HEX": "0123456789ABCDEF",
    "digits": "0123456789",
    "b64": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
    "url": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-",
    "azure": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.~",
    "django": "abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)",
    "base32": "abcdefghijklmnopqrstuvwxyz234567",
}
MARK = re.compile(r"«(?:=([^»]+)|(\w+):(\d+))»")
NAME_SAFE = re.compile(r"[A-Za-z0-9_\-.~!@#$^&*+=]{6,200}")  # no "%" or ":": paths refuse those


@dataclass(frozen=True)
class Credential:
    text: str
    secrets: tuple[str, ...]
    name: str | None
    note: str


def _uuid(rng: random.Random) -> str:
    h = "".join(rng.choice(ALPHABETS["hex"]) for _ in range(32))
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def _fill(template: str, rng: random.Random) -> tuple[str, list[str]]:
    secrets: list[str] = []

    def value(match: re.Match[str]) -> str:
        literal, alphabet, length = match.groups()
        if literal is not None:
            made = literal
        elif alphabet == "uuid":
            made = _uuid(rng)
        else:
            made = "".join(rng.choice(ALPHABETS[alphabet]) for _ in range(int(length)))
        secrets.append(made)
        return made

    return MARK.sub(value, template), secrets


def zero_width(s: str) -> str:
    return "\u200b".join(s)


def soft_hyphens(s: str) -> str:
    return "\u00ad".join(s[i : i + 4] for i in range(0, len(s), 4))


def full_width(s: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if 0x21 <= ord(c) <= 0x7E else c for c in s)


def percent_encoded(s: str) -> str:
    return "".join(f"%{ord(c):02X}" for c in s)


def hex_entities(s: str) -> str:
    return "".join(f"&#x{ord(c):x};" for c in s)


def ansi_colour(s: str) -> str:
    """As `grep --color` marks a match: colour codes around the middle of the key."""
    third = max(1, len(s) // 3)
    return f"{s[:third]}\x1b[01;31m\x1b[K{s[third:2 * third]}\x1b[m\x1b[K{s[2 * third:]}"


DISGUISES = {
    "ansi": ansi_colour,
    "zero-width": zero_width,
    "soft-hyphen": soft_hyphens,
    "full-width": full_width,
    "percent": percent_encoded,
    "entities": hex_entities,
}


def _name(text: str, secret: str) -> str | None:
    """creds_<the word holding the secret>.md, prefix and all (ghp_..., SG.x.y)."""
    start = at = text.find(secret)
    end = at + len(secret)
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_-."):
        start -= 1
    while end < len(text) and (text[end].isalnum() or text[end] in "_-."):
        end += 1
    token = text[start:end].strip("._-")
    return f"/memories/creds_{token}.md" if NAME_SAFE.fullmatch(token) and secret in token else None


def credential(entry: dict) -> Credential:
    template = entry["text"]
    rng = random.Random(zlib.crc32(template.encode()))
    text, secrets = _fill(template, rng)
    disguise = entry.get("disguise")
    if disguise:
        disguised = [DISGUISES[disguise](s) for s in secrets]
        for plain, hidden in zip(secrets, disguised):
            text = text.replace(plain, hidden)
        secrets = disguised
    if entry.get("encode") == "base64":
        encoded = base64.b64encode(text.encode()).decode()
        lines = [encoded[i : i + 76] for i in range(0, len(encoded), 76)]
        indent = entry.get("indent", "")
        text = entry["wrap"].replace("{}", ("\n" + indent).join(lines))
        secrets = lines
    return Credential(text, tuple(secrets), _name(text, max(secrets, key=len)), entry.get("note", ""))


def credentials() -> list[Credential]:
    entries = yaml.safe_load((DATA / "credentials.yaml").read_text(encoding="utf-8"))
    return [credential(e) for e in entries]


def ordinary() -> list[str]:
    return yaml.safe_load((DATA / "ordinary.yaml").read_text(encoding="utf-8"))


def leaked(secret: str, output: str) -> bool:
    """A secret shows through if any 8 characters of it (all of it, when shorter) do."""
    size = min(8, len(secret))
    return any(secret[i : i + size] in output for i in range(len(secret) - size + 1))


@dataclass
class Figures:
    """How many texts each write command refused (credentials) and let through (notes)."""

    credentials: int = 0
    refused_by_all: int = 0
    refused: dict[str, int] | None = None
    tried: dict[str, int] | None = None
    masked: int = 0
    notes: int = 0
    notes_refused: int = 0
    misses: list[str] | None = None
    false_refusals: list[str] | None = None

    def rate(self, count: int, total: int) -> float:
        return 100.0 * count / total if total else 0.0


def _refused_for_a_secret(result: tuple[str, bool]) -> bool:
    text, is_error = result
    return is_error and "credential" in text


def measure(folder: Path) -> Figures:
    """Runs every corpus text through the real store's write commands and the tools' last
    masking pass. A refused write changes nothing, so one plain file serves every
    credential (it is made again after a miss); each note is written, extended by an
    insert, then deleted, so the folder stays small."""
    from agent.tools.base import ToolResult
    from agent.tools.masking import mask_result
    from memory.store import MemoryStore

    store = MemoryStore(folder, max_file_chars=10**6, max_total_chars=10**8)
    figures = Figures(refused={}, tried={}, misses=[], false_refusals=[])
    plain = "Notes.\nHERE\nEnd.\n"
    store.run({"command": "create", "path": "/memories/plain.md", "file_text": plain})
    for case in credentials():
        figures.credentials += 1
        commands = {
            "create": {"command": "create", "path": "/memories/cred.md", "file_text": case.text},
            "str_replace": {"command": "str_replace", "path": "/memories/plain.md", "old_str": "HERE", "new_str": case.text},
            "insert": {"command": "insert", "path": "/memories/plain.md", "insert_line": 1, "insert_text": case.text},
        }
        if case.name is not None:
            commands["rename"] = {"command": "rename", "old_path": "/memories/plain.md", "new_path": case.name}
        refused_all = True
        for name, command in commands.items():
            figures.tried[name] = figures.tried.get(name, 0) + 1
            if _refused_for_a_secret(store.run(command)):
                figures.refused[name] = figures.refused.get(name, 0) + 1
                continue
            refused_all = False
            figures.misses.append(f"{name}: {case.note}")
            for path in ("/memories/cred.md", "/memories/plain.md", case.name):
                if path:
                    store.run({"command": "delete", "path": path})
            store.run({"command": "create", "path": "/memories/plain.md", "file_text": plain})
        figures.refused_by_all += refused_all
        shown = mask_result(ToolResult(text=case.text)).text
        if any(leaked(secret, shown) for secret in case.secrets):
            figures.misses.append(f"tool output: {case.note}")
        else:
            figures.masked += 1
    for note in ordinary():
        figures.notes += 1
        results = [
            store.run({"command": "create", "path": "/memories/note.md", "file_text": note}),
            store.run({"command": "insert", "path": "/memories/note.md", "insert_line": 0, "insert_text": "Notes from Monday:"}),
        ]
        store.run({"command": "delete", "path": "/memories/note.md"})
        if any(_refused_for_a_secret(r) for r in results):
            figures.notes_refused += 1
            figures.false_refusals.append(note[:100])
    return figures
