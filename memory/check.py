"""What is wrong with a memory folder, as findings: (memory file, kind, detail).

    state      a line that records tool state: whether the build or tests pass, error or
               warning counts, what is uncommitted. A tool says it better next session.
    duplicate  two memories about the same thing
    changed    a citation whose text is no longer there (memory/evidence.py)
    gone       a citation whose file is no longer there
    aging      neither written nor verified for `aging_days` days
    index      MEMORY.md and the files disagree
    cap        over a size cap, or close to it
    secret     something shaped like a credential (written outside the memory tool)
    format     missing or broken frontmatter, a day name beside a date ("Monday
               2026-11-30": the date alone is what the rules ask for), or a file that is
               not read at all (a .txt, a link, a name the memory tool cannot address): it
               says why

The CLI prints them (`devagent memory check`), the pane marks them, and the "Tidy memory"
turn hands them to the model. Reading needs no lock: files are replaced whole.
"""

from __future__ import annotations

import re
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory import evidence as ev
from memory import notes
from memory.evidence_file import EvidenceFile
from memory.files import strict_text
from memory.freshness import DEFAULT_AGING_DAYS, freshness
from memory.notes import INDEX_NAME, TYPES, index_entries, index_names, indexed
from memory.secrets import find_secrets

if TYPE_CHECKING:
    from memory.seam import Folder

KINDS = ("state", "duplicate", "changed", "gone", "aging", "index", "cap", "secret", "format")
# Past this share of a cap a memory is "close to it": the next note will be refused.
NEAR_CAP = 0.9


@dataclass(frozen=True)
class Finding:
    path: str  # virtual path of the memory file, or of the folder for folder-wide findings
    kind: str
    detail: str

    def line(self) -> str:
        return f"{self.path}\t{self.kind}\t{self.detail}"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


# --- state ---------------------------------------------------------------------------------

_STATE = [
    re.compile(r"\b\d+\s+(?:warnings?|errors?|failures?|failing|failed|passing|passed)\b", re.I),
    re.compile(r"\bbuild\b[^.;\n]*\b(?:is|was|are|were|goes|went|turned|stays?)\s+(?:\w+\s+)?(?:red|green|broken|clean|failing|passing)\b", re.I),
    re.compile(r"\bbuild\s+(?:fails|failed|failing|passes|passed|succeeds|succeeded|is\s+broken)\b", re.I),
    re.compile(r"\btests?\s+(?:\w+\s+){0,2}(?:pass(?:es|ed|ing)?|fail(?:s|ed|ing)?|are\s+(?:green|red))\b", re.I),
    re.compile(r"\b(?:open|current|remaining)\s+(?:build\s+|compile\s+)?errors?\b", re.I),
    re.compile(r"\b(?:build|compile|compiler)\s+errors?\b", re.I),
    re.compile(r"\berror\s+[A-Z]{2,}\d{3,}\b"),
    re.compile(r"\b(?:uncommitted|unstaged|untracked)\b", re.I),
    re.compile(r"\b(?:\d+\s+)?(?:modified|changed|staged)\s+files?\b|\bfiles?\s+(?:changed|modified)\b", re.I),
    re.compile(r"\b(?:last|latest|current)\s+(?:\w+\s+)?(?:build|test\s+run)\b", re.I),
]
_FRONTMATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)(?:\r?\n)?^---[ \t]*(?:\r?\n|\Z)", re.DOTALL | re.MULTILINE)


def state_lines(text: str) -> list[str]:
    body = _FRONTMATTER.sub("", text, count=1)
    return [line.strip() for line in body.splitlines() if line.strip() and any(p.search(line) for p in _STATE)]


# --- format --------------------------------------------------------------------------------


def format_problem(text: str) -> str | None:
    """Why the frontmatter will not do, or None. It needs name, type and description."""
    match = _FRONTMATTER.match(text)
    if match is None:
        return "no frontmatter (name, type, description between --- lines)"
    # read as the store reads it: a description holding ": " is not YAML, but every
    # listing and the prompt take it as the line it plainly is, so it is no finding
    refused = notes.frontmatter_problem(text)
    if refused:
        return f"{refused}: write it as plain key: value lines"
    data = notes.frontmatter(text)
    if not data:
        return "broken frontmatter: not a list of key: value lines"
    kind = data.get("type")
    if not kind and isinstance(data.get("metadata"), dict):
        kind = data["metadata"].get("type")
    present = {"name": data.get("name"), "type": kind, "description": data.get("description")}
    missing = [key for key, value in present.items() if not str(value or "").strip()]
    if missing:
        return "frontmatter lacks " + ", ".join(missing)
    if str(kind).lower() not in TYPES:
        return f"type {kind!r} is not one of {', '.join(TYPES)}"
    return None


_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DAY = r"(?P<day>(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*)\.?"
_ISO = r"(?P<date>\d{4}-\d{2}-\d{2})"
# "Monday 2026-11-30", "Monday, 2026-11-30", "Mon (2026-11-30)", "2026-11-30 (Monday)"
_DAY_BESIDE_DATE = [
    re.compile(rf"\b{_DAY},?\s*\(?\s*{_ISO}\b", re.IGNORECASE),
    re.compile(rf"\b{_ISO}\s*,?\s*\(?\s*{_DAY}\b", re.IGNORECASE),
]


def day_names(text: str) -> list[str]:
    """Day names written beside a date, each as a sentence: the memory rules ask for the date
    alone, and a day name that does not match its date leaves a later session to guess."""
    from datetime import date

    body = _FRONTMATTER.sub("", text, count=1)
    found: list[str] = []
    for pattern in _DAY_BESIDE_DATE:
        for match in pattern.finditer(body):
            day = match.group("day").lower()
            named = next((d for d in _DAYS if d.startswith(day[:3]) and d.startswith(day)), None)
            if named is None:
                continue
            try:
                actual = _DAYS[date.fromisoformat(match.group("date")).weekday()]
            except ValueError:
                continue
            sentence = f"a day name beside a date ({match.group(0).strip()}): keep the date alone"
            if actual != named:
                sentence += f"; {match.group('date')} is a {actual.capitalize()}"
            found.append(sentence)
    return found


# --- duplicates ----------------------------------------------------------------------------

_WORD = re.compile(r"[A-Za-z0-9_.]{3,}")
_COMMON = frozenset(["the", "and", "for", "that", "this", "with", "from", "are", "was", "not", "but", "you", "your", "use", "uses", "used", "what", "when", "which"])


def _words(text: str) -> set[str]:
    body = _FRONTMATTER.sub("", text, count=1)
    return {w.lower().strip(".") for w in _WORD.findall(body)} - _COMMON


def _similar(a: set[str], b: set[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def _duplicates(memories: list[tuple[Any, str]]) -> list[Finding]:
    """The newer of two alike memories is the one reported: the older one was there first."""
    found = []
    memories = sorted(memories, key=lambda m: (m[0].modified, m[0].path))
    for i, (later, later_text) in enumerate(memories):
        for earlier, earlier_text in memories[:i]:
            reason = None
            if later.name.strip().lower() == earlier.name.strip().lower() and later.name != later.file.stem:
                reason = "the same name"
            elif later.description and later.description.strip().lower() == earlier.description.strip().lower():
                reason = "the same description"
            elif _similar(_words(later_text), _words(earlier_text)) >= 0.7:
                reason = "mostly the same words"
            if reason:
                found.append(Finding(later.path, "duplicate", f"{reason} as {earlier.path}: merge them into one"))
                break
    return found


# --- the whole folder ----------------------------------------------------------------------


def _index(store: Folder, infos: list[Any]) -> list[Finding]:
    root = store.ROOT
    index_path = f"{root}/{INDEX_NAME}"
    text = store.index_text()
    entries = index_entries(text, root)
    names = index_names(text, root)
    found: list[Finding] = []
    if not entries and not infos:
        return found
    for info in infos:
        if not indexed(names, info.path[len(root) + 1 :]):
            found.append(Finding(info.path, "index", f"no line in {index_path}, so a session reading the index will not find it"))
    known = {info.path[len(root) + 1 :] for info in infos}
    for entry in entries:
        bare = "/" not in entry.target and any(k.rsplit("/", 1)[-1] == entry.target for k in known)
        if entry.target not in known and not bare:
            found.append(Finding(index_path, "index", f"line {entry.line + 1} links to {entry.target}, which is not a memory file"))
    return found


def _caps(store: Folder, infos: list[Any]) -> list[Finding]:
    found = []
    for info in infos:
        if info.size > store.max_file_chars:
            found.append(Finding(info.path, "cap", f"{info.size:,} characters, over the {store.max_file_chars:,} limit for one file"))
        elif info.size >= NEAR_CAP * store.max_file_chars:
            found.append(Finding(info.path, "cap", f"{info.size:,} of {store.max_file_chars:,} characters: close to the limit for one file"))
    total = store.total_chars()
    if total > store.max_total_chars:
        found.append(Finding(store.ROOT, "cap", f"{total:,} characters in all, over the {store.max_total_chars:,} limit"))
    elif total >= NEAR_CAP * store.max_total_chars:
        found.append(Finding(store.ROOT, "cap", f"{total:,} of {store.max_total_chars:,} characters in all: close to the limit"))
    return found


def evidence_checks(store: Folder, repo: Path, memories: list[tuple[Any, str]]) -> dict[str, list[ev.CitationCheck]]:
    records = EvidenceFile.load(Path(store.directory))
    tree = ev.Tree(repo)
    return {
        info.path: ev.check_text(text, repo, records.get(info.path[len(store.ROOT) + 1 :]), tree)
        for info, text in memories
    }


def _evidence(checks: dict[str, list[ev.CitationCheck]]) -> list[Finding]:
    return [
        Finding(path, check.state, check.sentence())
        for path, found in checks.items()
        for check in found
        if check.state in (ev.CHANGED, ev.GONE)
    ]


def check_store(
    store: Folder,
    repo: Path | None,
    *,
    now: float | None = None,
    aging_days: int = DEFAULT_AGING_DAYS,
    evidence: dict[str, list[ev.CitationCheck]] | None = None,
) -> list[Finding]:
    """Every finding in one memory folder; `repo` None skips the citations (user memory).
    `evidence` takes the citation checks when the caller already has them (the pane)."""
    now = time.time() if now is None else now
    refused = store.refusal()
    if refused:
        return [Finding(store.ROOT, "format", refused)]
    infos = store.memories()
    memories: list[tuple[Any, str]] = []
    found: list[Finding] = []
    for info in infos:
        text = strict_text(str(info.file))
        if text is None:
            found.append(Finding(info.path, "format", "not UTF-8 text"))
            continue
        memories.append((info, text))
        for line in state_lines(text):
            found.append(Finding(info.path, "state", f"records tool state, out of date next session: {line[:100]}"))
        problem = format_problem(text)
        if problem:
            found.append(Finding(info.path, "format", problem))
        for sentence in day_names(text):
            found.append(Finding(info.path, "format", sentence))
        secrets = find_secrets(text)
        if secrets:
            found.append(Finding(info.path, "secret", f"holds something shaped like a credential ({secrets[0].kind}); delete it"))
        age = freshness(text, info.modified, now, aging_days)
        if age.aging:
            found.append(Finding(info.path, "aging", f"neither written nor verified for {int(age.age_days)} days"))
    index_secrets = find_secrets(store.index_text())
    if index_secrets:
        found.append(Finding(f"{store.ROOT}/{INDEX_NAME}", "secret", f"holds something shaped like a credential ({index_secrets[0].kind}); delete it"))
    found += _duplicates(memories)
    for item in store.skipped():
        found.append(Finding(item.path, "format", f"not read: {item.reason}"))
    if repo is not None:
        broken = EvidenceFile.load(Path(store.directory))
        if broken.problem is not None:
            found.append(Finding(f"{store.ROOT}/{broken.path.name}", "format", (
                f"{broken.path} cannot be read: {broken.problem}; every citation reads as unrecorded. "
                f"The next memory write keeps it aside under a new name and starts a new one")))
    if evidence is None and repo is not None:
        evidence = evidence_checks(store, Path(repo), memories)
    found += _evidence(evidence or {})
    found += _index(store, infos)
    found += _caps(store, infos)
    order = {kind: n for n, kind in enumerate(KINDS)}
    return sorted(found, key=lambda f: (f.path, order[f.kind]))


def by_memory(findings: list[Finding]) -> dict[str, list[Finding]]:
    grouped: dict[str, list[Finding]] = {}
    for finding in findings:
        grouped.setdefault(finding.path, []).append(finding)
    return grouped
