"""The log view: it opens at the first failure, keeps pytest's progress rows on one line,
and colours Python's error lines the way it colours dotnet's."""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.widgets import Static

from tests.tui.conftest import wait_for
from tui.widgets.screen.pane import ScreenItem, ScreenPane, first_failure, render_plain

OUTPUT = Path(__file__).parents[1] / "tools" / "runner_output"


def load(name: str) -> str:
    lines = (OUTPUT / name).read_text(encoding="utf-8").splitlines(keepends=True)
    return "".join(line for line in lines if not line.startswith("#| "))


DOTNET_LOG = """$ dotnet build Shop.sln
  Determining projects to restore...
  All projects are up-to-date for restore.
src/Orders/ReviewOrchestrator.cs(111,34): error CS1061: 'ChangedFile' does not contain a definition for 'Patch'

Build FAILED.
"""


def red_lines(text) -> set[str]:
    plain = text.plain
    return {plain[s.start : s.end] for s in text.spans if "red" in str(s.style)}


def test_first_failure_of_real_logs():
    pytest_log = load("pytest_failures.txt").split("\n")
    assert pytest_log[first_failure(load("pytest_failures.txt"))].startswith("=") and "FAILURES" in pytest_log[first_failure(load("pytest_failures.txt"))]
    cargo = load("cargo_failures.txt").split("\n")
    assert cargo[first_failure(load("cargo_failures.txt"))] == "---- test_u128_0 stdout ----"
    assert DOTNET_LOG.split("\n")[first_failure(DOTNET_LOG)].startswith("src/Orders/ReviewOrchestrator.cs(111,34): error CS1061")
    jest = load("jest_failures.txt").split("\n")
    assert jest[first_failure(load("jest_failures.txt"))].strip().startswith("FAIL src/index.test.ts")
    assert first_failure("all good\n3 passed\n") is None


def test_python_error_lines_are_coloured_like_dotnet_ones():
    log = load("pytest_collection_errors.txt")
    red = red_lines(render_plain(ScreenItem("t", log, "log")))
    assert "E   ModuleNotFoundError: No module named 'freezegun'" in red
    assert "ERROR tests/test_rrule.py" in red
    assert any("ImportError while importing test module" in line for line in red)
    assert "src/Orders/ReviewOrchestrator.cs(111,34): error CS1061: 'ChangedFile' does not contain a definition for 'Patch'" in red_lines(
        render_plain(ScreenItem("t", DOTNET_LOG, "log")))
    # lines that only pass stay plain
    assert not any("passed" in line and "failed" not in line for line in red)


def test_pytest_progress_rows_fit_the_pane():
    log = "\n".join(["." * 150 + "F" + "." * 49 + " [ 40%]", "." * 200 + " [100%]", "short line that stays as it is " * 4])
    shown = render_plain(ScreenItem("t", log, "log"), width=60).plain.split("\n")
    assert all(len(row) <= 60 for row in shown[:2])
    assert shown[0].endswith("… [ 40%]") and shown[1].endswith("… [100%]")
    assert shown[2] == "short line that stays as it is " * 4  # not a progress row: wraps as before


class PaneApp(App):
    def compose(self) -> ComposeResult:
        yield ScreenPane(id="screen-pane")


async def test_a_log_opens_at_its_first_failure():
    noise = "\n".join(f"building step {i} with a long line that wraps in a narrow pane, more words here" for i in range(120))
    after = "\n".join(f"  stack frame {i}" for i in range(60))
    log = noise + "\nsrc/App.cs(3,5): error CS0103: The name 'x' does not exist\n" + after + "\nBuild FAILED.\n"
    app = PaneApp()
    async with app.run_test(size=(60, 24)) as pilot:
        pane = app.query_one(ScreenPane)
        await pane.show("build — full log", log, "log")
        body = pane.query_one("#screen-body", VerticalScroll)
        # the 120 wrapped lines above are scrolled past, once the log is laid out
        await wait_for(pilot, lambda: body.scroll_y > 100, 10, "the scroll to the failure")
        static = body.query_one(Static)
        width = static.content_region.width
        (top,) = static.render_lines(Region(0, int(body.scroll_y), width, 1))
        assert top.text.startswith("src/App.cs(3,5): error CS0103"), top.text


def test_a_diff_names_its_file_in_one_row_and_keeps_removed_dashes_as_they_are():
    from agent.tools.editor.change_set import FileChange

    path = "src/ClaudeReviewBot.Core/Review/ReviewOrchestrator.cs"
    before = "-- the old way\nvar patchText = file.Patch;\n"
    after = "var patchText = file.Diff;\n"
    diff = FileChange(path, Path("/nowhere"), before, after).diff()
    rows = render_plain(ScreenItem("t", diff, "diff"), width=40)
    lines = rows.plain.split("\n")
    assert lines[:2] == ["--- a/…/Review/ReviewOrchestrator.cs", "+++ b/…/Review/ReviewOrchestrator.cs"]
    # the hunk is as it was: a removed SQL-style comment is a removed line, red, uncut
    assert "--- the old way" in lines and "+var patchText = file.Diff;" in lines
    styles = {rows.plain[span.start:span.end]: str(span.style) for span in rows.spans}
    assert styles["--- a/…/Review/ReviewOrchestrator.cs"] == "bold"
    assert styles["--- the old way"] == "red" and styles["+var patchText = file.Diff;"] == "green"
    # wide enough, the path is whole; and a file name longer than the row keeps its end
    assert render_plain(ScreenItem("t", diff, "diff"), width=100).plain == diff.expandtabs(4)
    long_name = FileChange("A" * 70 + ".cs", Path("/nowhere"), "x\n", "y\n").diff()
    assert render_plain(ScreenItem("t", long_name, "diff"), width=30).plain.split("\n")[0] == "--- a/…" + ("A" * 20 + ".cs")[-23:]


async def test_a_resize_fits_the_diff_again_and_keeps_the_readers_place():
    from agent.tools.editor.change_set import FileChange

    path = "src/ClaudeReviewBot.Core/Review/ReviewOrchestrator.cs"
    before = "".join(f"line {i}\n" for i in range(200))
    after = before.replace("line 150\n", "line one-fifty\n")
    diff = FileChange(path, Path("/nowhere"), before, after).diff() + "".join(f" context {i}\n" for i in range(150))
    app = PaneApp()
    async with app.run_test(size=(50, 24)) as pilot:
        pane = app.query_one(ScreenPane)
        await pane.show("a change", diff, "diff")
        body = pane.query_one("#screen-body", VerticalScroll)
        await pilot.pause()
        body.scroll_to(y=60, animate=False, immediate=True)
        await pilot.pause()
        assert body.scroll_y == 60
        await pilot.resize_terminal(44, 24)
        await wait_for(pilot, lambda: str(body.query_one(Static).render()).split("\n")[0].endswith("ReviewOrchestrator.cs")
                       and len(str(body.query_one(Static).render()).split("\n")[0]) <= body.scrollable_content_region.width,
                       5, "the diff fitted to the new width")
        assert body.scroll_y == 60
