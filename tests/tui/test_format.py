"""The short renderings on the status line and in the panes."""

from tui import format as fmt


def test_cost_never_reads_as_free_when_it_was_not():
    assert fmt.cost(0) == "$0"
    assert fmt.cost(0.00004) == "<$0.0001"
    assert fmt.cost(0.0042) == "$0.0042"
    assert fmt.cost(0.0123) == "$0.01"


def test_tokens_shorten_to_thousands():
    assert [fmt.tokens(n) for n in (812, 1234, 14_321)] == ["812", "1.2k", "14k"]
