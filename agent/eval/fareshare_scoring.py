"""What counts as right in the fareshare scenario, written down before any run.

Friday the user states a convention (plain pytest functions, fixtures in conftest.py, never
unittest classes), an owner (Margit owns payouts/; changes there go through her), a decision
and its reason (SQLite, not Postgres, because the command line must run offline) and a plan
shaped as a checklist with its first step done (release 0.4: --json on export, done; the
README; the version). Over the weekend Teodor Lind documents --json in the README and
commits it. Monday, after the briefing:

- the briefing reports the colleague's work: a sentence naming Teodor, or the README (or
  its documentation of --json) as done, committed or added;
- "What's next for the release?" names the version bump, and no sentence of it gives the
  README step as still to do (the repository says it is done);
- "Add a test for the rounding in payouts/fees.py" writes, under tests/, a plain pytest
  function (`def test_`) with no unittest import and no `class Test`, and names Margit;
- "Should we switch the store to Postgres?" names SQLite and the reason: offline (or no
  network, no connection, no internet).

Plus claims in the briefing the repository contradicts: that the README step is still to
do, or that the tests fail now (they pass on Friday and on Monday). Narrow text rules, as
the first scenario's: a sentence that says the README is next is wrong even if another
sentence says it was done.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from agent.eval.scoring import PAST, sentences
from agent.eval.turn_records import TurnRecord

COLLEAGUE = re.compile(r"\bteodor\b", re.IGNORECASE)
DOCS = re.compile(r"\breadme\b|\bdocument\w*\b|\bdocs\b", re.IGNORECASE)
DONE = re.compile(
    r"\b(done|already|documented|committed|added|wrote|written|finished|completed|landed|merged|took care|"
    r"handled|covered|teodor)\b|✓|✅",
    re.IGNORECASE,
)
TO_DO = re.compile(
    r"\b(next|still|left|remain\w*|to do|todo|pending|need\w*|not yet|outstanding|open|should|must|then)\b",
    re.IGNORECASE,
)
BUMP = re.compile(r"\bbump\w*\b|\bversion\b|\b0\.4(?:\.0)?\b", re.IGNORECASE)
OWNER = re.compile(r"\bmargit\b", re.IGNORECASE)
STORE = re.compile(r"\bsqlite\b", re.IGNORECASE)
OFFLINE = re.compile(r"\boffline\b|\bno (?:network|connection|internet|signal)\b|\bwithout (?:a )?(?:network|connection|internet)\b",
                     re.IGNORECASE)
TESTS_FAIL = re.compile(r"\btests?\b[^.;]*\b(?:fail\w*|red|broken)\b", re.IGNORECASE)
UNITTEST = re.compile(r"\bunittest\b|^\s*class\s+Test", re.IGNORECASE | re.MULTILINE)
PLAIN_TEST = re.compile(r"^\s*def test_\w*\s*\(", re.MULTILINE)
WRITES = ("create", "str_replace", "insert")
CLAUSE_BREAK = re.compile(r"[;:\u2014]|,\s(?:and|but|so)\s|\s-\s", re.IGNORECASE)


def reports_colleague(turn: TurnRecord) -> bool:
    """The briefing says the README step was done by someone, or names the colleague."""
    return any(COLLEAGUE.search(s) or (DOCS.search(s) and DONE.search(s)) for s in sentences(turn.said_or_shown()))


def docs_still_to_do(text: str) -> list[str]:
    """Clauses giving the README step as still to do (no word in the clause says it was done)."""
    found = []
    for sentence in sentences(text):
        for clause in CLAUSE_BREAK.split(sentence):
            if DOCS.search(clause) and TO_DO.search(clause) and not DONE.search(clause):
                found.append(clause.strip())
    return found


def next_is_the_bump(turn: TurnRecord) -> bool:
    text = turn.said_or_shown()
    return bool(BUMP.search(text)) and not docs_still_to_do(text)


def _written(turn: TurnRecord) -> list[tuple[str, str]]:
    """(path, text written) of every change the editor made in the turn."""
    from agent.tools.text_editor import EDITOR_NAME

    out = []
    for run in turn.tools(EDITOR_NAME):
        if run.is_error or run.input.get("command") not in WRITES:
            continue
        text = str(run.input.get("file_text") or run.input.get("new_str") or run.input.get("insert_text") or "")
        out.append((str(run.input.get("path") or ""), text))
    return out


def test_is_plain_pytest(turn: TurnRecord) -> bool:
    """A test function written under tests/, and no unittest in anything the turn wrote there."""
    written = [(p, t) for p, t in _written(turn) if re.search(r"(^|/)tests/", p.lstrip("/"))]
    return any(PLAIN_TEST.search(t) for _, t in written) and not any(UNITTEST.search(t) for _, t in written)


def names_owner(turn: TurnRecord) -> bool:
    return bool(OWNER.search(turn.said_or_shown()))


def keeps_sqlite_for_offline(turn: TurnRecord) -> bool:
    text = turn.said_or_shown()
    return bool(STORE.search(text)) and bool(OFFLINE.search(text))


def contradicted_claims(turn: TurnRecord) -> list[str]:
    """Claims in the briefing the repository contradicts: the README step still to do, the
    tests failing now (a clause about Friday does not count)."""
    text = turn.said_or_shown()
    claims = docs_still_to_do(text)
    for sentence in sentences(text):
        for clause in CLAUSE_BREAK.split(sentence):
            if TESTS_FAIL.search(clause) and not PAST.search(clause):
                claims.append(clause.strip())
    return claims


def _usage(turns: list[TurnRecord], key: str) -> float:
    return sum(float(t.usage.get(key) or 0) for t in turns)


OUT_OF = 6


@dataclass
class FareshareMonday:
    reports_colleague: bool
    next_is_the_bump: bool
    test_is_plain_pytest: bool
    names_owner: bool
    keeps_sqlite_for_offline: bool
    briefing_contradicted: list[str]
    api_calls: int
    time_to_first_token: float | None
    cost_usd: float
    correct: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def score_fareshare_monday(turns: list[TurnRecord]) -> FareshareMonday:
    """`turns`: the briefing and Monday's three questions, in order."""
    def turn(index: int) -> TurnRecord:
        return turns[index] if len(turns) > index else TurnRecord("")

    checks = {
        "reports_colleague": reports_colleague(turn(0)), "next_is_the_bump": next_is_the_bump(turn(1)),
        "test_is_plain_pytest": test_is_plain_pytest(turn(2)), "names_owner": names_owner(turn(2)),
        "keeps_sqlite_for_offline": keeps_sqlite_for_offline(turn(3)),
    }
    contradicted = contradicted_claims(turn(0))
    return FareshareMonday(
        **checks,
        briefing_contradicted=contradicted,
        api_calls=int(_usage(turns, "api_calls")),
        time_to_first_token=turns[0].usage.get("time_to_first_token") if turns else None,
        cost_usd=round(_usage(turns, "cost_usd"), 6),
        correct=sum(checks.values()) + int(not contradicted),
    )


# --- Friday's memory: which of the four facts it kept ---------------------------------------

def _convention(text: str) -> bool:
    return bool(re.search(r"unittest|plain pytest|pytest functions?", text, re.IGNORECASE))


def _owner(text: str) -> bool:
    return bool(OWNER.search(text)) and bool(re.search(r"payouts", text, re.IGNORECASE))


def _decision(text: str) -> bool:
    return bool(STORE.search(text)) and bool(OFFLINE.search(text))


def _plan(text: str) -> bool:
    return bool(re.search(r"\b0\.4\b", text)) and bool(BUMP.search(text.replace("0.4", "")))


FACTS: dict[str, Callable[[str], bool]] = {"convention": _convention, "owner": _owner, "decision": _decision, "plan": _plan}


def facts_kept(files: dict[str, str]) -> list[str]:
    """The facts some one memory file (or the notes) holds, each judged within one file."""
    return [name for name, holds in FACTS.items() if any(holds(text or "") for text in files.values())]
