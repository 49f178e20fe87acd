"""When a turn ends: how long a silence has to last, from what was said so far.

A fixed wait is wrong both ways: long enough to let the speaker breathe between clauses
it keeps a finished question waiting, short enough to answer fast it cuts a question at
a breath. The live transcript (agent/voice/live.py) says what was said before the
silence; the wait follows from how it ends:

- a sentence ended (".", "?", "!") and its last word does not ask for more: the speaker
  is likely done, so the silence only has to outlast the decode of that last piece;
- mid-sentence (a comma, "and", "the", "to", a half-said identifier such as "comfy"
  when the repository has ComfyUIServer): the speaker is thinking, wait long;
- not known yet: while the last piece decodes, the long wait (the text comes in a moment
  and decides); when the speech since the last decoded piece is too short to decode on
  its own (under a second: Whisper makes stock phrases of a word or two), a wait just
  past the longest pause between clauses;
- a transcript that ends without punctuation or a word that asks for more: the
  recorder's own wait.

A wait shorter than GRACE_MS ends the turn tentatively (agent/voice/push_to_talk.py):
the transcript goes to the agent at once, and the recorder listens on until the silence
has lasted GRACE_MS. Speech again before that withdraws the transcript and the turn
begun from it; the whole utterance comes when the speaker is done. So the short waits
need not outlast a pause at a comma: a pause mistaken for an end costs a withdrawn
turn, not a question cut in half.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# ms of silence. A finished sentence: past the gaps between words inside a sentence (the
# 90 ms pause that cuts a piece for the live transcript, and the VAD's frames of doubt);
# a question is the likeliest end of all. Both end the turn tentatively.
SENTENCE_END_MS = 150.0
QUESTION_END_MS = 120.0
# Mid-sentence: past a 600 ms pause to think between two clauses.
MID_SENTENCE_MS = 900.0
# How long the recorder listens on after a tentative end, counted from the same silence.
GRACE_MS = MID_SENTENCE_MS
# Speech not decoded yet, too short to: as long, since a 600 ms pause measured by the VAD
# runs 100-200 ms longer (the fading end of the word before it counts as silence).
UNSURE_MS = MID_SENTENCE_MS
# Words after which a sentence goes on, whatever the punctuation Whisper put after them.
_GOES_ON = """
and or but so then because if when while although though unless until after before
than that which who whose where whether as also plus nor yet
the a an this these those my your our its their his her
to of in on at for from with by into onto about over under between through without
is are was were be been am will would should could can may might must do does did
has have had not no very more most less
"""
GOES_ON = frozenset(_GOES_ON.split())
_JOINS = "and or but so then because plus also"
JOINS = frozenset(_JOINS.split())
_END = re.compile(r"[.?!][\"')\]]*$")
_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def silence_wait(text: str | None, vocabulary: Iterable[str] = (), default_ms: float = 300.0) -> float:
    """Milliseconds of silence that end the recording after `text`, the transcript so far
    (None: not known yet, so the recorder's own `default_ms`)."""
    if text is None:
        return default_ms
    text = text.strip()
    if not text:
        return default_ms
    said = _words(text)
    if not said:
        return default_ms
    if text.endswith((",", ";", ":", "-", "—", "…")) or text.endswith("..."):
        return MID_SENTENCE_MS
    if _half_said(said, vocabulary):
        return MID_SENTENCE_MS
    if _END.search(text):
        # Whisper puts a full stop after a trailing "and" or "the" it heard end in
        # silence; a question mark after "this" is a question asked.
        ended = text.rstrip("\"')]")
        goes_on = GOES_ON if ended.endswith(".") else JOINS
        if said[-1] in goes_on:
            return MID_SENTENCE_MS
        return QUESTION_END_MS if ended.endswith("?") else SENTENCE_END_MS
    return MID_SENTENCE_MS if said[-1] in GOES_ON else default_ms


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


def _half_said(said: list[str], vocabulary: Iterable[str]) -> bool:
    """The words at the end are the start of an identifier but not all of it:
    "open the comfy" with ComfyUIServer in the vocabulary."""
    tail = said[-3:]
    for term in vocabulary:
        parts = [part.lower() for part in _PARTS.findall(term)]
        if len(parts) < 2:
            continue
        for size in range(min(len(tail), len(parts) - 1), 0, -1):
            if tail[-size:] == parts[:size]:
                return True
    return False
