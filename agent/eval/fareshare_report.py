"""The fareshare scenario's table: one row per memory mode, a column per rule."""

from __future__ import annotations

import statistics
from typing import Any

from agent.eval.fareshare_scoring import OUT_OF
from agent.eval.report import MODE_LABELS, _span, _tokens

RULES = (
    ("reports_colleague", "Briefing reports the colleague's commit"),
    ("next_is_the_bump", "Next step: the version, not the README"),
    ("test_is_plain_pytest", "Test is a plain pytest function"),
    ("names_owner", "Names the owner of payouts/"),
    ("keeps_sqlite_for_offline", "Keeps SQLite, says why"),
)


def mode_summary(mode: dict[str, Any]) -> dict[str, Any]:
    mondays = mode["mondays"]
    scored = [m for m in mondays if m.get("score")]
    tokens = _tokens(mondays)
    friday = mode.get("friday") or {}
    return {
        "mode": mode["mode"],
        "mondays": len(mondays),
        "failed_mondays": len(mondays) - len(scored),
        "first_request_tokens_mean": statistics.mean(tokens) if tokens else None,
        "correct_mean": statistics.mean(m["score"]["correct"] for m in scored) if scored else None,
        "correct_out_of": OUT_OF,
        **{key: sum(bool(m["score"][key]) for m in scored) for key, _ in RULES},
        "briefing_contradicted": sum(bool(m["score"]["briefing_contradicted"]) for m in scored),
        "tests_green_after": sum(bool(m.get("tests_green_after")) for m in scored),
        "cost_usd_mean": statistics.mean(m["score"]["cost_usd"] for m in scored) if scored else None,
        "friday_facts_kept": friday.get("facts_kept"),
    }


def markdown_table(results: dict[str, Any]) -> str:
    header = ["Monday starts with", "First request", *(label for _, label in RULES),
              "Briefing claims the repository contradicts", "Tests green after", "API calls, four turns",
              "Cost per Monday", "Friday kept"]
    rows = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for mode in results["modes"]:
        mondays = mode["mondays"]
        scored = [m for m in mondays if m.get("score")]
        summary = mode_summary(mode)
        tokens = _tokens(mondays)
        friday = mode.get("friday") or {}
        kept = friday.get("facts_kept")
        row = [
            MODE_LABELS.get(mode["mode"], mode["mode"]) + f" (`{mode['mode']}`)",
            (_span([float(t) for t in tokens], "{:,.0f}") + " tokens") if tokens else "–",
            *(f"{summary[key]} of {len(scored)}" for key, _ in RULES),
            f"{summary['briefing_contradicted']} of {len(scored)}",
            f"{summary['tests_green_after']} of {len(scored)}",
            _span([float(m["score"]["api_calls"]) for m in scored], "{:.0f}"),
            "–" if summary["cost_usd_mean"] is None else f"${summary['cost_usd_mean']:.5f}",
            "Friday failed" if friday.get("error") else (", ".join(kept) if kept else "none of the four facts"),
        ]
        rows.append("| " + " | ".join(row) + " |")
    failed = sum(mode_summary(m)["failed_mondays"] for m in results["modes"])
    notes = [f"{failed} Monday run(s) failed and are left out of the counts; see results.json."] if failed else []
    notes.append(
        "Friday kept: which of the four facts (convention, owner, decision, plan) one memory file or the notes "
        "holds. A briefing claim the repository contradicts: the README step given as still to do, or the tests "
        "said to fail now."
    )
    return "\n".join(rows) + "\n\n" + "\n".join(notes) + "\n"
