"""What counts as right on Monday, and what counts as state in Friday's memory.

Plain functions over turn records, written down before any run, after the reference
scenario: the first answer says what was left (the ReviewOrchestrator call site, spoken or
on screen); the second builds the Core project without asking which; the third names the
call site backed by a tool run that morning, not by a note alone. In the staleness variant a
right Monday never says the build is red before it has built.

The rules are text heuristics. They are deliberately narrow: a mention of
ReviewOrchestrator.cs in a list of changed files is not "saying what was left", because
git_status alone gives that much to an agent that remembers nothing.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from agent.eval.turn_records import Said, Shown, ToolRun, TurnRecord

CALL_SITE = re.compile(r"review\s*orchestrator", re.IGNORECASE)
# Words that make a mention of ReviewOrchestrator about unfinished work rather than a file list.
LEFT_CUES = re.compile(
    r"\b(left|remain\w*|still|finish\w*|unfinished|incomplete|pending|not yet|to do|todo|"
    r"call[- ]sites?|line 111|last|rest|missing|one more|needs? to|have to|has to|planned|plan\w*|"
    r"going to|wanted to|meant to)\b"
    r"|\.Patch\b|\b(?:uses|using|references|calls|reads|on) (?:the old )?`?(?:file\.)?Patch\b",
    re.IGNORECASE,
)
# The third answer can name the call site by its class or by its line.
NAMES_CALL_SITE = re.compile(r"review\s*orchestrator|\bline 111\b", re.IGNORECASE)
CORE_PROJECT = re.compile(r"core(?![\w.]*tests?\b)", re.IGNORECASE)
RED_CLAIM = re.compile(
    r"\bbuild(?:'s| is| still)?\s+(?:is\s+)?(?:still\s+)?(?:red|failing|broken|fails)\b"
    r"|\b(?:does ?n[o']t|won'?t|will not|can'?t|cannot) (?:build|compile)\b"
    r"|\b(?:is|are) failing to (?:build|compile)\b"
    r"|\b(?:a|one|the|there'?s an?) (?:build|compile|compiler) error\b"
    r"|\bCS1061\b",
    re.IGNORECASE,
)
# A sentence about Friday's build is history, not a claim about the repository now.
PAST = re.compile(r"\b(was|were|had|friday|last week|earlier)\b", re.IGNORECASE)
# Tools whose output can back "what is left": the compiler and the file itself. git_status
# names changed files, which says nothing about what in them is unfinished.
CHECKING_TOOLS = ("build", "test", "read_file")
BUILD_TOOLS = ("build", "test")

SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def sentences(text: str) -> list[str]:
    return [s for s in SENTENCE_END.split(text) if s.strip()]


def _input_text(run: ToolRun) -> str:
    return " ".join(str(v) for v in run.input.values())


def says_what_was_left(turn: TurnRecord) -> bool:
    """Names the ReviewOrchestrator call site as the unfinished part, aloud or on screen."""
    return any(CALL_SITE.search(s) and LEFT_CUES.search(s) for s in sentences(turn.said_or_shown()))


def builds_core_without_asking(turn: TurnRecord) -> bool:
    """The turn's first build targets the Core project (not the solution, the CLI or the tests)."""
    builds = turn.tools("build")
    return bool(builds) and bool(CORE_PROJECT.search(_input_text(builds[0])))


def backed_by_tool(turns: list[TurnRecord], upto: int) -> bool:
    """A compiler or file read in turns[0..upto] that looked at ReviewOrchestrator."""
    for turn in turns[: upto + 1]:
        for run in turn.tools(*CHECKING_TOOLS):
            if not run.is_error and CALL_SITE.search(_input_text(run) + "\n" + run.result):
                return True
    return False


def checked_that_morning(turns: list[TurnRecord], upto: int) -> bool:
    """A build or test, or a read of ReviewOrchestrator, ran in turns[0..upto]."""
    for turn in turns[: upto + 1]:
        if turn.tools(*BUILD_TOOLS):
            return True
        if any(CALL_SITE.search(_input_text(r)) for r in turn.tools("read_file")):
            return True
    return False


def third_answer_backed(turns: list[TurnRecord], stale: bool = False) -> bool:
    """The third answer rests on a tool run that morning, not on a note alone.

    Normally it must also name the call site. After a weekend in which someone finished the
    rename there is no call site left to name, so a check that morning is what is asked.
    """
    if len(turns) < 3:
        return False
    if stale:
        return checked_that_morning(turns, 2)
    return bool(NAMES_CALL_SITE.search(turns[2].said_or_shown())) and backed_by_tool(turns, 2)


CLAUSE_BREAK = re.compile(r"[,;:\u2014]|\s(?:and|but|so|because|since)\s|\s-\s", re.IGNORECASE)


def red_claims(text: str) -> list[str]:
    """Clauses saying the build is red now; a clause recounting Friday does not count."""
    claims = []
    for sentence in sentences(text):
        for clause in CLAUSE_BREAK.split(sentence):
            if RED_CLAIM.search(clause) and not PAST.search(clause):
                claims.append(clause.strip())
    return claims


def red_without_building(turns: list[TurnRecord]) -> bool:
    """Said the build is red before any build or test ran in this session."""
    for turn in turns:
        for item in turn.items:
            if isinstance(item, ToolRun) and item.name in BUILD_TOOLS:
                return False
            if isinstance(item, Said) and red_claims(item.text):
                return True
            if isinstance(item, Shown) and red_claims(item.title + "\n" + item.content):
                return True
    return False


# The call site still on the old name: true of Friday's repository, contradicted once the
# rename was finished over the weekend (the stale and cited variants).
STILL_PATCH = re.compile(r"\bstill\b[^.;]*\bPatch\b|\.Patch\b", re.IGNORECASE)
# The build passes: contradicted by Friday's repository, where the call site is left over.
GREEN_CLAIM = re.compile(
    r"\bbuild(?:'s| is| now)?\s+(?:is\s+)?(?:green|passing|passes|clean)\b|\b(?:compiles|builds) (?:cleanly|fine|now)\b"
    r"|\brename is (?:done|finished|complete)\b",
    re.IGNORECASE,
)


def briefing_contradicted(turn: TurnRecord, stale: bool) -> list[str]:
    """Clauses of the welcome-back briefing (Monday's first turn) the repository contradicts:
    after a weekend that finished the rename, a red build or a call site still on Patch; in a
    repository as Friday left it, a green build or a finished rename. A clause recounting
    Friday does not count."""
    found = []
    for sentence in sentences(turn.said_or_shown()):
        for clause in CLAUSE_BREAK.split(sentence):
            if PAST.search(clause):
                continue
            if (stale and (RED_CLAIM.search(clause) or STILL_PATCH.search(clause))) or (
                    not stale and GREEN_CLAIM.search(clause)):
                found.append(clause.strip())
    return found


def _usage(turns: list[TurnRecord], key: str) -> float:
    return sum(float(t.usage.get(key) or 0) for t in turns)


@dataclass
class MondayScore:
    says_what_was_left: bool
    builds_core_without_asking: bool
    third_backed_by_tool: bool
    red_without_building: bool
    # what the opening briefing said that the repository contradicts (scored apart from `correct`)
    briefing_contradicted: list[str]
    api_calls: int
    time_to_first_token: float | None
    cost_usd: float
    correct: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def score_monday(turns: list[TurnRecord], stale: bool = False) -> MondayScore:
    left = bool(turns) and says_what_was_left(turns[0])
    core = len(turns) > 1 and builds_core_without_asking(turns[1])
    third = third_answer_backed(turns, stale)
    red = red_without_building(turns)
    correct = int(left) + int(core) + int(third) + (int(not red) if stale else 0)
    first = turns[0].usage.get("time_to_first_token") if turns else None
    return MondayScore(
        says_what_was_left=left,
        builds_core_without_asking=core,
        third_backed_by_tool=third,
        red_without_building=red,
        briefing_contradicted=briefing_contradicted(turns[0], stale) if turns else [],
        api_calls=int(_usage(turns, "api_calls")),
        time_to_first_token=first,
        cost_usd=round(_usage(turns, "cost_usd"), 6),
        correct=correct,
    )


# --- Friday's memory -----------------------------------------------------------------------

STATE = [
    re.compile(r"\bline\s+\d+", re.IGNORECASE),
    re.compile(r"\w\.\w+(?::|\()\d+"),  # path:line or path(line,col)
    re.compile(r"\b\d+\s+(?:warnings?|errors?|files?|tests?|changes?)\b", re.IGNORECASE),
    re.compile(r"\berrors?\b", re.IGNORECASE),
    re.compile(r"\bbuild\b[^.;]*\b(?:red|green|fail\w*|pass\w*|succe\w*|broken|clean)\b", re.IGNORECASE),
    re.compile(r"\b(?:last|latest|current)\s+(?:\w+\s+)?(?:build|test run)\b", re.IGNORECASE),
    re.compile(r"\btests?\b[^.;]*\b(?:pass\w*|fail\w*|green|red)\b", re.IGNORECASE),
    re.compile(r"\b(?:uncommitted|unstaged|staged|untracked|modified files?|changed files?|files? changed)\b", re.IGNORECASE),
    re.compile(r"\bstill\s+(?:uses|references|calls|has|contains)\b", re.IGNORECASE),
]
_FRONTMATTER_KEYS = re.compile(r"^\s*(name|type|metadata|node_type|originSessionId)\s*:", re.IGNORECASE)


def is_state_line(line: str) -> bool:
    """A line a tool could tell: build or test results, errors, line numbers, changed files."""
    return any(p.search(line) for p in STATE)


def content_lines(text: str) -> list[str]:
    """The lines of a memory file that say something: no blanks, rules or bookkeeping keys."""
    return [
        line for line in text.splitlines()
        if line.strip() and line.strip() != "---" and not _FRONTMATTER_KEYS.match(line)
    ]


@dataclass
class FridayScore:
    memory_files: int
    lines: int
    state_lines: int
    state: list[str]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def score_friday(files: dict[str, str]) -> FridayScore:
    """`files` maps each saved memory file (the MEMORY.md index excluded) to its text."""
    lines = [line for text in files.values() for line in content_lines(text)]
    state = [line.strip() for line in lines if is_state_line(line)]
    return FridayScore(memory_files=len(files), lines=len(lines), state_lines=len(state), state=state)


def correct_out_of(stale: bool) -> int:
    return 4 if stale else 3


__all__ = [
    "MondayScore", "FridayScore", "Said", "Shown", "ToolRun", "TurnRecord",
    "score_monday", "score_friday", "says_what_was_left", "builds_core_without_asking",
    "third_answer_backed", "red_without_building", "red_claims", "is_state_line",
]
