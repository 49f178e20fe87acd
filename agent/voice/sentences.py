"""Cut a streaming reply into sentences as soon as each one is certainly finished.

A full stop only ends a sentence when whitespace follows it, so "v1.2", "Program.cs" and
"README.md" survive even when a stream delta ends right after the dot: the splitter waits
for the next character before it decides. Common abbreviations ("e.g.", "i.e.") never end
a sentence, and a lowercase word after the stop means the dot was not an end either.

A reply's first words need not wait for its first sentence to end: asked to, the splitter
gives out the first piece as soon as its first clause is complete (a comma, semicolon,
colon or dash with a space after it, and a few words before), as a `Clause`; the rest of
that sentence follows as the next piece.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# Lower-cased, without the final dot.
ABBREVIATIONS = frozenset(
    {"e.g", "i.e", "etc", "vs", "cf", "approx", "mr", "mrs", "ms", "dr", "st", "no", "fig",
     "resp", "incl", "esp", "ca", "viz", "et al", "al"}
)

_TERMINATORS = ".!?…"
_CLOSERS = "\"')]”’*_`"
_CLAUSE_MARKS = ",;:—–"
# Fewer words than this before a clause mark ("Yes, ", "On it: ") are not worth a piece of
# their own: the voice would stop after a word.
MIN_CLAUSE_WORDS = 3


class Clause(str):
    """A piece that ends at a clause mark, not at the end of its sentence: the next piece
    finishes the sentence."""


class SentenceSplitter:
    def __init__(self) -> None:
        self._buffer = ""

    def feed(self, delta: str, clause: Callable[[str], bool] | None = None) -> list[str]:
        """Sentences completed by this delta, in order.

        `clause`: the first piece may also end at the first clause mark before its
        sentence ends, as a Clause, when clause(its text) says so (the speaker asks until
        a reply's first words are said, and says which text would be said)."""
        self._buffer += delta
        sentences: list[str] = []
        while True:
            cut = _first_boundary(self._buffer)
            if clause is not None and not sentences:
                early = _first_clause_end(self._buffer, len(self._buffer) if cut is None else cut)
                if early is not None and clause(self._buffer[:early].strip()):
                    sentences.append(Clause(self._buffer[:early].strip()))
                    self._buffer = self._buffer[early:]
                    continue
            if cut is None:
                break
            sentence = self._buffer[:cut].strip()
            self._buffer = self._buffer[cut:]
            if sentence:
                sentences.append(sentence)
        return sentences

    def flush(self) -> list[str]:
        """Whatever is left once the stream has ended."""
        rest = self._buffer.strip()
        self._buffer = ""
        if not rest:
            return []
        # The stream is over, so a final dot can be trusted; split what is left too.
        return [part for part in self.feed_all(rest) if part]

    def reset(self) -> None:
        self._buffer = ""

    @property
    def pending(self) -> str:
        return self._buffer

    @staticmethod
    def feed_all(text: str) -> list[str]:
        splitter = SentenceSplitter()
        out = splitter.feed(text + "\n\n")
        tail = splitter._buffer.strip()
        if tail:
            out.append(tail)
        return out


def split_sentences(text: str) -> list[str]:
    return SentenceSplitter.feed_all(text)


def _first_boundary(text: str) -> int | None:
    """Index just past the first certain sentence end, or None if none is certain yet."""
    length = len(text)
    i = 0
    while i < length:
        char = text[i]
        if char == "\n":
            # A line break ends a list item or a paragraph, but only once we can see it is
            # not followed by more of the same line (a lone trailing newline is a break).
            if text[:i].strip():
                return i + 1
            i += 1
            continue
        if char in _TERMINATORS:
            end = i + 1
            while end < length and text[end] in _TERMINATORS:
                end += 1
            while end < length and text[end] in _CLOSERS:
                end += 1
            if end >= length:
                return None
            if not text[end].isspace():
                i = end
                continue
            nxt = end
            while nxt < length and text[nxt] in " \t":
                nxt += 1
            if nxt >= length:
                return None  # cannot see the next word yet
            if char == "." and _is_abbreviation(text[:i]):
                i = end
                continue
            if char == "." and text[nxt].islower():
                i = end
                continue
            return end
        i += 1
    return None


def _first_clause_end(text: str, limit: int) -> int | None:
    """Index just past the first clause mark before `limit` on the first line of `text`
    that a space follows, with MIN_CLAUSE_WORDS before it, outside brackets and inline
    code (a link's text or a call's arguments are not a clause); None if there is none yet."""
    depth = 0
    code = False
    for i, char in enumerate(text[:limit]):
        if char == "\n":
            if text[:i].strip():
                return None  # the line ended first
            continue  # blank lines before the reply's words
        if char == "`":
            code = not code
        elif code:
            continue
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(0, depth - 1)
        elif depth == 0 and i + 1 < len(text) and text[i + 1] in " \t":
            # a hyphen is a dash only with spaces on both sides ("well-known" is a word)
            mark = char in _CLAUSE_MARKS or (char == "-" and i > 0 and text[i - 1] == " ")
            if mark and len(text[:i].split()) >= MIN_CLAUSE_WORDS:
                return i + 1
    return None


_WORD_BEFORE = re.compile(r"([A-Za-z](?:[A-Za-z.]*[A-Za-z])?)$")


def _is_abbreviation(before: str) -> bool:
    match = _WORD_BEFORE.search(before)
    if not match:
        return False
    word = match.group(1)
    if word.lower() in ABBREVIATIONS:
        return True
    # A single capital is an initial ("J. Smith"), not a sentence end.
    return len(word) == 1 and word.isupper()
