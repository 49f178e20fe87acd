"""Decide what of a reply is worth saying aloud.

Code, tables and long explanations belong on the screen; the voice says a short line
of prose and points at the screen for the rest.
"""

from __future__ import annotations

import re

from agent.voice.sentences import Clause, split_sentences

ON_SCREEN = "The details are on screen."
DEFAULT_BUDGET = 240  # characters of speech, about 15 seconds at Piper's pace
MAX_SENTENCES = 3  # a spoken answer is short; whatever follows is on screen

_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_URL = re.compile(r"https?://\S+")
_EMPHASIS = re.compile(r"(\*\*|__|\*|~~)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_QUOTE = re.compile(r"^\s*>\s?")
_FENCES = ("```", "~~~")
# lines of a table, a diff or indented code
_SCREEN_ONLY = ("|", "@@ ", "+++ ", "--- ", "diff --git ")


def clean_markdown(text: str) -> str:
    """Prose a voice can read: markup removed, inline code kept as its words."""
    text = _LINK.sub(r"\1", text)
    text = _URL.sub("a link", text)
    text = text.replace("`", "")
    text = _HEADING.sub("", text)
    text = _QUOTE.sub("", text)
    text = _BULLET.sub("", text)
    text = _EMPHASIS.sub("", text)
    return " ".join(text.split())


class SpeechFilter:
    """Streaming gate: given a reply's sentences in order, returns what to say of each.

    A sentence may come in two pieces, a Clause and then its rest (agent/voice/sentences.py):
    the rest is said as the whole sentence would have been, within the budget or not."""

    def __init__(self, budget: int = DEFAULT_BUDGET) -> None:
        self.budget = budget
        self.reset()

    def reset(self) -> None:
        self._in_code = False
        self._spoken = 0
        self._withheld = False
        self._closed = False
        self._sentences = 0  # said whole (a Clause and its rest are one)
        self._before_clause: int | None = None  # spoken before the Clause whose rest is due

    def accept(self, sentence: str) -> str | None:
        rest = self._before_clause is not None  # of a sentence whose Clause was said
        before = self._spoken if self._before_clause is None else self._before_clause
        self._before_clause = None
        stripped = sentence.strip()
        if stripped.startswith(_FENCES):
            self._in_code = not self._in_code
            self._withheld = True
            return None
        if self._screen_only(sentence) or self._closed:
            self._withheld = True
            return None
        spoken = clean_markdown(stripped)
        if not spoken or not any(ch.isalnum() for ch in spoken):
            return None
        # the budget is checked once a sentence, against what was said before it
        if (before and self._spoken + len(spoken) > self.budget) or (not rest and self._sentences >= MAX_SENTENCES):
            self._closed = True
            self._withheld = True
            return None
        if isinstance(sentence, Clause):
            self._before_clause = before
            if spoken[-1] in "-—–":
                spoken = spoken[:-1].rstrip() + ","  # a pause, not a word for the dash
        else:
            self._sentences += 1
        self._spoken += len(spoken)
        return spoken

    def says(self, text: str) -> bool:
        """Whether `text`, next, would be said (something of it): not code, a table or a diff,
        and within the budget so far."""
        stripped = text.strip()
        return (not stripped.startswith(_FENCES) and not self._screen_only(text) and not self._closed
                and any(ch.isalnum() for ch in clean_markdown(stripped)))

    def _screen_only(self, sentence: str) -> bool:
        stripped = sentence.strip()
        return self._in_code or stripped.startswith(_SCREEN_ONLY) or stripped.startswith("    ")

    def finish(self) -> str | None:
        """A pointer to the screen when something was left unsaid."""
        withheld = self._withheld
        self.reset()
        return ON_SCREEN if withheld else None


def speakable_reply(reply: str, budget: int = DEFAULT_BUDGET) -> str:
    """The short line to say for a whole reply."""
    gate = SpeechFilter(budget)
    parts = [said for sentence in split_sentences(reply) if (said := gate.accept(sentence))]
    tail = gate.finish()
    if tail:
        parts.append(tail)
    return " ".join(parts)
