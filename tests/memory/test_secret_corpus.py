"""Issue 9, point 7: the filter measured on a fresh corpus (tests/memory/data/).

At least 97 % of the credential texts must be refused by every write command of the real
store (create, str_replace, insert, and rename to a name holding the key) and masked in
tool output; at most 1 % of the ordinary developer notes may be refused.
benchmarks/secret_corpus.py prints the same figures and lists what was missed.
"""

from __future__ import annotations

import pytest

from tests.memory.secret_corpus import credentials, measure, ordinary


def test_the_corpus_is_big_enough_and_fresh():
    cases = credentials()
    notes = ordinary()
    assert len({c.text for c in cases}) >= 80
    assert len(set(notes)) >= 200
    assert sum(c.name is not None for c in cases) >= 80, "most keys must be tried as file names too"
    for case in cases:
        assert case.secrets and all(s in case.text for s in case.secrets), case.note


@pytest.mark.slow
def test_credentials_are_refused_and_masked_and_notes_pass(tmp_path):
    figures = measure(tmp_path / "sandbox" / "memories")
    refused = figures.rate(figures.refused_by_all, figures.credentials)
    masked = figures.rate(figures.masked, figures.credentials)
    false = figures.rate(figures.notes_refused, figures.notes)
    assert refused >= 97.0, f"{refused:.1f} % refused by every command; missed: {figures.misses}"
    assert masked >= 97.0, f"{masked:.1f} % masked in tool output; missed: {figures.misses}"
    assert false <= 1.0, f"{false:.1f} % of ordinary notes refused: {figures.false_refusals}"
    for name in ("create", "str_replace", "insert", "rename"):
        assert figures.tried.get(name, 0) > 0, f"{name} was never tried"
