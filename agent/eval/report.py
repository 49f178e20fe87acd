"""The evaluation's outputs: a Markdown table, a JSON file of every run, a PNG chart.

Everything here reads the results as the JSON structure the harness writes, so a report can
be drawn again from an old results.json without running anything.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

from agent.eval.scoring import correct_out_of
from agent.settings.choices import MemoryMode

MODE_LABELS: dict[MemoryMode, str] = {
    "none": "No memory",
    "history": "All of Friday's history",
    "window": "Friday's last turns",
    "summary": "A summary of Friday",
    "on-demand": "Memory, read on demand",
    "preloaded": "Memory, preloaded",
    "index": "Memory index, files on demand",
}


def _count(mondays: list[dict[str, Any]], key: str) -> str:
    scored = [m for m in mondays if m.get("score")]
    return f"{sum(bool(m['score'][key]) for m in scored)} of {len(scored)}"


def _green(mondays: list[dict[str, Any]]) -> str:
    """Monday's fourth step: after "Finish the rename" and "Build it", is the build green?"""
    scored = [m for m in mondays if m.get("finish")]
    return f"{sum(bool(m['finish']['build_green']) for m in scored)} of {len(scored)}" if scored else "–"


def _span(values: list[float], fmt: str) -> str:
    if not values:
        return "–"
    low, high = min(values), max(values)
    return fmt.format(low) if low == high else f"{fmt.format(low)}–{fmt.format(high)}"


def _tokens(mondays: list[dict[str, Any]]) -> list[int]:
    return [m["first_request_tokens"] for m in mondays if m.get("first_request_tokens") is not None]


def mode_summary(mode: dict[str, Any], stale: bool) -> dict[str, Any]:
    """The numbers of one table row, also kept in the JSON for whoever plots them again."""
    mondays = mode["mondays"]
    scored = [m for m in mondays if m.get("score")]
    tokens = _tokens(mondays)
    ttft = [m["score"]["time_to_first_token"] for m in scored if m["score"].get("time_to_first_token") is not None]
    friday = (mode.get("friday") or {}).get("memory_score") or {}
    return {
        "mode": mode["mode"],
        "mondays": len(mondays),
        "failed_mondays": len(mondays) - len(scored),
        "first_request_tokens_mean": statistics.mean(tokens) if tokens else None,
        "correct_mean": statistics.mean(m["score"]["correct"] for m in scored) if scored else None,
        "correct_out_of": correct_out_of(stale),
        "says_what_was_left": sum(bool(m["score"]["says_what_was_left"]) for m in scored),
        "builds_core_without_asking": sum(bool(m["score"]["builds_core_without_asking"]) for m in scored),
        "third_backed_by_tool": sum(bool(m["score"]["third_backed_by_tool"]) for m in scored),
        "red_without_building": sum(bool(m["score"]["red_without_building"]) for m in scored),
        "briefing_contradicted": sum(bool(m["score"].get("briefing_contradicted")) for m in scored),
        "build_green_after_finishing": sum(bool((m.get("finish") or {}).get("build_green")) for m in mondays),
        "time_to_first_token_median": statistics.median(ttft) if ttft else None,
        "cost_usd_mean": statistics.mean(m["score"]["cost_usd"] for m in scored) if scored else None,
        "friday_memory_files": friday.get("memory_files"),
        "friday_state_lines": friday.get("state_lines"),
        "friday_lines": friday.get("lines"),
    }


def markdown_table(results: dict[str, Any]) -> str:
    stale = bool(results.get("stale"))
    header = [
        "Monday starts with", "First request", "Says what was left", "Builds Core without asking",
        "Third answer backed by a tool",
    ]
    if stale:
        header.append("Said red without building")
    header += ["Green after finishing the rename", "API calls, three questions", "Time to first token", "Cost per Monday", "Friday's memory",
               "Briefing claims the repository contradicts"]
    rows = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for mode in results["modes"]:
        mondays = mode["mondays"]
        scored = [m for m in mondays if m.get("score")]
        summary = mode_summary(mode, stale)
        tokens = _tokens(mondays)
        row = [
            MODE_LABELS.get(mode["mode"], mode["mode"]) + f" (`{mode['mode']}`)",
            (_span([float(t) for t in tokens], "{:,.0f}") + " tokens") if tokens else "–",
            _count(mondays, "says_what_was_left"),
            _count(mondays, "builds_core_without_asking"),
            _count(mondays, "third_backed_by_tool"),
        ]
        if stale:
            row.append(_count(mondays, "red_without_building"))
        row += [
            _green(mondays),
            _span([float(m["score"]["api_calls"]) for m in scored], "{:.0f}"),
            "–" if summary["time_to_first_token_median"] is None else f"{summary['time_to_first_token_median']:.2f} s",
            # Five places: a Haiku 5.5 morning costs hundredths of a cent.
            "–" if summary["cost_usd_mean"] is None else f"${summary['cost_usd_mean']:.5f}",
            _friday_cell(mode.get("friday") or {}),
            f"{summary['briefing_contradicted']} of {len(scored)}",
        ]
        rows.append("| " + " | ".join(row) + " |")
    notes = []
    failed = sum(mode_summary(m, stale)["failed_mondays"] for m in results["modes"])
    if failed:
        notes.append(f"{failed} Monday run(s) failed and are left out of the counts; see results.json.")
    troubled = sum(bool(m.get("errors")) for mode in results["modes"] for m in mode["mondays"] if m.get("score"))
    if troubled:
        notes.append(
            f"{troubled} Monday run(s) met an API or loop error in at least one turn and are counted as "
            "they ended; the errors are in results.json."
        )
    notes.append(
        "Time to first token is the median over Mondays of the first question's; the first request is "
        "counted with the token counting endpoint. Friday's memory: files saved, and how many of their "
        "lines are state a tool can tell (build results, errors, line numbers, changed files). Monday opens "
        "with the welcome-back briefing in place of a first question; a briefing claim the repository "
        "contradicts: a red build or a call site still on Patch after the weekend's fix, a green build or a "
        "finished rename before it."
    )
    return "\n".join(rows) + "\n\n" + "\n".join(notes) + "\n"


def _friday_cell(friday: dict[str, Any]) -> str:
    if friday.get("error"):
        return "Friday failed"
    score = friday.get("memory_score") or {}
    files = score.get("memory_files", 0)
    cell = f"{files} file{'s' if files != 1 else ''}"
    if files:
        cell += f", {score.get('state_lines', 0)} of {score.get('lines', 0)} lines state"
    notes = friday.get("notes_score")
    if notes:
        cell += f"; notes: {notes['state_lines']} of {notes['lines']} lines state"
    return cell


def told_section(results: dict[str, Any]) -> str:
    """What each mode's first Monday was told about its memory's evidence, quoted."""
    import re

    from agent.recall.briefing import EVIDENCE_HEADER

    # The header names when the evidence was checked (as the session started, or when memory
    # was rebuilt), so it is found as its template, whatever that moment was.
    header = re.compile(re.escape(EVIDENCE_HEADER).replace(re.escape("{since}"), ".*?"))
    blocks = []
    for mode in results["modes"]:
        told = next((m.get("told") for m in mode["mondays"] if m.get("told")), "") or ""
        found = header.search(told)
        if found is None:
            continue
        after = told[found.end():]
        lines = []
        for line in after.lstrip("\n").splitlines():
            if not line.startswith("- "):
                break
            lines.append(line)
        label = MODE_LABELS.get(mode["mode"], mode["mode"]) + f" (`{mode['mode']}`)"
        blocks.append(f"{label}:\n\n" + "\n".join(f"    {line}" for line in lines))
    if not blocks:
        return ""
    intro = (
        "## What Monday was told\n\nThe evidence lines in the first Monday prompt of each mode that has them: "
        "what the memory cites, checked against the repository as the session started.\n\n"
    )
    return intro + "\n\n".join(blocks) + "\n"


def chart(results: dict[str, Any], path: Path) -> Path:
    """First-request tokens against correct answers, one point per mode."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    stale = bool(results.get("stale"))
    out_of = correct_out_of(stale)
    figure, axes = pyplot.subplots(figsize=(8, 5), dpi=120)
    for mode in results["modes"]:
        summary = mode_summary(mode, stale)
        if summary["first_request_tokens_mean"] is None or summary["correct_mean"] is None:
            continue
        x, y = summary["first_request_tokens_mean"], summary["correct_mean"]
        axes.scatter([x], [y], s=70)
        axes.annotate(mode["mode"], (x, y), textcoords="offset points", xytext=(6, 6))
    axes.set_xlabel("First Monday request, input tokens (mean)")
    axes.set_ylabel(f"Correct answers per Monday (mean, of {out_of})")
    axes.set_ylim(-0.2, out_of + 0.3)
    axes.set_xlim(left=0)
    axes.grid(True, alpha=0.3)
    title = "Friday/Monday: what memory costs and what it gets right"
    axes.set_title(title + (" (stale variant)" if stale else ""))
    figure.tight_layout()
    figure.savefig(path)
    pyplot.close(figure)
    return path


def write_report(results: dict[str, Any], out: Path) -> dict[str, Path]:
    """Writes results.json, report.md and chart.png into `out`; returns their paths."""
    out.mkdir(parents=True, exist_ok=True)
    stale = bool(results.get("stale"))
    results = {**results, "summary": [mode_summary(m, stale) for m in results["modes"]]}
    paths = {"json": out / "results.json", "markdown": out / "report.md", "chart": out / "chart.png"}
    paths["json"].write_text(json.dumps(results, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    if results.get("cited"):
        heading = "# Friday and Monday (cited: Friday's memory cites the call site; the rename was finished and committed before Monday)"
    else:
        heading = "# Friday and Monday" + (" (stale: the call site was fixed over the weekend)" if stale else "")
    meta = (
        f"Model {results.get('model')}, effort {results.get('effort')}, {results.get('runs')} Monday run(s) "
        f"per mode, every Monday of a mode from the same Friday."
    )
    told = told_section(results)
    body = f"{heading}\n\n{meta}\n\n{markdown_table(results)}" + (f"\n{told}" if told else "")
    paths["markdown"].write_text(body, encoding="utf-8")
    chart(results, paths["chart"])
    return paths
