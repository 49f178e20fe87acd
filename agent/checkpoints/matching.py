"""Which turn a spoken or typed "go back to before the rename" means.

An utterance is a request to go back when it begins so ("go back", "rewind", "roll back",
"undo the last two turns"); what follows names the turn: a count ("the last turn", "two
turns") or words of it. Words are matched against each turn's own words and the files it
changed, a word counting when the two share their first four letters (so "rename" meets
"renamed", "linting" meets "linter"); the best score wins, the latest turn on a tie. The request only
opens the rewind list with that turn chosen: nothing goes back before the user says so.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from agent.checkpoints.store import Checkpoint

_REQUEST = re.compile(
    r"^\s*(?:please\s+|ok(?:ay)?\s+|now\s+)?(?:go\s+back|rewind|roll\s+back|undo)\b[\s,]*(?P<what>.*?)[\s.!?]*$",
    re.IGNORECASE | re.DOTALL)
_NUMBERS = {"one": 1, "a": 1, "the": 1, "last": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
            "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_COUNT = re.compile(r"^(?:by\s+|the\s+)?(?:last\s+)?(?P<n>\d+|one|a|two|three|four|five|six|seven|eight|nine|ten)?"
                    r"\s*(?:last\s+)?turns?$", re.IGNORECASE)
_FILLER = frozenset(["to", "before", "the", "a", "an", "of", "my", "that", "this", "we", "i", "you", "it", "go", "back", "rewind", "change", "changes", "turn", "when", "where", "what", "did", "was", "is", "please"])


def rewind_request(words: str) -> str | None:
    """What names the turn, when `words` ask to go back ("" for just "go back"); else None."""
    found = _REQUEST.match(words)
    if found is None:
        return None
    what = found.group("what").strip()
    if words.strip().lower().startswith("undo") and not re.search(r"\bturns?\b|\bbefore\b", what, re.IGNORECASE):
        return None  # "undo the rename" reads as a request to the agent, not a rewind of the conversation
    return what


def _tokens(text: str) -> list[str]:
    return [t for t in re.findall(r"[a-z0-9]+", text.lower()) if t not in _FILLER]


def _meets(a: str, b: str) -> bool:
    if a == b:
        return True
    return len(a) >= 4 and len(b) >= 4 and a[:4] == b[:4]


def _score(wanted: list[str], checkpoint: Checkpoint) -> int:
    names = " ".join(PurePosixPath(p).stem.replace("_", " ") for p in (*checkpoint.files, *checkpoint.memory))
    theirs = _tokens(f"{checkpoint.words} {names}")
    return sum(1 for w in wanted if any(_meets(w, t) for t in theirs))


def best_turn(what: str, checkpoints: list[Checkpoint]) -> Checkpoint | None:
    """The checkpoint `what` names (from `rewind_request`); None when nothing matches."""
    if not checkpoints:
        return None
    spoken = what.strip().lower()
    count = _COUNT.match(spoken)
    if not spoken or count:
        n = count.group("n") if count else None
        back = 1 if n is None else int(n) if n.isdigit() else _NUMBERS[n]
        return checkpoints[max(0, len(checkpoints) - back)]
    wanted = _tokens(spoken)
    if not wanted:
        return None
    scored = [(_score(wanted, c), c.turn, c) for c in checkpoints]
    best = max(scored, key=lambda row: (row[0], row[1]))
    return best[2] if best[0] > 0 else None
