"""The scoring rules on recorded transcripts written by hand (tests/eval/transcripts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.eval import scoring
from agent.eval.turn_records import Said, Shown, ToolRun, TurnRecord, turns_from_json, turns_to_json

HERE = Path(__file__).parent / "transcripts"


def load(name: str) -> list[TurnRecord]:
    return turns_from_json(json.loads((HERE / f"{name}.json").read_text())["turns"])


def test_a_right_monday_gets_every_answer():
    score = scoring.score_monday(load("monday_preloaded_right"))
    assert score.says_what_was_left
    assert score.builds_core_without_asking
    assert score.third_backed_by_tool
    assert not score.red_without_building
    assert score.correct == 3
    assert score.api_calls == 6
    assert score.time_to_first_token == 1.4
    assert score.cost_usd == pytest.approx(0.003)


def test_no_memory_file_list_is_not_what_was_left_and_asking_is_not_building():
    score = scoring.score_monday(load("monday_none"))
    assert not score.says_what_was_left
    assert not score.builds_core_without_asking
    # A solution build that morning named the call site: that backs the answer.
    assert score.third_backed_by_tool
    assert score.correct == 1


def test_answering_from_a_note_is_not_backed():
    score = scoring.score_monday(load("monday_note_only"))
    assert score.says_what_was_left
    assert not score.builds_core_without_asking
    assert not score.third_backed_by_tool
    # "The build is red" went on screen before any build ran.
    assert score.red_without_building
    # Outside the staleness variant that claim was true, so it costs no point.
    assert score.correct == 1
    assert score.api_calls == 5


def test_stale_monday_that_repeats_the_note_is_wrong():
    turns = load("monday_stale_wrong")
    score = scoring.score_monday(turns, stale=True)
    assert score.red_without_building
    # The Core build of the second answer was a check that morning, so the third is backed.
    assert score.builds_core_without_asking
    assert score.third_backed_by_tool
    assert score.correct == 3  # out of four: the red claim costs the staleness point


def test_stale_monday_that_builds_before_judging_is_right():
    score = scoring.score_monday(load("monday_stale_right"), stale=True)
    assert not score.red_without_building
    assert score.says_what_was_left
    assert score.builds_core_without_asking
    assert score.third_backed_by_tool
    assert score.correct == scoring.correct_out_of(stale=True) == 4


def test_red_claims_skip_friday_and_catch_present_tense():
    assert scoring.red_claims("On Friday the build was red.") == []
    assert scoring.red_claims("You were renaming Patch, and the build is red.") == ["the build is red."]
    assert scoring.red_claims("It doesn't compile because of CS1061.")
    assert scoring.red_claims("Core builds cleanly. Tests pass.") == []
    assert scoring.red_claims("There's a build error in ReviewOrchestrator.")


def test_a_build_in_the_same_turn_before_the_claim_clears_it():
    turn = TurnRecord(
        "What was I doing on Friday?",
        [ToolRun("build", {}, "Build failed: 1 error"), Said("The build is red.")],
    )
    assert not scoring.red_without_building([turn])
    shown_first = TurnRecord("q", [Shown("Status", "Build is failing."), ToolRun("build", {}, "")])
    assert scoring.red_without_building([shown_first])


@pytest.mark.parametrize(
    "project, core",
    [
        ({"project": "src/ClaudeReviewBot.Core"}, True),
        ({"project": "ClaudeReviewBot.Core.csproj"}, True),
        ({"project": "core"}, True),
        ({"project": "tests/ClaudeReviewBot.Core.Tests"}, False),
        ({"project": "src/ClaudeReviewBot.Cli"}, False),
        ({}, False),
    ],
)
def test_which_build_counts_as_core(project, core):
    turn = TurnRecord("Build the project I care about.", [ToolRun("build", project, "")])
    assert scoring.builds_core_without_asking(turn) is core


def test_building_the_solution_first_is_not_building_core():
    turn = TurnRecord(
        "Build the project I care about.",
        [ToolRun("build", {"project": "ClaudeReviewBot.sln"}, ""), ToolRun("build", {"project": "src/ClaudeReviewBot.Core"}, "")],
    )
    assert not scoring.builds_core_without_asking(turn)


def test_a_failed_read_does_not_back_an_answer():
    turns = [
        TurnRecord("a"),
        TurnRecord("b"),
        TurnRecord(
            "c",
            [
                ToolRun("read_file", {"path": "src/ClaudeReviewBot.Core/Review/ReviewOrchestrator.cs"}, "no such file", is_error=True),
                Said("ReviewOrchestrator line 111 is what's left."),
            ],
        ),
    ]
    assert not scoring.third_answer_backed(turns)


def test_git_status_alone_does_not_back_the_third_answer():
    turns = [
        TurnRecord("a", [ToolRun("git_status", {}, "M src/ClaudeReviewBot.Core/Review/ReviewOrchestrator.cs")]),
        TurnRecord("b"),
        TurnRecord("c", [Said("ReviewOrchestrator is what's left.")]),
    ]
    assert not scoring.third_answer_backed(turns)


def test_reference_memory_has_three_state_lines_of_five():
    text = (HERE / "friday_memory_reference.md").read_text()
    score = scoring.score_friday({"/memories/project.md": text})
    assert score.memory_files == 1
    assert score.lines == 5
    assert score.state_lines == 3
    assert any("uncommitted, 4 files" in line for line in score.state)
    assert any("line 111" in line for line in score.state)
    assert any("0 warnings" in line for line in score.state)


def test_memory_of_preferences_and_plans_has_no_state():
    text = (HERE / "friday_memory_clean.md").read_text()
    score = scoring.score_friday({"/memories/prefs.md": text})
    # Frontmatter keys and rules are bookkeeping; the description line counts as content.
    assert score.lines == 4
    assert score.state_lines == 0


def test_records_round_trip_through_json():
    turns = load("monday_note_only")
    assert turns_to_json(turns_from_json(turns_to_json(turns))) == turns_to_json(turns)
    assert isinstance(turns[0].items[3], Shown)


@pytest.mark.parametrize(
    "answer, right",
    [
        ("You planned to finish ReviewOrchestrator today.", True),
        ("The last piece is ReviewOrchestrator.", True),
        ("ReviewOrchestrator still uses file.Patch on line 111.", True),
        ("You need to update the call site in Review Orchestrator.", True),
        ("ReviewOrchestrator uses Patch where everything else uses Diff.", True),
        ("You changed ChangedFile.cs, DiffParser.cs and ReviewOrchestrator.cs.", False),
        ("I can't see Friday. ReviewOrchestrator.cs is modified on rename-patch-to-diff.", False),
        ("You were renaming Patch to Diff in ChangedFile.", False),
    ],
)
def test_what_counts_as_saying_what_was_left(answer, right):
    assert scoring.says_what_was_left(TurnRecord("What was I doing on Friday?", [Said(answer)])) is right


def test_the_third_answer_may_name_the_call_site_by_its_line():
    build = ToolRun("build", {}, "src/ClaudeReviewBot.Core/Review/ReviewOrchestrator.cs:111:34 CS1061")
    turns = [TurnRecord("a"), TurnRecord("b", [build]), TurnRecord("c", [Said("Just line 111, the last use of Patch.")])]
    assert scoring.third_answer_backed(turns)
    turns[2] = TurnRecord("c", [Said("Nothing much.")])
    assert not scoring.third_answer_backed(turns)


@pytest.mark.parametrize("briefing, stale, claims", [
    ("Welcome back. Sam finished the rename, so the build is green now.", True, []),
    ("Welcome back. The build is red: ReviewOrchestrator still uses Patch at line 111.", True, 2),
    ("On Friday the build was red. Sam finished it since.", True, []),
    ("Welcome back. The build is green now.", False, 1),
    ("Welcome back. The last call site still uses Patch.", False, []),
])
def test_briefing_claims_the_repository_contradicts(briefing, stale, claims):
    found = scoring.briefing_contradicted(TurnRecord("(briefing)", [Said(briefing)]), stale)
    assert (len(found) if isinstance(claims, int) else found) == claims
