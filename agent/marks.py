"""The marks around outside text in the model's view, and the one escape every outside text
passes before it gets there.

devagent puts the repository's, the programs' and the past's words inside elements of its
own: <tool_output> around a tool's result, <memory> around each memory in the prompt and in
a memory-changed note, <notes> around the previous session's notes, <instructions> around
each of the repository's instruction files. Such text must not be
able to close its element early and speak as the prompt, nor open one that claims another
source. A reader does not need the exact spelling to take a tag for one: `</TOOL_OUTPUT>`,
`</memory >`, `< /notes>`, a zero-width space or a soft hyphen inside the name, a fullwidth
`＜`, a Cyrillic `о` in `memоry`. So the escape reads the text as a reader would (case,
compatibility forms, accents and invisible characters folded away, lookalike letters taken
for the Latin ones) and, wherever an opening bracket is followed by a mark's name, replaces
that bracket with `&lt;`. Everything else stays as it was, byte for byte.

No list of lookalikes is complete (`ᴛᴏᴏʟ_ᴏᴜᴛᴘᴜᴛ` in small capitals, `tøøl` with a stroke, a
bracket nobody listed), so the escape is not what holds the boundary. Each marked text gets
an id of its own, 128 random bits drawn once its text is known: the opening and the closing
mark carry it, and the system prompt says that only the closing mark with its opening's id
ends the text. The text cannot hold the id (it was drawn after, and redrawn in the
impossible case it occurs), and no repository can learn it in time: a result's id does not
exist until the program that wrote the result has finished. The id is drawn once, and the
marked text is what the history keeps, so a request sent again carries the same bytes.
"""

from __future__ import annotations

import re
import secrets
import unicodedata
from functools import lru_cache

# Every element name devagent writes around outside text (tests/agent/test_marks.py
# checks this list against the element names in agent/ and its prompts).
MARKS = ("tool_output", "memory", "notes", "instructions")
ESCAPED_BRACKET = "&lt;"
ID_BYTES = 16  # 128 bits: 32 hex digits

# What a reader may take for "<": the bracket itself, its compatibility forms (＜ ﹤ fold
# to it) and the angle brackets and quotation marks drawn like it.
_BRACKETS = frozenset("<\u2039\u2329\u3008\u27e8\u02c2\u1438\u276c\u276e\u2991\u29fc\u27ea\u00ab\u226a\u22d6\ufe64\uff1c")
# Between the bracket and the name: spaces, slashes and their lookalikes (after folding).
_GAP = frozenset("/\\\u2044\u2215\u29f8\u2571\u27cb\u29f5\u2216")
# Where a name has "_": a reader takes any of these (or nothing) for it.
_JOINERS = "_\\-.\u00b7\u2010\u2011\u2012\u2013\u2014\u2017\u02cd\\s"
# Letters drawn like the Latin ones in the marks' names. A letter that is not in any name
# may map onto one (i and 1 onto l): that only makes the escape see a name more often.
_LOOKALIKES = str.maketrans({
    "\u0430": "a", "\u0435": "e", "\u0454": "e", "\u03b5": "e", "\u0451": "e",
    "\u043e": "o", "\u03bf": "o", "\u0585": "o", "\u03c3": "o", "0": "o",
    "\u0440": "p", "\u03c1": "p",
    "\u0443": "y", "\u04af": "y", "\u03b3": "y",
    "\u0455": "s",
    "\u0442": "t", "\u03c4": "t",
    "\u043c": "m",
    "\u0433": "r",
    "\u043f": "n", "\u03b7": "n", "\u0578": "n",
    "\u03c5": "u", "\u057d": "u", "\u03bc": "u", "\u00b5": "u",
    "\u04cf": "l", "\u0456": "l", "\u0131": "l", "i": "l", "1": "l", "|": "l", "\u01c0": "l",
})
# Characters a reader does not see: format characters (zero-width, bidi, soft hyphen, tags),
# controls other than line breaks and tabs, combining marks, and the fillers drawn blank.
_INVISIBLE_CATEGORIES = frozenset({"Cf", "Cc", "Mn", "Me", "Cs", "Co", "Cn"})
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e")
# The names as the folded text spells them (an "i" in a name reads as the "l" it maps to).
_FOLDED_MARKS = tuple(mark.translate(_LOOKALIKES) for mark in MARKS)
_NAMES = re.compile("|".join(f"[{_JOINERS}]{{0,3}}".join(re.escape(p) for p in mark.split("_")) for mark in _FOLDED_MARKS))
_FIRST_LETTERS = frozenset(mark[0] for mark in _FOLDED_MARKS)
_LONGEST = max(len(mark) for mark in MARKS) + 6  # folded characters enough to hold any name


@lru_cache(maxsize=8192)
def fold(char: str) -> str:
    """What a reader takes `char` for, in lower case: "" for a character not seen, " " for
    a space of any kind, else its compatibility form without accents, lookalikes mapped."""
    if char.isspace():
        return " "
    if char in _BLANK_LETTERS or unicodedata.category(char) in _INVISIBLE_CATEGORIES:
        return ""
    decomposed = unicodedata.normalize("NFKD", char)
    kept = "".join(c for c in decomposed if unicodedata.category(c) not in _INVISIBLE_CATEGORIES)
    return kept.casefold().translate(_LOOKALIKES)


def _is_bracket(char: str) -> bool:
    return char in _BRACKETS or fold(char) == "<"


def _names_a_mark(text: str, start: int) -> bool:
    """Whether a mark's name follows `start` (just after a bracket), past spaces, slashes
    and invisible characters."""
    seen: list[str] = []
    position, length = start, len(text)
    while position < length:
        folded = fold(text[position])
        position += 1
        if not seen and (folded == "" or folded == " " or folded in _GAP or all(c in _GAP for c in folded)):
            continue  # still between the bracket and the name
        if folded == "":
            continue
        seen.append(folded)
        if seen[0][0] not in _FIRST_LETTERS:
            return False
        if sum(len(piece) for piece in seen) >= _LONGEST:
            break
    return _NAMES.match("".join(seen)) is not None


def escape_marks(text: str) -> str:
    """`text` with every bracket that opens or closes a mark, in any spelling, made `&lt;`."""
    brackets = [char for char in set(text) if _is_bracket(char)]
    if not brackets:
        return text
    out: list[str] = []
    last = 0
    for found in re.finditer("[" + re.escape("".join(brackets)) + "]", text):
        position = found.start()
        if _names_a_mark(text, position + 1):
            out += (text[last:position], ESCAPED_BRACKET)
            last = position + 1
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def restore_marks(text: str) -> str:
    """`text` with each `&lt;` before a mark's name made `<` again: what the model copies
    from an escaped view back into the file's own spelling (an edit's old_str)."""
    if ESCAPED_BRACKET not in text:
        return text
    out: list[str] = []
    last = 0
    for found in re.finditer(re.escape(ESCAPED_BRACKET), text):
        if _names_a_mark(text, found.end()):
            out += (text[last:found.start()], "<")
            last = found.end()
    out.append(text[last:])
    return "".join(out)


def opens_or_closes_a_mark(text: str) -> bool:
    """Whether a reader could take something in `text` for a mark's tag."""
    return escape_marks(text) != text


def mark_id(*texts: str) -> str:
    """A fresh id for the marks around `texts`: random, and in none of them."""
    while True:
        candidate = secrets.token_hex(ID_BYTES)
        if not any(candidate in text for text in texts):
            return candidate


def marked(name: str, text: str, attributes: str = "") -> str:
    """`text` escaped, between an opening and a closing mark `name` that carry an id of
    their own, drawn now: `<{name} attributes id="...">` ... `</{name} id="...">`.

    `attributes` are devagent's own words (values already escaped by the caller)."""
    if name not in MARKS:
        raise ValueError(f"{name!r} is not one of devagent's marks {MARKS}")
    body = escape_marks(text)
    extra = f" {attributes}" if attributes else ""
    boundary = mark_id(body, extra)
    return f'<{name}{extra} id="{boundary}">\n{body}\n</{name} id="{boundary}">'
