"""Word errors between two transcripts, as the voice tests and the voice benchmark count them."""

from __future__ import annotations

import re


def word_error_rate(reference: str, hypothesis: str) -> tuple[int, int]:
    """(word edits from reference to hypothesis, words in the reference)."""
    ref, hyp = words(reference), words(hypothesis)
    row = list(range(len(hyp) + 1))
    for i, word in enumerate(ref, 1):
        previous, row[0] = row[0], i
        for j, other in enumerate(hyp, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (word != other))
    return row[len(hyp)], len(ref)


def words(text: str) -> list[str]:
    # "one's" and "ones" are the same word heard; the apostrophe is the decoder's guess
    return re.findall(r"[a-z0-9]+", re.sub(r"['\u2019]", "", text.lower()))
