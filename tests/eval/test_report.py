"""The report drawn from results written by hand, failed runs included."""

from __future__ import annotations

import copy
import json

import pytest

from agent.eval.report import markdown_table, mode_summary, write_report


def monday(run, tokens, left, core, third, red=False, calls=6, ttft=1.0, cost=0.002, errors=(), green=None):
    correct = int(left) + int(core) + int(third)
    finish = {} if green is None else {"finish": {"edited": green, "built": True, "build_green": green,
                                                  "call_site_fixed": green, "api_calls": 3}}
    return {**finish,
        "run": run,
        "first_request_tokens": tokens,
        "errors": list(errors),
        "turns": [],
        "score": {
            "says_what_was_left": left, "builds_core_without_asking": core, "third_backed_by_tool": third,
            "red_without_building": red, "api_calls": calls, "time_to_first_token": ttft,
            "cost_usd": cost, "correct": correct,
        },
    }


RESULTS = {
    "model": "claude-haiku-5-5", "effort": "low", "runs": 3, "stale": False,
    "modes": [
        {
            "mode": "none",
            "friday": {"memory_score": {"memory_files": 0, "lines": 0, "state_lines": 0, "state": []}},
            "mondays": [monday(1, 1178, False, False, True, calls=7), monday(2, 1178, False, True, True, calls=9),
                        {"run": 3, "error": "RuntimeError: boom", "score": None}],
        },
        {
            "mode": "preloaded",
            "friday": {"memory_score": {"memory_files": 2, "lines": 5, "state_lines": 3, "state": []}},
            "mondays": [monday(1, 3210, True, True, True, ttft=2.0, calls=8, errors=["turn 2: 529"], green=True),
                        monday(2, 3212, True, True, False, ttft=1.0, calls=11, green=False),
                        monday(3, 3210, True, True, True, ttft=3.0, green=True)],
        },
        {"mode": "summary", "friday": {"error": "APIConnectionError: no route", "memory_score": None},
         "mondays": [monday(1, None, False, True, True)]},
    ],
}


def test_one_row_per_mode_with_counts_spans_and_medians():
    table = markdown_table(RESULTS)
    rows = [line for line in table.splitlines() if line.startswith("| ")]
    assert len(rows) == 4
    assert rows[1] == (
        "| No memory (`none`) | 1,178 tokens | 0 of 2 | 1 of 2 | 2 of 2 | – | 7–9 | 1.00 s | $0.00200 | 0 files | 0 of 2 |"
    )
    assert rows[2] == (
        "| Memory, preloaded (`preloaded`) | 3,210–3,212 tokens | 3 of 3 | 3 of 3 | 2 of 3 | 2 of 3 | 6–11 | 2.00 s | $0.00200 "
        "| 2 files, 3 of 5 lines state | 0 of 3 |"
    )
    assert rows[3].startswith("| A summary of Friday (`summary`) | – |") and "| Friday failed |" in rows[3]
    assert "1 Monday run(s) failed" in table
    assert "1 Monday run(s) met an API or loop error" in table
    assert "Said red without building" not in table


def test_a_contradicted_briefing_is_counted():
    results = copy.deepcopy(RESULTS)
    results["modes"][1]["mondays"][0]["score"]["briefing_contradicted"] = ["the build is green now"]
    row = [line for line in markdown_table(results).splitlines() if line.startswith("| Memory, preloaded")][0]
    assert row.endswith("| 1 of 3 |")
    assert mode_summary(results["modes"][1], stale=False)["briefing_contradicted"] == 1


def test_summary_keeps_the_plotted_numbers():
    summary = mode_summary(RESULTS["modes"][1], stale=False)
    assert summary["first_request_tokens_mean"] == (3210 + 3212 + 3210) / 3
    assert summary["correct_mean"] == (3 + 2 + 3) / 3
    assert summary["correct_out_of"] == 3
    assert summary["build_green_after_finishing"] == 2
    none = mode_summary(RESULTS["modes"][0], stale=False)
    assert none["mondays"] == 3 and none["failed_mondays"] == 1


@pytest.mark.slow  # runs the stale evaluation end to end: seconds
def test_stale_table_has_the_red_column_and_out_of_four(tmp_path):
    stale = copy.deepcopy({**RESULTS, "stale": True})
    stale["modes"] = [stale["modes"][1]]
    stale["modes"][0]["mondays"][0]["score"]["red_without_building"] = True
    table = markdown_table(stale)
    assert "| Said red without building |" in table
    assert "| 1 of 3 |" in table
    paths = write_report(stale, tmp_path / "deep" / "out")
    assert paths["chart"].read_bytes()[:4] == b"\x89PNG"
    saved = json.loads(paths["json"].read_text())
    assert saved["summary"][0]["correct_out_of"] == 4
    assert "stale" in paths["markdown"].read_text().splitlines()[0]
