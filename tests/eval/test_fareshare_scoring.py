"""The fareshare rules on turns written by hand: each can say yes and each can say no."""

from __future__ import annotations

from agent.eval import fareshare_scoring as rules
from agent.eval.turn_records import Said, Shown, ToolRun, TurnRecord
from agent.tools.text_editor import EDITOR_NAME


def said(text: str, *tools: ToolRun) -> TurnRecord:
    return TurnRecord("q", [*tools, Said(text)])


def wrote(path: str, body: str, command: str = "create", error: bool = False) -> ToolRun:
    key = {"create": "file_text", "str_replace": "new_str", "insert": "insert_text"}[command]
    return ToolRun(EDITOR_NAME, {"command": command, "path": path, key: body}, "ok", error)


PLAIN = "from fareshare.payouts.fees import share_cents\n\n\ndef test_half_cent_rounds_up(store):\n    assert share_cents(5, 2) == [3, 2]\n"
CLASS = "import unittest\n\n\nclass TestFees(unittest.TestCase):\n    def test_x(self):\n        pass\n"


def test_the_colleague_is_reported_by_name_or_by_the_step_done():
    assert rules.reports_colleague(said("Teodor Lind committed on Saturday."))
    assert rules.reports_colleague(TurnRecord("q", [Shown("Since Friday", "- README: export --json documented")]))
    assert not rules.reports_colleague(said("One commit since Friday, touching README.md."))
    assert not rules.reports_colleague(said("You still need to document --json in the README."))


def test_next_step_is_the_bump_and_never_the_readme():
    assert rules.next_is_the_bump(said("Bump the version to 0.4.0; the README step is already done."))
    assert rules.next_is_the_bump(said("Step 2 was done by Teodor. Next: bump the version in pyproject.toml."))
    assert not rules.next_is_the_bump(said("Next, document --json in the README, then bump the version."))
    assert not rules.next_is_the_bump(said("The README documents it now."))  # no bump named


def test_the_new_test_is_a_plain_function_under_tests():
    assert rules.test_is_plain_pytest(said("Added.", wrote("tests/test_fees.py", PLAIN)))
    assert rules.test_is_plain_pytest(said("Added.", wrote("/tests/test_fees.py", PLAIN, "insert")))
    assert not rules.test_is_plain_pytest(said("Added.", wrote("tests/test_fees.py", CLASS)))
    assert not rules.test_is_plain_pytest(said("Added.", wrote("tests/test_fees.py", PLAIN), wrote("tests/test_b.py", CLASS)))
    assert not rules.test_is_plain_pytest(said("Added.", wrote("fareshare/payouts/test_fees.py", PLAIN)))
    assert not rules.test_is_plain_pytest(said("Added.", wrote("tests/test_fees.py", PLAIN, error=True)))
    assert not rules.test_is_plain_pytest(said("def test_rounding(): ... is what I would write."))


def test_owner_and_decision():
    assert rules.names_owner(said("payouts/ is Margit's, so she should review it."))
    assert not rules.names_owner(said("Whoever owns payouts/ should review it."))
    assert rules.keeps_sqlite_for_offline(said("No. SQLite stays: the CLI has to work without a network."))
    assert rules.keeps_sqlite_for_offline(said("We decided on SQLite because fareshare must run offline."))
    assert not rules.keeps_sqlite_for_offline(said("No, keep SQLite, it is simpler."))


def test_claims_the_repository_contradicts():
    assert rules.contradicted_claims(said("Next up is the README: document --json.")) == ["Next up is the README"]
    assert rules.contradicted_claims(said("The tests fail in payouts.")) == ["The tests fail in payouts."]
    assert rules.contradicted_claims(said("Teodor documented --json in the README. The tests were failing on Friday.")) == []


def test_a_monday_score_counts_five_rules_and_an_honest_briefing():
    right = [said("Teodor documented --json in the README."), said("Bump the version."),
             said("Added; Margit owns payouts/.", wrote("tests/test_fees.py", PLAIN)),
             said("No: SQLite, because it runs offline.")]
    assert rules.score_fareshare_monday(right).correct == 6
    stale = [said("Next is the README.")] + right[1:]
    score = rules.score_fareshare_monday(stale)
    assert score.briefing_contradicted == ["Next is the README."] and score.correct == 4
    assert rules.score_fareshare_monday([]).correct == 1  # nothing said, nothing contradicted


def test_friday_facts_are_judged_within_one_file():
    files = {"/memories/a.md": "Margit owns fareshare/payouts/.", "/memories/b.md": "Release 0.4: bump the version last.",
             "/memories/c.md": "SQLite, never Postgres.", "/memories/d.md": "the CLI must run offline"}
    assert rules.facts_kept(files) == ["owner", "plan"]
    assert rules.facts_kept({"notes": "Plain pytest functions only. SQLite: offline."}) == ["convention", "decision"]
