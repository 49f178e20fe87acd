"""Welcome back: the first turn of a session opened after time away from a repository.

What the user left off comes from memory and the last session's last turns; what happened
since comes from checks run at this moment (git_log since the last session's HEAD,
git_status, the memories' evidence), so a claim about the repository rests on the
repository as it is now, never on what a memory said. With a key, the checks go to the
model as data and it writes the briefing; without one, the briefing is built here from the
checks alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agent.cancel import Cancellation
from agent.conversation import transcripts
from agent.events import ShowOnScreen, TextDelta, TurnFinished, TurnStarted, Usage
from agent.recall.briefing import evidence_lines
from agent.tools.base import ToolContext, ToolResult
from agent.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from agent.events import Sink
    from agent.settings.config import AgentConfig
    from agent.tools.editor.confined_files import RepositoryRoot
    from memory.seam import Store

# What the conversation shows as the user's side of the briefing turn, and what the user
# may say or type to ask for it again.
ASKED = "What's new since my last session?"
ASKING = ("what's new", "whats new", "what is new", "what changed since", "welcome back", "catch me up")
OWN_WORDS = "[devagent, not the user]"  # how the briefing turn's request begins
MAX_QUESTIONS = 3
MAX_REPLY = 600
MAX_CHECK = 6000  # characters of one check's result in the request


@dataclass(frozen=True)
class LastVisit:
    """The repository's previous session, as its transcript holds it."""

    ended: datetime
    head: str | None  # the commit checked out when its last turn ended; None in older transcripts
    questions: tuple[str, ...]  # its last user turns, oldest first
    last_reply: str


@dataclass(frozen=True)
class Checks:
    """What the repository says now, each from a tool run at this moment."""

    since: str  # "commit 1a2b3c4" or a date: where the log starts
    log: ToolResult | None  # None: the repository has no git_log tool
    status: ToolResult | None
    evidence: str  # one line per memory that cites code ("" when none does)
    commits: list[dict[str, Any]] = field(default_factory=list)  # the log's commits, as data (local briefing)
    evidence_in_prompt: bool = False  # the system prompt holds these very lines: not sent twice


def asks_for_it(text: str) -> bool:
    """The user's words ask for the briefing ("what's new?")."""
    words = " ".join(text.lower().replace("\u2019", "'").split()).strip(" ?!.")
    return len(words) <= 40 and any(words.startswith(phrase) or words == phrase for phrase in ASKING)


def last_visit(repo: Path, *, exclude: Path | None = None) -> LastVisit | None:
    """The newest earlier session of `repo` that got as far as one turn."""
    saved = transcripts.latest(repo, exclude=exclude)
    if saved is None:
        return None
    ends = [_time(t.get("time")) for t in saved.turns]
    ended = max([t for t in ends if t is not None], default=None) or max(
        (m.time for m in saved.messages), default=saved.started)
    head = next((str(t["head"]) for t in reversed(saved.turns) if isinstance(t.get("head"), str)), None)
    questions: list[str] = []
    last_reply = ""
    for message in saved.messages:
        if message.replayed:
            continue
        role = message.message.get("role")
        words = _words(message.message, last_only=role == "user")
        if role == "user" and words and not words.startswith(OWN_WORDS):
            questions.append(words)
        elif role == "assistant" and words:
            last_reply = words
    return LastVisit(ended=ended, head=head, questions=tuple(q[:300] for q in questions[-MAX_QUESTIONS:]),
                     last_reply=last_reply[:MAX_REPLY])


def due(last: LastVisit | None, now: datetime, hours: float) -> bool:
    """Whether a session opened `now` is a return: the last one ended `hours` or more ago."""
    if last is None:
        return False
    try:
        return now - last.ended >= timedelta(hours=hours)
    except TypeError:  # a transcript written without a time zone
        return now.replace(tzinfo=None) - last.ended.replace(tzinfo=None) >= timedelta(hours=hours)


def run_checks(registry: ToolRegistry, ctx: ToolContext, last: LastVisit | None, evidence: Callable[[], str]) -> Checks:
    """git_log since the last session's HEAD (its end time when the HEAD is unknown), git_status
    and the evidence check, each run now through the tools the model has."""
    if last is not None and last.head:
        since, log_input = f"commit {last.head[:10]}", {"since": last.head}
    elif last is not None:
        since, log_input = last.ended.strftime("%Y-%m-%d %H:%M"), {"since": last.ended.isoformat(timespec="seconds")}
    else:
        since, log_input = "the last 20 commits", {}
    log = registry.run("git_log", log_input, ctx) if registry.get("git_log") else None
    status = registry.run("git_status", {}, ctx) if registry.get("git_status") else None
    return Checks(since=since, log=log, status=status, evidence=evidence())


def commits_since(repo: Path, last: LastVisit | None) -> list[dict[str, Any]]:
    """The commits git_log showed, as data (id, author, date, subject, files), read by the
    same reader; [] when the history cannot be read."""
    from memory.git.reading import GitUnreadable, ask

    request: dict[str, Any] = {"op": "log", "limit": 100, "max_files": 50}
    if last is not None and last.head:
        request["since_revision"] = last.head
    elif last is not None:
        request["since_time"] = int(last.ended.timestamp())
    try:
        answer = ask(repo, request, timeout=20)
    except GitUnreadable:
        return []
    return [{**c, "files": [f["path"] for f in c.get("files", [])]} for c in answer.get("commits", [])]


def request(last: LastVisit | None, checks: Checks, now: datetime, mark: Callable[[str], str]) -> str:
    """The briefing turn's words for the model: what to say, then the checks as marked data."""
    away = f"last session here ended {last.ended:%Y-%m-%d %H:%M} ({_ago(now - last.ended)})" if last else "no earlier session"
    parts = [
        f"{OWN_WORDS} The user just opened devagent; their {away}. "
        "Before they ask, give a welcome-back briefing: where they left off (from plan and project memories "
        "and their last turns below), what happened since (commits: by whom, which files; the working tree "
        "now), which memories' evidence moved, changed or is gone, and one suggested next step. "
        "Every claim about the code or the repository's state must rest on the checks below, run just now, "
        "or on a tool you call; where a memory and a check disagree, say so and trust the check. "
        "Reply in at most three short spoken sentences; put the detail on screen with show_on_screen first.",
    ]
    if last is not None and (last.questions or last.last_reply):
        said = "\n".join(f"- the user: {q}" for q in last.questions)
        if last.last_reply:
            said += f"\n- your last reply: {last.last_reply}"
        parts.append("The last session's last turns:\n" + mark(said))
    parts.append(f"git_log since {checks.since}:\n" + _result(checks.log, mark, "no git_log tool in this repository"))
    parts.append("git_status now:\n" + _result(checks.status, mark, "no git_status tool in this repository"))
    if checks.evidence_in_prompt:
        parts.append("Memory evidence now: the evidence lines of your memory block above, checked just now.")
    else:
        parts.append("Memory evidence now:\n" + (mark(checks.evidence) if checks.evidence else "(no memory cites code)"))
    return "\n\n".join(parts)


@dataclass(frozen=True)
class LocalBriefing:
    spoken: str  # at most three sentences
    detail: str  # Markdown for the screen pane


def local_briefing(last: LastVisit | None, checks: Checks, now: datetime) -> LocalBriefing:
    """The briefing from the checks alone, for a session with no model to write it."""
    sentences = []
    when = f"{last.ended:%A %Y-%m-%d} ({_ago(now - last.ended)})" if last else "your last session"
    commits = checks.commits
    if commits:
        authors = sorted({str(c.get("author") or "someone") for c in commits})
        files = sorted({f for c in commits for f in c.get("files") or []})
        sentences.append(
            f"Since {when}, {_count(len(commits), 'commit')} by {_names(authors)} touched {_count(len(files), 'file')}."
        )
    elif checks.log is not None and not checks.log.is_error:
        sentences.append(f"No commits since {when}.")
    changed = _changed_memories(checks.evidence)
    if changed:
        verb = "cites" if len(changed) == 1 else "cite"
        sentences.append(f"{_count(len(changed), 'memory', 'memories')} {verb} code that changed or is gone: check before trusting it.")
    sentences.append(_next_step(last, checks, changed))
    detail = [f"# Welcome back\n\nYour last session here ended {when}."]
    if last is not None and last.questions:
        detail.append("## Where you left off\n\n" + "\n".join(f"- {q}" for q in last.questions))
    detail.append(f"## Commits since {checks.since}\n\n```\n{_text(checks.log, 'git_log is not available')}\n```")
    detail.append(f"## Working tree now\n\n```\n{_text(checks.status, 'git_status is not available')}\n```")
    if checks.evidence:
        detail.append(f"## Memory evidence\n\n{checks.evidence}")
    return LocalBriefing(spoken=" ".join(sentences[:3]), detail="\n\n".join(detail))


def _next_step(last: LastVisit | None, checks: Checks, changed: list[str]) -> str:
    if changed:
        return f"Next: check the memory {changed[0]} against the code."
    status = _text(checks.status, "")
    if status and "clean" not in status.lower() and "nothing to commit" not in status.lower():
        return "Next: look over the uncommitted changes in the working tree."
    if last is not None and last.questions:
        return f"Next: pick up where you left off: {last.questions[-1][:120]}"
    return "Next: ask me about the commits above."


def _changed_memories(evidence: str) -> list[str]:
    found = []
    for line in evidence.splitlines():
        if line.startswith("- ") and (" changed" in line or " gone" in line) and ":" in line:
            found.append(line[2:].split(":", 1)[0])
    return found


def _result(result: ToolResult | None, mark: Callable[[str], str], missing: str) -> str:
    if result is None:
        return f"({missing})"
    text = result.text[:MAX_CHECK] + ("\n[cut]" if len(result.text) > MAX_CHECK else "")
    return mark(("Error: " if result.is_error else "") + (text or "(no output)"))


def _text(result: ToolResult | None, missing: str) -> str:
    return missing if result is None else (result.text or "(no output)")[:MAX_CHECK]


def _words(message: dict[str, Any], *, last_only: bool) -> str:
    """A message's text; a user message's own words are its last text block (the date and
    the session's notes come before them)."""
    content = message.get("content")
    if isinstance(content, str):
        return " ".join(content.split())
    if not isinstance(content, list):
        return ""
    texts = [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
    if last_only:
        texts = texts[-1:]
    return " ".join(" ".join(texts).split())


def _time(value: object) -> datetime | None:
    try:
        return datetime.fromisoformat(str(value)) if value else None
    except ValueError:
        return None


def _ago(gap: timedelta) -> str:
    hours = gap.total_seconds() / 3600
    if hours < 48:
        return f"{max(1, round(hours))} hours ago"
    return f"{round(hours / 24)} days ago"


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _names(names: list[str]) -> str:
    if len(names) <= 2:
        return " and ".join(names)
    return f"{', '.join(names[:2])} and {len(names) - 2} more"


class Conversation(Protocol):
    """What the briefing reads of the session (agent.loop.session.Session)."""

    repo: Path
    base: Path  # the repository's files, through the session's root descriptor
    root: RepositoryRoot | None
    config: AgentConfig
    registry: ToolRegistry
    system: list[dict[str, Any]]  # the system prompt's blocks as the next request sends them
    store: Store | None
    turn: int

    @property
    def transcript(self) -> transcripts.Transcript | None: ...

    def now(self) -> datetime: ...


def _own_transcript(session: Conversation) -> Path | None:
    return session.transcript.path if session.transcript is not None else None


def due_for(session: Conversation) -> bool:
    """A new session's first turn, after the configured hours away (never asked of a resumed one)."""
    if not session.config.welcome_back or session.turn:
        return False
    last = last_visit(session.repo, exclude=_own_transcript(session))
    return due(last, session.now(), session.config.welcome_back_hours)


@dataclass(frozen=True)
class Briefing:
    repo: Path  # the session's view of the repository (its root descriptor when it has one)
    last: LastVisit | None
    checks: Checks
    now: datetime

    @classmethod
    def prepare(cls, session: Conversation, cancel: Cancellation | None) -> Briefing:
        """The last visit and the checks, run now."""
        last = last_visit(session.repo, exclude=_own_transcript(session))
        if last is not None and session.config.memory_mode == "none":
            # A session that keeps nothing of the past is not told the last one's words either.
            last = replace(last, questions=(), last_reply="")
        ctx = ToolContext(repo=session.repo, cancel=cancel, config=session.config, root=session.root)
        store = session.store
        evidence: Callable[[], str] = (lambda: evidence_lines(store, session.base)) if store is not None else str
        checks = run_checks(session.registry, ctx, last, evidence)
        told = bool(checks.evidence) and any(checks.evidence in str(block.get("text", "")) for block in session.system)
        return cls(session.base, last, replace(checks, evidence_in_prompt=told), session.now())

    def request(self, mark: Callable[[str], str]) -> str:
        return request(self.last, self.checks, self.now, mark)

    def given_here(self, turn: int, emit: Sink) -> Usage:
        """The briefing built from the checks, reported as a turn's events."""
        checks = replace(self.checks, commits=commits_since(self.repo, self.last))
        local = local_briefing(self.last, checks, self.now)
        emit(TurnStarted(turn, ASKED))
        emit(ShowOnScreen(turn, "Welcome back", local.detail, "markdown"))
        emit(TextDelta(turn, local.spoken))
        emit(TurnFinished(turn, Usage(), local.spoken, False))
        return Usage()
