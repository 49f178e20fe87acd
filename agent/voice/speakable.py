"""Decide what of a reply is worth saying aloud.

Code, tables and long explanations belong on the screen; the voice says a short line
of prose and points at the screen for the rest.
"""

from __future__ import annotations

import re

from agent.voice.sentences import split_sentences

ON_SCREEN = "The details are on screen."
DEFAULT_BUDGET = 240  # characters of speech, about 15 seconds at Piper's pace
MAX_SENTENCES = 3  # a spoken answer is short; whatever follows is on screen

_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_URL = re.compile(r"https?://\S+")
_EMPHASIS = re.compile(r"(\*\*|__|\*|~~)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_QUOTE = re.compile(r"^\s*>\s?")


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
    """Streaming gate: given a reply's sentences in order, returns what to say of each."""

    def __init__(self, budget: int = DEFAULT_BUDGET) -> None:
        self.budget = budget
        self.reset()

    def reset(self) -> None:
        self._in_code = False
        self._spoken = 0
        self._sentences = 0
        self._withheld = False
        self._closed = False

    def accept(self, sentence: str) -> str | None:
        stripped = sentence.strip()
        if stripped.startswith("```") or stripped.startswith("~~~"):
            self._in_code = not self._in_code
            self._withheld = True
            return None
        if self._in_code or stripped.startswith(("|", "@@ ", "+++ ", "--- ", "diff --git ")) or stripped.startswith("    "):
            self._withheld = True
            return None
        if self._closed:
            self._withheld = True
            return None
        spoken = clean_markdown(stripped)
        if not spoken or not any(ch.isalnum() for ch in spoken):
            return None
        if (self._spoken and self._spoken + len(spoken) > self.budget) or self._sentences >= MAX_SENTENCES:
            self._closed = True
            self._withheld = True
            return None
        self._spoken += len(spoken)
        # a clause said ahead of the rest of its sentence ("Yes," before "all tests pass.") is not one
        self._sentences += spoken.rstrip("\"')]*_`").endswith(tuple(".!?…"))
        return spoken

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
