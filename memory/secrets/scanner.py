"""One pass of the secret filter: every rule over a text and its undisguised views, keys
wrapped over two lines, and base64-wrapped credential files; then one span per secret.

Time is linear in the text (see formats.py for how the patterns keep it so), and the scan
asks `cancelled` between rules, so a user who presses Esc on a 1 MB tool output is not
kept waiting for the filter.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from memory.secrets.contexts import FINDERS, RULES
from memory.secrets.formats import FORMATS
from memory.secrets.normalise import View, views
from memory.secrets.values import is_marked_example, password_in_prose


class ScanCancelled(Exception):
    """The turn was cancelled while a text was being scanned; nothing of it may be shown."""


class Secret(NamedTuple):
    """A credential-shaped span of a text: what it looks like, and where."""

    kind: str
    start: int
    end: int


Span = tuple[int, int, int, str]  # start, end, rank (lower wins a tie), kind
_ALL_RULES = (*FORMATS, *RULES)
_CHECK_EVERY = 512
LISTEN_FROM = 64 * 1024
# base64 inside base64: a registry login inside a Kubernetes secret's .dockerconfigjson.
_MAX_DEPTH = 2
_MAX_BLOCK = 64 * 1024
# How much of a view around each undone disguise is read again: room for a field name
# before a value and for the longest key after it.
_VIEW_MARGIN = 512


class _Stop:
    def __init__(self, cancelled: Callable[[], bool] | None) -> None:
        self._cancelled = cancelled
        self._count = 0

    def __call__(self) -> None:
        if self._cancelled is not None and self._cancelled():
            raise ScanCancelled("cancelled while looking for credentials")

    def tick(self) -> None:
        self._count += 1
        if self._count % _CHECK_EVERY == 0:
            self()


def _lower(text: str) -> str:
    """Lower case with every offset kept: str.lower() lengthens one character, U+0130."""
    if text.isascii():
        return text.encode("ascii").lower().decode("ascii")
    return text.replace("\u0130", "i").lower()


def _wakes(rules: tuple[Any, ...]) -> tuple[dict[str, tuple[int, ...]], tuple[int, ...]]:
    """Each trigger string with the ranks of the rules it wakes, and the ranks of the rules
    that have no trigger (they always run)."""
    wakes: dict[str, list[int]] = {}
    for rank, rule in enumerate(rules):
        for trigger in rule.triggers:
            wakes.setdefault(trigger, []).append(rank)
    always = tuple(rank for rank, rule in enumerate(rules) if not rule.triggers)
    return {trigger: tuple(ranks) for trigger, ranks in wakes.items()}, always


_WAKES, _ALWAYS = _wakes((*_ALL_RULES, *FINDERS))


def _woken(lowered: str, stop: _Stop) -> list[int]:
    """The ranks of the rules whose triggers the text holds, in rank order. Each trigger is
    looked up once, not once a rule: a short text (a file name, a note) costs a tenth of
    asking rule by rule. In a long text a trigger with a character the text lacks is absent
    without a search: a log of digits or a run of one letter skips most of them."""
    woken = set(_ALWAYS)
    chars = set(lowered) if len(lowered) > 4096 else None
    for trigger, ranks in _WAKES.items():
        if chars is not None:
            stop()  # each search is a pass over a long text
            if not chars.issuperset(trigger):
                continue
        if trigger in lowered:
            woken.update(ranks)
    return sorted(woken)


def _scan(text: str, stop: _Stop) -> list[Span]:
    lowered = _lower(text)
    found: list[Span] = []
    for rank in _woken(lowered, stop):
        stop()
        if rank < len(_ALL_RULES):
            rule = _ALL_RULES[rank]
            for match in rule.pattern.finditer(lowered if rule.lowered else text):
                stop.tick()
                group = next((g for g in rule.groups if match.group(g) is not None), 0)
                start, end = match.span(group)
                start -= rule.lead
                if rule.check is not None and not rule.check(text[start:end]):
                    continue
                found.append((start, end, rank, rule.kind))
        else:
            for kind, start, end in FINDERS[rank - len(_ALL_RULES)].find(text, lowered):
                stop.tick()
                found.append((start, end, rank, kind))
    return found


def _scan_view(view: View, stop: _Stop) -> list[Span]:
    """Spans found in a view, in the original's offsets. Only the stretches around what the
    view changed are read again, unless the changes are everywhere."""
    text = view.text
    windows: list[list[int]] = []
    if len(view.changed_starts) * _VIEW_MARGIN > len(text):
        windows = [[0, len(text)]]  # changed all over: one pass is cheaper than many windows
    for start, end in zip(view.changed_starts, view.changed_ends()) if not windows else ():
        low, high = max(0, start - _VIEW_MARGIN), min(len(text), end + _VIEW_MARGIN)
        if windows and low <= windows[-1][1]:
            windows[-1][1] = max(windows[-1][1], high)
        else:
            windows.append([low, high])
    found: list[Span] = []
    for low, high in windows:
        for start, end, rank, kind in _scan(text[low:high], stop):
            found.append((view.start(low + start), view.end(low + end), rank, kind))
    return found


# A line that is only a run of key characters, after a line that ends in one: a key
# wrapped by an editor or a terminal, or a string literal continued with `+` or `\`.
# The search starts at each line break, so `re` finds it by a fast search.
_CONTINUATION = re.compile(r"\n[ \t]*+[\"']?([A-Za-z0-9_\-+/]{6,512}+={0,2}+)(?=[\"',;)]{0,3}+[ \t]*+(?:\r?\n|\Z))")
_LINE_TAIL = re.compile(r"(?<![A-Za-z0-9_\-+/=.])([A-Za-z0-9_\-+/=.]{12,}+)[\"']?[ \t]*+(?:[+\\][ \t]*+)?\r?")


_RUN_LINE = re.compile(r"[ \t]*+[\"']?[A-Za-z0-9_\-+/=.]{6,}+[\"',;)]{0,3}+[ \t]*+(?:[+\\][ \t]*+)?\r?")
_DIGIT, _LOWER, _UPPER = re.compile("[0-9]"), re.compile("[a-z]"), re.compile("[A-Z]")


def _wrapped_keys(text: str, stop: _Stop) -> list[Span]:
    found: list[Span] = []
    for match in _CONTINUATION.finditer(text):
        stop.tick()
        tail = match.group(1)
        if not (_DIGIT.search(tail) or (_LOWER.search(tail) and _UPPER.search(tail))):
            continue
        line = text.rfind("\n", 0, match.start()) + 1
        first = _LINE_TAIL.search(text, max(line, match.start() - 1000), match.start())
        if first is None or first.end() != match.start():
            continue
        if line > 0 and _RUN_LINE.fullmatch(text, line, match.start()):
            above = text.rfind("\n", 0, line - 1) + 1
            if _RUN_LINE.fullmatch(text, above, line - 1):
                continue  # inside a block of such lines (base64, hex): only its first two are joined
        head = first.group(1)[-24:]
        if not ((_DIGIT.search(head) and (_LOWER.search(head) or _UPPER.search(head))) or (_LOWER.search(head) and _UPPER.search(head))):
            continue
        start = max(line, first.start(1) - 200)
        cut = first.end(1) - start
        for s, e, rank, kind in _scan(text[start : first.end(1)] + tail, stop):
            if s < cut < e:
                # Both halves, each on its own line, so line numbers stay those of the text.
                found.append((start + s, first.end(1), rank, kind))
                found.append((match.start(1), match.start(1) + e - cut, rank, kind))
    return found


# Base64 where a credential file puts it: a whole line (a file wrapped at 64 or 76
# columns) or a field's value (a Kubernetes secret, a docker config's "auth").
_BASE64 = re.compile(
    # The name's `=` is not one of base64's own padding: "dXNlcjpwYXNz==" is no name.
    r"(?:^|\n)[ \t]*+(?:[\"']?[A-Za-z0-9_.\-]{1,64}+[\"']?[ \t]*+(?::|=(?!=))[ \t]*+)?+[\"']?"
    r"([A-Za-z0-9+/]{16,}+={0,2}+(?:[ \t]*+\r?\n[ \t]*+[A-Za-z0-9+/]{2,}+={0,2}+(?=[ \t]*+(?:\r?\n|\Z)))*+)"
)
# Base64 anywhere else on a line: `echo '...' | base64 -d`, a JSON field's value. Long
# enough to hold a file, not a word: a run that decodes to text is rare outside base64.
_INLINE_BASE64 = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{24,}+={0,2}+")
_RUN = re.compile(r"[A-Za-z0-9+/]++={0,2}+")
_LAYOUT = str.maketrans("", "", "\r\n\t")


def _decoded_text(block: str) -> str | None:
    compact = "".join(block.split())
    if len(compact) > _MAX_BLOCK or len(compact) % 4 == 1:
        return None
    compact += "=" * (-len(compact) % 4)
    try:
        text = binascii.a2b_base64(compact).decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    return text if len(text) >= 8 and text.translate(_LAYOUT).isprintable() else None


_USER_PASSWORD = re.compile(r"[A-Za-z0-9_.@\-]{1,64}+:(\S{6,128}+)")


def _basic_auth(decoded: str) -> bool:
    """`user:password`, as an Authorization: Basic header carries it."""
    match = _USER_PASSWORD.fullmatch(decoded.strip())
    return match is not None and password_in_prose(match.group(1))


def _blocks(text: str, stop: _Stop) -> Iterator[tuple[int, int, str | None]]:
    """Each base64 block's span and its decoded text (None when it is not text)."""
    seen: set[int] = set()
    for match in _BASE64.finditer(text):
        stop.tick()
        start, end = match.span(1)
        seen.add(start)
        decoded = _decoded_text(match.group(1))
        if decoded is None and "\n" in match.group(1):
            # The block's last line may be a word that only looks like base64.
            end = text.rfind("\n", start, end)
            decoded = _decoded_text(text[start:end])
        yield start, end, decoded
    for match in _INLINE_BASE64.finditer(text):
        stop.tick()
        if match.start() not in seen:
            yield match.start(), match.end(), _decoded_text(match.group())


def _base64_wrapped(text: str, stop: _Stop, depth: int) -> list[Span]:
    found: list[Span] = []
    for start, end, decoded in _blocks(text, stop):
        if decoded is None:
            continue
        inner = _find(decoded, stop, depth + 1)
        if inner:
            kind = f"{inner[0].kind} (base64)"
        elif _basic_auth(decoded):
            kind = "basic auth credentials (base64)"
        else:
            continue
        for run in _RUN.finditer(text, start, end):
            found.append((run.start(), run.end(), len(_ALL_RULES) + len(FINDERS), kind))
    return found


def _merged(spans: list[Span]) -> list[Secret]:
    """The earliest span wins, then the longest, then the more specific rule; a span that
    overlaps a kept one widens it, so the union of what every view found is masked."""
    spans.sort(key=lambda s: (s[0], s[0] - s[1], s[2]))
    kept: list[Secret] = []
    last_end, last_rank = -1, 0
    for start, end, rank, kind in spans:
        if start < last_end:
            if end > last_end:
                kept[-1] = kept[-1]._replace(end=end)
                last_end = end
            if rank < last_rank:
                # The most specific rule that found any of it names it: a provider's format
                # over a sentence that mentions a key.
                kept[-1] = kept[-1]._replace(kind=kind)
                last_rank = rank
            continue
        if start < end:
            kept.append(Secret(kind, start, end))
            last_end, last_rank = end, rank
    return kept


def _find(text: str, stop: _Stop, depth: int) -> list[Secret]:
    spans = _scan(text, stop)
    for view in views(text, stop):
        spans += _scan_view(view, stop)
    spans += _wrapped_keys(text, stop)
    if depth < _MAX_DEPTH:
        spans += _base64_wrapped(text, stop, depth)
    # Dropped before merging: an example found by one rule must not widen a real key's span.
    return _merged([_whole(text, s) for s in spans if not is_marked_example(text[s[0] : s[1]])])


_RUN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_MAX_WIDEN = 256


def _whole(text: str, span: Span) -> Span:
    """The span widened to the end of the run of letters and digits it cuts, and the
    padding after it: what a write refuses for is masked whole, never shown in part. Its
    start stays where the rule put it (-pSECRET, creds_ghp_...); at most a key's length."""
    start, end, rank, kind = span
    high = min(len(text), end + _MAX_WIDEN)
    while end < high and text[end] in _RUN_CHARS and end > start and text[end - 1] in _RUN_CHARS:
        end += 1
    while end < high and text[end] == "=" and text[end - 1] != "=" and end - span[1] < 3:
        end += 1
    return start, end, rank, kind


def find_secrets(text: str, cancelled: Callable[[], bool] | None = None) -> list[Secret]:
    """Every credential-shaped span, in order, without overlaps.

    `cancelled` is asked between rules when the text is long enough for the scan to be
    worth stopping (LISTEN_FROM characters); when it says yes, ScanCancelled is raised.
    A short text is always scanned: it takes less time than a key press, and the result
    of a cancelled build still reports what ran.
    """
    if not isinstance(text, str) or not text:
        return []
    return _find(text, _Stop(cancelled if len(text) >= LISTEN_FROM else None), 0)


def mask_secrets(text: str, cancelled: Callable[[], bool] | None = None) -> tuple[str, list[Secret]]:
    """The text with each secret replaced by "[masked: <kind>]", and the secrets found (in
    the original's offsets). A secret over several lines keeps its line breaks, so every
    later line keeps its number."""
    secrets = find_secrets(text, cancelled)
    if not secrets:
        return text, []
    parts: list[str] = []
    position = 0
    for secret in secrets:
        parts.append(text[position : secret.start])
        parts.append(f"[masked: {secret.kind}]" + "\n" * text.count("\n", secret.start, secret.end))
        position = secret.end
    parts.append(text[position:])
    return "".join(parts), secrets
