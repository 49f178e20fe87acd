"""The repository's identifiers put back into a transcript, after decoding.

Hotwords and the glossary prompt (agent/voice/hints.py) bias the decoder, but it still
writes what it heard: "ComfyUI server" for ComfyUIServer, "FixCs1591", "parse DiffHunt".
Here every run of transcript words is compared with each term of the vocabulary as it
is said: a name split into its words, letters and digits as their names ("ComfyUIServer"
is "comfy u i server", "E0432" is "e zero four three two"), all joined and reduced to a
rough sound key, so "C.S. 1591", "see ess one five nine one" and "Cs1591" are one thing.
A run close enough to one term, and clearly closer to it than to any other, becomes that
term. All of the vocabulary counts here, not only the head of it the decoder's token
budget takes; the cost is a few milliseconds for a sentence.

What is written here is what the user reads in the prompt and the conversation, so the
rules lean to leaving the text alone:
- a term of one plain word ("Reviews") is never written in; only the case would change;
- only where the decoder wrote a name (glued words, a capital mid-sentence, letters or
  digits): "tool result", "payment getaway" in plain words stay, though the repository
  has ToolResult and PaymentGateway; only a name with letters or digits that no sentence
  says ("comfy you eye") is taken from plain words, and only exactly;
- a short key must match exactly; a long one may differ by a few sounds (a fifth);
- a run that is the term's own words with other endings ("build steps", "session
  storage" for BuildStep, SessionStore) is ordinary English, not the identifier;
- a run with a small word the term does not have ("commit a graph") is left alone;
- the digits of a code must be the ones heard ("TS 2323" is not TS2322): the decoder
  gets digits right far more often than letters;
- two terms about as close leave it as heard.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

# Edits allowed per letter of the term's key, and at most, for a fuzzy match.
FUZZY_SHARE = 0.2
MAX_EDITS = 3
# Keys shorter than this match exactly or not at all: a few letters off in a short name
# is another word ("UI state" and "you estate").
MIN_FUZZY_KEY = 8
# The runner-up term must be this much further (share of the key) to call a match clear.
MARGIN = 0.1
# A run is at most this many words longer than the term said as words.
EXTRA_WORDS = 2

LETTERS = {
    "a": "ay", "b": "bee", "c": "see", "d": "dee", "e": "ee", "f": "ef", "g": "jee",
    "h": "aitch", "i": "eye", "j": "jay", "k": "kay", "l": "el", "m": "em", "n": "en",
    "o": "oh", "p": "pee", "q": "cue", "r": "ar", "s": "ess", "t": "tee", "u": "you",
    "v": "vee", "w": "doubleyou", "x": "ex", "y": "why", "z": "zee"}
DIGITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_DIGIT_NAMES = frozenset(DIGITS)
# Words the decoder writes for a letter's name, spelled as the name is here.
SOUNDS_LIKE = {"sea": "see", "tea": "tee", "be": "bee", "pea": "pee", "queue": "cue",
               "are": "ar", "owe": "oh"}
# Small words that are in sentences, not in names: a run that has one the term lacks is
# a sentence about the thing ("commit a graph"), never the name misheard.
_SMALL = """
a an the and or but so to of in on at for from with by is are was be it this that my your
our its not no as into onto then than if
"""
SMALL_WORDS = frozenset(_SMALL.split())
_VOWELS = frozenset("aeiouy")

# A word of a transcript or of a name: an upper-case letter not starting a word is a
# letter said alone ("UI", "CS"), digits are said one by one; "doesn't", "I'm" are words.
_PARTS = re.compile(r"[A-Z]?[a-z]*'[a-z]+|[A-Z](?![a-z])|[A-Z]?[a-z]+|[0-9]")
_TOKEN = re.compile(r"\S+")


@dataclass(frozen=True)
class _Term:
    text: str
    words: tuple[str, ...]  # as said: "comfy", "u", "i", "server"
    key: str
    allowed: int            # edits a heard run may be off by
    reach: int              # edits counted, to tell how far a runner-up is (see MARGIN)
    digits: tuple[str, ...]  # its digits, said
    spelled: bool           # has a letter or a digit said alone ("UI", "1591")
    masks: dict[str, int] = field(compare=False, hash=False)  # for _distance


@dataclass(frozen=True)
class _Word:
    token: int              # which whitespace-separated token of the transcript
    start: int              # its characters in the transcript
    end: int
    said: tuple[str, ...]   # one word, or the letters of "CS", the digit's name
    sound: str              # spelled as said, before the key's rules (which span words)
    named: bool             # written as a name is, on its own: see _named
    glued: bool             # one of several words in its token ("DiffHunt")


def spoken(term: str) -> str:
    """How a name is said, as words: "ComfyUIServer" -> "comfy u i server",
    "E0432" -> "e zero four three two", "parse_diff_hunk" -> "parse diff hunk"."""
    return " ".join(" ".join(_said(part)) for part in _PARTS.findall(term))


def restore_identifiers(text: str, vocabulary: Sequence[str]) -> str:
    """`text` with each run of words heard for one of the vocabulary's identifiers
    written as the identifier; everything else as it was."""
    terms = _terms(tuple(vocabulary))
    if not terms or not text.strip():
        return text
    words = _transcript_words(text)
    out: list[str] = []
    at = 0
    for first, last, term in _matches(words, terms):
        glued_before = first > 0 and words[first - 1].token == words[first].token
        glued_after = last + 1 < len(words) and words[last + 1].token == words[last].token
        if not (glued_before or glued_after) and text[words[first].start:words[last].end] == term.text:
            continue  # written right already
        before = text[at:words[first].start]
        if glued_before:
            # what stays of a glued token before the name ("Fix" of "FixCs1591") is a word apart
            before = re.sub(r"[-_.]+$", "", before) + " "
        out += [before, term.text]
        at = words[last].end
        if glued_after:
            # the token goes on after the name ("PaymentGatewayProject"): a word apart too
            at = words[last + 1].start
            out.append(" ")
    out.append(text[at:])
    return "".join(out)


def _matches(words: list[_Word], terms: list[_Term]) -> list[tuple[int, int, _Term]]:
    """(first word, last word, term) of the runs to rewrite, in order, none overlapping."""
    longest_key = max(len(term.key) for term in terms) + MAX_EDITS
    longest_said = max(len(term.words) for term in terms) + EXTRA_WORDS
    found: list[tuple[float, int, int, int, _Term]] = []
    for first in range(len(words)):
        sound, said = "", 0
        for last in range(first, len(words)):
            sound += words[last].sound
            said += len(words[last].said)
            key = _normal(sound)
            if len(key) > longest_key or said > longest_said:
                break
            match = _closest(key, words[first:last + 1], terms)
            if match is not None:
                share, term = match
                found.append((share, first - last, first, last, term))
    chosen: list[tuple[int, int, _Term]] = []
    taken: set[int] = set()
    # the closest first, then the longest: "ComfyUI server" is ComfyUIServer, not ComfyUI
    for _share, _size, first, last, term in sorted(found, key=lambda match: match[:3]):
        if taken.isdisjoint(range(first, last + 1)):
            chosen.append((first, last, term))
            taken.update(range(first, last + 1))
    return sorted(chosen, key=lambda match: match[0])


def _closest(key: str, run: list[_Word], terms: list[_Term]) -> tuple[float, _Term] | None:
    """(edits per letter, term) of the one term the run is heard for, or None."""
    said = [word for part in run for word in part.said]
    scored: list[tuple[int, _Term]] = []
    for term in terms:
        if abs(len(key) - len(term.key)) > term.reach or len(said) > len(term.words) + EXTRA_WORDS:
            continue
        edits = _distance(key, term.key, term.reach, term.masks)
        if edits <= term.reach:
            scored.append((edits, term))
    fits = [(edits / len(term.key), edits, term) for edits, term in scored if edits <= term.allowed]
    if not fits:
        return None
    share, edits, term = min(fits, key=lambda fit: fit[:2])
    if edits and tuple(word for word in said if word in _DIGIT_NAMES) != term.digits:
        return None  # a digit heard is what was said: "TS 2323" is not TS2322
    for other_edits, other in scored:
        if other is term:
            continue
        if other_edits == edits == 0:
            return None  # two names said alike ("parseDiffHunk", "parse_diff_hunk")
        if edits and other_edits - edits < max(1.0, MARGIN * len(term.key)):
            return None  # about as close to another name: the text stays as heard
    # Plain words: "tool result" is English unless the name has letters or digits no
    # sentence says ("comfy you eye", "see ess one five nine one"), and exactly. One
    # word alone is plain too: "timeout" beside a TimeOut.
    if not _written_as_a_name(run) and (edits or not term.spelled):
        return None
    if edits and not _plausible(said, term):
        return None
    return share, term


def _plausible(said: list[str], term: _Term) -> bool:
    """A run that is not the term exactly may be the term misheard, unless it reads as
    ordinary words: the term's words with other endings, or with a small word between."""
    if any(word in SMALL_WORDS and word not in term.words for word in said):
        return False
    # not "build steps", "session storage", "review orchestra", "Workerpools"
    if len(said) == len(term.words) and all(_kin(a, b) for a, b in zip(said, term.words)):
        return False
    return not _kin("".join(said), "".join(term.words))


def _kin(a: str, b: str) -> bool:
    """One word, or two forms of one word: the longer is the shorter with an ending
    ("steps", "orchestrator"), less a silent "e" or a "y" ("storage", "copies")."""
    short, long = sorted((a, b), key=len)
    if long.startswith(short):
        return True
    return len(long) > len(short) and short.endswith(("e", "y")) and long.startswith(short[:-1])


@lru_cache(maxsize=8)
def _terms(vocabulary: tuple[str, ...]) -> list[_Term]:
    terms: list[_Term] = []
    seen: set[str] = set()
    for text in vocabulary:
        text = text.strip()
        words = tuple(spoken(text).split())
        # A plain word is written as the decoder wrote it; only a compound is a name to restore.
        if len(words) < 2 or text in seen or not re.fullmatch(r"[A-Za-z0-9_.]+", text):
            continue
        seen.add(text)
        key = _key(words)
        allowed = 0 if len(key) < MIN_FUZZY_KEY else min(MAX_EDITS, int(FUZZY_SHARE * len(key)))
        reach = allowed + max(1, int(MARGIN * len(key)) + 1)
        digits = tuple(word for word in words if word in _DIGIT_NAMES)
        spelled = any(len(word) == 1 or word in _DIGIT_NAMES for word in words)
        terms.append(_Term(text, words, key, allowed, reach, digits, spelled, _masks(key)))
    return terms


def _transcript_words(text: str) -> list[_Word]:
    words: list[_Word] = []
    opens = True  # whether the next token starts a sentence
    for index, token in enumerate(_TOKEN.finditer(text)):
        parts = list(_PARTS.finditer(token.group()))
        for part in parts:
            # "'s" is no word of a name: "ComfyUIServer's" is the name's, "CS1591's" the code's
            end = part.end() - 2 if part.group().endswith("'s") else part.end()
            said = _said(token.group()[part.start():end])
            if said:
                words.append(_Word(index, token.start() + part.start(), token.start() + end,
                                   said, _spelled(said), _named(part.group(), len(parts), opens),
                                   len(parts) > 1))
        opens = token.group().endswith((".", "?", "!"))
    return words


def _named(part: str, parts: int, opens: bool) -> bool:
    """Whether the decoder wrote this word as part of a name on its own: a letter or a
    digit said, or a word of its own with a capital inside a sentence ("Parst Diff Hunt").
    Glued words ("DiffHunt") are a name together only (see _written_as_a_name)."""
    if part.isdigit():
        return True
    if part == "I":
        return False  # the pronoun
    if len(part) == 1 and part != "a":
        return True
    return parts == 1 and part[:1].isupper() and not opens


def _written_as_a_name(run: list[_Word]) -> bool:
    """Some of the run is written as a name: a word that is one on its own, or two words
    of the run glued in one token. A run that takes one word of a glued token with plain
    words ("Retry" and the "Policy" of "PolicyCheck") is not."""
    if any(word.named for word in run):
        return True
    tokens = [word.token for word in run if word.glued]
    return len(tokens) > len(set(tokens))


def _said(part: str) -> tuple[str, ...]:
    """One part of a name or a transcript, as said: a digit as its name, a single letter
    or a short word with no vowel ("CS", "ts") as letters, anything else in lower case."""
    if part.isdigit():
        return tuple(DIGITS[int(digit)] for digit in part)
    lower = part.lower()
    if len(lower) <= 4 and lower.isalpha() and not _VOWELS.intersection(lower):
        return tuple(lower)
    return (lower,) if lower.strip("'") else ()


def _key(words: Sequence[str]) -> str:
    """A rough sound key of words said one after another: letters spelled as their
    names, a few spellings of one sound made one, doubled letters single."""
    return _normal(_spelled(words))


def _spelled(words: Sequence[str]) -> str:
    return "".join(LETTERS.get(word, word) if len(word) == 1 and word != "a" else SOUNDS_LIKE.get(word, word)
                   for word in words)


def _normal(joined: str) -> str:
    joined = re.sub(r"[^a-z]", "", joined)
    joined = joined.replace("ph", "f").replace("ck", "k").replace("q", "k")
    joined = re.sub(r"c(?=[eiy])", "s", joined).replace("c", "k")
    joined = joined.replace("x", "ks").replace("z", "s").replace("v", "f").replace("y", "i")
    return re.sub(r"(.)\1+", r"\1", joined)


def _distance(a: str, b: str, limit: int, masks: dict[str, int]) -> int:
    """Levenshtein distance of a and b (`masks`: b's letters, see _masks), or limit + 1
    when it is more than limit. Bit-parallel (Myers, Hyyro): a column of the table is one
    integer, so a comparison costs a few operations per letter of `a`."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    if a == b:
        return 0
    full = (1 << len(b)) - 1
    top = 1 << (len(b) - 1)
    plus, minus, score = full, 0, len(b)
    for char in a:
        equal = masks.get(char, 0)
        vertical = equal | minus
        horizontal = (((equal & plus) + plus) ^ plus) | equal
        up = minus | (~(horizontal | plus) & full)
        down = plus & horizontal
        if up & top:
            score += 1
        elif down & top:
            score -= 1
        up = ((up << 1) | 1) & full
        down = (down << 1) & full
        plus = down | (~(vertical | up) & full)
        minus = up & vertical
    return min(score, limit + 1)


def _masks(key: str) -> dict[str, int]:
    """For each letter, the positions in `key` where it is, as bits."""
    masks: dict[str, int] = {}
    for position, char in enumerate(key):
        masks[char] = masks.get(char, 0) | (1 << position)
    return masks
