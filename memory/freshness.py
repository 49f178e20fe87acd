"""When a memory was last known to be true: written, or verified since.

A memory's frontmatter may carry `verified: YYYY-MM-DD`, the day the user (the pane's `v`)
or the agent (a tool confirmed it in the same turn) said it still holds. A memory neither
written nor verified for `aging_days` days is aging: the pane says so, the prompt gives its
age, and preloading lists it after the fresh ones.

Every function takes the time as an argument, so tests run on an injected clock.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from typing import Any

from memory.notes import frontmatter

DEFAULT_AGING_DAYS = 30
_DAY = 86400.0
_DATE = re.compile(r"^\s*(\d{4})-(\d{2})-(\d{2})\s*$")


def parse_date(value: Any) -> date | None:
    """A `verified:` value as a date; YAML may already have made it one."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if not isinstance(value, str):
        return None
    match = _DATE.match(value)
    if not match:
        return None
    try:
        return date(*(int(g) for g in match.groups()))
    except ValueError:
        return None


def verified_date(text: str) -> date | None:
    return parse_date(frontmatter(text).get("verified"))


def verified_bumped(old_text: str | None, new_text: str) -> bool:
    """True when a write moves `verified` forward: the writer says the memory was just
    checked, so its evidence is fingerprinted again."""
    new = verified_date(new_text)
    if new is None:
        return False
    old = verified_date(old_text) if old_text else None
    return old is None or new > old


def _end_of_day(day: date) -> float:
    # A date says "some time that day"; the end of it errs on the side of fresh, local time.
    return datetime.combine(day, time(23, 59, 59)).astimezone().timestamp()


@dataclass(frozen=True)
class Freshness:
    written: float  # the file's modification time, epoch seconds
    verified: date | None
    confirmed: float  # the later of written and verified
    # since confirmed; left out of ==, so a re-read a moment later is the same state
    age_days: float = field(compare=False)
    aging: bool

    def age_seconds(self, now: float) -> float:
        return max(0.0, now - self.confirmed)


def freshness(text: str, modified: float, now: float, aging_days: int = DEFAULT_AGING_DAYS) -> Freshness:
    verified = verified_date(text)
    confirmed = modified
    if verified is not None:
        stamp = _end_of_day(verified)
        # A date after today is a typo or a clock off: it verifies nothing, or the memory
        # would never age.
        if stamp - now < _DAY:
            confirmed = max(modified, min(stamp, now))
    age = max(0.0, now - confirmed) / _DAY
    return Freshness(modified, verified, confirmed, age, age >= aging_days)


_FRONTMATTER_BLOCK = re.compile(r"\A(---[ \t]*\r?\n)(.*?)(^---[ \t]*(?:\r?\n|\Z))", re.DOTALL | re.MULTILINE)
_VERIFIED_LINE = re.compile(r"^verified[ \t]*:.*$", re.MULTILINE)


def with_verified(text: str, day: date) -> str:
    """The text with `verified: day` in its frontmatter, replacing an older value. A file
    without frontmatter gets one holding only that line, so the body is left as it is."""
    line = f"verified: {day.isoformat()}"
    match = _FRONTMATTER_BLOCK.match(text)
    if match is None:
        return f"---\n{line}\n---\n{text}"
    opening, block, closing = match.groups()
    if _VERIFIED_LINE.search(block):
        block = _VERIFIED_LINE.sub(line, block, count=1)
    else:
        newline = "\r\n" if opening.endswith("\r\n") else "\n"
        if block and not block.endswith("\n"):
            block += newline
        block += line + newline
    return opening + block + closing + text[match.end() :]


def today(now: float | None = None) -> date:
    moment = datetime.now().astimezone() if now is None else datetime.fromtimestamp(now, UTC).astimezone()
    return moment.date()
