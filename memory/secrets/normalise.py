"""Views of a text with the common disguises undone, and the way back to its own offsets.

A key broken up by zero-width characters or soft hyphens, typed in full-width letters, or
percent- or entity-encoded still reads as a key to the model and to anyone who copies it.
The scanner matches on these views; each span found in a view is mapped back to the
original text, so the mask covers the disguising characters too.

A text may be nothing but disguises (a megabyte of `%41`), so the views are built with C
helpers (re.split and findall, str.replace, itertools) rather than a Python step per
change; a run of non-ASCII text folds in one NFKC call.
"""

from __future__ import annotations

import html
import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from itertools import accumulate, chain, count
from operator import add, sub

# Characters that render as nothing: format controls (zero-width space and joiners, soft
# hyphen, bidirectional marks, word joiner, BOM, tag characters) and the variation
# selectors and grapheme joiner, which are marks but just as invisible.
_HIDDEN = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\U000e0000-\U000e007f]"
)
_NON_ASCII = re.compile(r"[^\x00-\x7f]++")
_PERCENT = re.compile(r"%[0-7][0-9A-Fa-f]")
# Terminal colour codes: `grep --color` wraps the match, so a committed log holds a key cut
# in three by escapes.
_ANSI = re.compile(r"\x1b\[[0-9;?]{0,32}+[ -/]{0,4}+[@-~]|\x1b[@-Z\\-_]")
# \x73, \u0067: a YAML or JSON string (a memory's frontmatter) that spells a key in escapes;
# \" and \\: JSON inside a JSON string or a log line, {\"api_key\": \"...\"}.
_ESCAPE = re.compile(r"\\x[0-9A-Fa-f]{2}|\\u[0-9A-Fa-f]{4}")
_QUOTE_ESCAPE = re.compile(r"\\x[0-9A-Fa-f]{2}|\\u[0-9A-Fa-f]{4}|\\[\"'/\\]")
# Source code is full of \" and \\ that hide nothing: quotes are undone only in a text that
# escapes a field's name or value, as escaped JSON does.
_ESCAPED_FIELD = re.compile(r"\\[\"'][ \t]*+[:=,]|[:=][ \t]*+\\[\"']")
# Where a literal is cut and joined again: "sk_live_ab" + "cd", ["ghp_ab", "cd"].join(""),
# a shell line continued with a backslash, a YAML scalar folded after a hyphen.
# The next literal must not be an object's next key ("a": "^3.1.0",\n "b": ...).
_JOIN = re.compile(r"[\"'][ \t]{0,4}+[+,][ \t]{0,4}+(?:\\?\r?\n[ \t]{0,64}+)?[\"'](?![^\"'\n]{0,200}[\"'][ \t]*:)|\\\r?\n[ \t]{0,64}+|(?<=[A-Za-z0-9]-)\r?\n[ \t]{1,64}+(?=[A-Za-z0-9])")
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}+|#[xX][0-9A-Fa-f]{1,6}+|[A-Za-z][A-Za-z0-9]{1,31}+);")


class View:
    """A rewritten text; `start` and `end` turn a span of it into a span of its base's
    (and so, down the chain, of the original's).

    `changed_starts` and `changed_ends()` say where the view differs from its base, in
    sorted view offsets: the scanner reads those stretches again, not the whole view.
    """

    __slots__ = ("text", "base", "changed_starts")

    def __init__(self, text: str, base: View | None, changed_starts: list[int]) -> None:
        self.text = text
        self.base = base
        self.changed_starts = changed_starts

    def changed_ends(self) -> list[int]:
        raise NotImplementedError

    def _to_base(self, i: int, is_end: bool) -> int:
        raise NotImplementedError

    def start(self, i: int) -> int:
        o = self._to_base(i, False)
        return self.base.start(o) if self.base is not None else o

    def end(self, i: int) -> int:
        o = self._to_base(i, True)
        return self.base.end(o) if self.base is not None else o


class _Shrunk(View):
    """Each change took `width` characters of the base and left `left` (0 or 1) in the view."""

    __slots__ = ("_places", "_shrink", "_left")

    def __init__(self, text: str, base: View | None, places: list[int], width: int, left: int) -> None:
        super().__init__(text, base, places)
        self._places = places  # view offset of each change, in order
        self._shrink = width - left
        self._left = left

    def changed_ends(self) -> list[int]:
        return self._places if not self._left else [p + 1 for p in self._places]

    def _to_base(self, i: int, is_end: bool) -> int:
        # A removed character (left=0) at a place belongs after the view character before it.
        if self._left or is_end:
            before = bisect_left(self._places, i)
        else:
            before = bisect_right(self._places, i)
        return i + self._shrink * before


class _Rewritten(View):
    """Pieces of any length replaced; between two pieces the shift is constant."""

    __slots__ = ("_view_starts", "_shifts", "_widths", "_base_widths")

    def __init__(self, text: str, base: View | None, view_starts: list[int], shifts: list[int], widths: list[int], base_widths: list[int]) -> None:
        super().__init__(text, base, view_starts)
        self._view_starts = view_starts
        self._shifts = shifts  # base start - view start, for each piece
        self._widths = widths  # each piece's length in the view
        self._base_widths = base_widths  # and in the base

    def changed_ends(self) -> list[int]:
        return list(map(add, self._view_starts, self._widths))

    def _to_base(self, i: int, is_end: bool) -> int:
        k = (bisect_left(self._view_starts, i) if is_end else bisect_right(self._view_starts, i)) - 1
        if k < 0:
            return i
        view_end = self._view_starts[k] + self._widths[k]
        base_start = self._view_starts[k] + self._shifts[k]
        base_end = base_start + self._base_widths[k]
        if is_end:
            return base_end if i <= view_end else base_end + (i - view_end)
        return base_start if i < view_end else base_end + (i - view_end)


def _offsets(pieces: list[str], tokens: list[str], token_width: int | None = None) -> list[int]:
    """Where each token starts, from the text's pieces between tokens (C-level sums)."""
    widths = map(len, tokens) if token_width is None else (token_width for _ in tokens)
    steps = chain.from_iterable(zip(map(len, pieces), widths))
    return list(accumulate(steps))[0::2]


def _without_hidden(text: str, base: View | None) -> View | None:
    pieces = _HIDDEN.split(text)
    if len(pieces) == 1:
        return None
    gaps = list(accumulate(map(len, pieces[:-1])))
    return _Shrunk("".join(pieces), base, gaps, 1, 0)


def _percent_decoded(text: str, base: View | None) -> View | None:
    pieces = _PERCENT.split(text)
    if len(pieces) == 1:
        return None
    places = list(map(add, accumulate(map(len, pieces[:-1])), count()))
    # One C-level replace per distinct escape instead of a Python call per escape. Escapes
    # cannot overlap, and %25 goes last, so no "%" it yields starts another escape.
    decoded = text
    for token in sorted(set(_PERCENT.findall(text)), key=lambda t: t.upper() == "%25"):
        decoded = decoded.replace(token, chr(int(token[1:], 16)))
    return _Shrunk(decoded, base, places, 3, 1)


def _rewrite(text: str, pieces: list[str], tokens: list[str], replaced: list[str], base: View | None) -> View:
    """`text`, split by `tokens`, with each token replaced."""
    starts = _offsets(pieces, tokens)
    token_widths = list(map(len, tokens))
    widths = list(map(len, replaced))
    shifts = list(accumulate(map(sub, token_widths, widths), initial=0))
    shifts.pop()
    view_starts = list(map(sub, starts, shifts))
    joined = "".join(chain(chain.from_iterable(zip(pieces, replaced)), pieces[-1:]))
    return _Rewritten(joined, base, view_starts, shifts, widths, token_widths)


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def _folded(text: str, base: View | None) -> View | None:
    """NFKC over each run of non-ASCII text, the run mapped whole: a span that starts or
    ends inside a run that changed length (a ligature, a composed accent) widens to the
    run's edges, so a mask can only grow, never leave a character of a key out."""
    runs = _NON_ASCII.findall(text)
    table = {run: _nfkc(run) for run in set(runs)}
    if all(run == folded for run, folded in table.items()):
        return None
    return _rewrite(text, _NON_ASCII.split(text), runs, list(map(table.__getitem__, runs)), base)


_ENTITIES: dict[str, str] = {}


def _entity(token: str) -> str:
    decoded = _ENTITIES.get(token)
    if decoded is None:
        decoded = unicodedata.normalize("NFKC", _HIDDEN.sub("", html.unescape(token)))
        if len(_ENTITIES) < 4096:
            _ENTITIES[token] = decoded
    return decoded


def _entities_decoded(text: str, base: View | None) -> View | None:
    pieces = _ENTITY.split(text)
    if len(pieces) == 1:
        return None
    tokens = _ENTITY.findall(text)
    decoded = {token: _entity(token) for token in set(tokens)}
    return _rewrite(text, pieces, tokens, list(map(decoded.__getitem__, tokens)), base)


def _removed(pattern: re.Pattern[str]) -> Callable[[str, View | None], View | None]:
    def step(text: str, base: View | None) -> View | None:
        pieces = pattern.split(text)
        if len(pieces) == 1:
            return None
        tokens = pattern.findall(text)
        return _rewrite(text, pieces, tokens, [""] * len(tokens), base)

    return step


def _escapes_decoded(text: str, base: View | None) -> View | None:
    pattern = _QUOTE_ESCAPE if _ESCAPED_FIELD.search(text) else _ESCAPE
    pieces = pattern.split(text)
    if len(pieces) == 1:
        return None
    tokens = pattern.findall(text)
    decoded = {token: chr(int(token[2:], 16)) if len(token) > 2 else token[1] for token in set(tokens)}
    return _rewrite(text, pieces, tokens, list(map(decoded.__getitem__, tokens)), base)


_without_ansi = _removed(_ANSI)
_joined = _removed(_JOIN)
# Each step runs only on a text holding its mark: most texts hold none.
_NEEDS = {_without_ansi: "\x1b", _escapes_decoded: "\\", _percent_decoded: "%", _entities_decoded: "&"}


def views(text: str, stop: Callable[[], None] = lambda: None) -> list[View]:
    """The views worth scanning besides the text itself, each built on the one before:
    invisible characters removed, NFKC folded, percent escapes and HTML entities decoded.

    The text itself is always scanned too: removing an invisible character can join two
    words, and decoding `%40` inside a URL's password moves where that password ends.
    """
    found: list[View] = []
    top: View | None = None
    steps = (_without_hidden, _folded) if not text.isascii() else ()
    for step in (_without_ansi, *steps, _escapes_decoded, _percent_decoded, _entities_decoded, _joined):
        stop()
        source = top.text if top is not None else text
        mark = _NEEDS.get(step)
        if mark is not None and mark not in source:
            continue
        view = step(source, top)
        if view is not None:
            found.append(view)
            top = view
    return found
