"""Which turn "go back to before the rename" means, from the turns' own words and files."""

from __future__ import annotations

import pytest

from agent.checkpoints.matching import best_turn, rewind_request
from agent.checkpoints.store import Before, Checkpoint


def _turns() -> list[Checkpoint]:
    rows = [("add a health endpoint", {"src/api/health.py": Before(None, "x")}),
            ("rename the OrderService to Orders", {"src/orders.py": Before("a", "b")}),
            ("format the code and run the linter", {"src/app.py": Before("a", "b")}),
            ("write a test for the parser", {"tests/test_parser.py": Before(None, "t")})]
    return [Checkpoint("s", i + 1, words, 0.0, i * 4, files=files) for i, (words, files) in enumerate(rows)]


@pytest.mark.parametrize(("said", "turn"), [
    ("go back to before the rename", 2),
    ("Rewind to before we renamed the order service.", 2),
    ("please go back to before the health check endpoint", 1),
    ("go back before the linting", 3),
    ("roll back to before the parser tests", 4),
    ("go back", 4),
    ("go back one turn", 4),
    ("rewind two turns", 3),
    ("undo the last 3 turns", 2),
])
def test_the_words_name_the_turn(said, turn):
    what = rewind_request(said)
    assert what is not None
    found = best_turn(what, _turns())
    assert found is not None and found.turn == turn


@pytest.mark.parametrize("said", ["rename the parser", "undo the rename", "what did the linter say?", "going back home"])
def test_other_words_are_not_a_rewind(said):
    assert rewind_request(said) is None


def test_words_that_match_no_turn_choose_none():
    assert best_turn("the database migration", _turns()) is None
