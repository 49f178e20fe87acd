"""The report of several scenarios: each one's correct answers side by side, per memory
mode, then each scenario's own table, the JSON of every run and one chart."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent.eval import fareshare_report, report


def _table(results: dict[str, Any]) -> str:
    if results.get("scenario") == "python":
        return fareshare_report.markdown_table(results)
    return report.markdown_table(results)


def _summary(results: dict[str, Any], mode: dict[str, Any]) -> dict[str, Any]:
    if results.get("scenario") == "python":
        return fareshare_report.mode_summary(mode)
    return report.mode_summary(mode, bool(results.get("stale")))


def _correct(summary: dict[str, Any]) -> str:
    if summary["correct_mean"] is None:
        return "–"
    return f"{summary['correct_mean']:.1f} of {summary['correct_out_of']}"


def comparison(combined: dict[str, Any]) -> str:
    """One row per memory mode; per scenario, the mean of correct answers and the first request."""
    scenarios = combined["scenarios"]
    header = ["Monday starts with"]
    for results in scenarios:
        header += [f"{results['title']}: correct", "first request"]
    rows = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    modes = list(dict.fromkeys(m["mode"] for results in scenarios for m in results["modes"]))
    for name in modes:
        row = [report.MODE_LABELS.get(name, name) + f" (`{name}`)"]
        for results in scenarios:
            mode = next((m for m in results["modes"] if m["mode"] == name), None)
            if mode is None:
                row += ["–", "–"]
                continue
            summary = _summary(results, mode)
            tokens = summary["first_request_tokens_mean"]
            row += [_correct(summary), "–" if tokens is None else f"{tokens:,.0f} tokens"]
        rows.append("| " + " | ".join(row) + " |")
    return "\n".join(rows) + "\n"


def markdown(combined: dict[str, Any]) -> str:
    parts = [comparison(combined)]
    for results in combined["scenarios"]:
        parts.append(f"## {results['title']}\n\n{_table(results)}")
    return "\n".join(parts)


def chart(combined: dict[str, Any], path: Path) -> Path:
    """First-request tokens against the share of right answers, a marker per scenario."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, axes = pyplot.subplots(figsize=(8, 5), dpi=120)
    for results, marker in zip(combined["scenarios"], "os^D", strict=False):
        points = []
        for mode in results["modes"]:
            summary = _summary(results, mode)
            if summary["first_request_tokens_mean"] is None or summary["correct_mean"] is None:
                continue
            points.append((summary["first_request_tokens_mean"], summary["correct_mean"] / summary["correct_out_of"], mode["mode"]))
        axes.scatter([p[0] for p in points], [p[1] for p in points], s=70, marker=marker, label=results["title"])
        for x, y, name in points:
            axes.annotate(name, (x, y), textcoords="offset points", xytext=(6, 6))
    axes.set_xlabel("First Monday request, input tokens (mean)")
    axes.set_ylabel("Share of Monday's rules met (mean)")
    axes.set_ylim(-0.05, 1.1)
    axes.set_xlim(left=0)
    axes.grid(True, alpha=0.3)
    axes.legend(loc="lower right")
    axes.set_title("Friday/Monday, every scenario: what memory costs and what it gets right")
    figure.tight_layout()
    figure.savefig(path)
    pyplot.close(figure)
    return path


def write_report(combined: dict[str, Any], out: Path) -> dict[str, Path]:
    """results.json, report.md and chart.png of every scenario, into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    saved = {**combined, "scenarios": [
        {**results, "summary": [_summary(results, m) for m in results["modes"]]} for results in combined["scenarios"]
    ]}
    paths = {"json": out / "results.json", "markdown": out / "report.md", "chart": out / "chart.png"}
    paths["json"].write_text(json.dumps(saved, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    meta = (f"Model {combined.get('model')}, effort {combined.get('effort')}, {combined.get('runs')} Monday run(s) "
            "per mode and scenario, every Monday of a mode from the same Friday.")
    paths["markdown"].write_text(f"# Friday and Monday, scenario by scenario\n\n{meta}\n\n{markdown(combined)}", encoding="utf-8")
    chart(combined, paths["chart"])
    return paths
