"""Render PNG screenshots of the app in its main states into screenshots/.

The real app runs headless (Textual's run_test) against the Claude double in its own
process, on the scenario's repository and memories under a temporary folder. Each state is
saved as SVG by Textual and turned into PNG with cairosvg; Fira Code must be installed
(Debian fonts-firacode) or the text misaligns.

    uv run python scripts/screenshots.py [--out screenshots] [--keep-svg]

`--only code` makes just the held code change's two. The last states, memory_review_160x48 and memory_conflict_160x48, change the scenario's
repository (the rename is finished and committed) and hold a change for review, which
then meets a hand edit, so they run after the others.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from contextlib import asynccontextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.tui.scenario import QUESTION, DoubleProcess, World, build_world, double_script  # noqa: E402

WIDE = (160, 48)
NARROW = (80, 24)


class Shooter:
    def __init__(self, out: Path, keep_svg: bool) -> None:
        self.out = out
        self.keep_svg = keep_svg
        self.made: list[Path] = []

    async def shot(self, app, pilot, name: str) -> None:
        import cairosvg

        await pilot.pause(0.4)
        svg = Path(app.save_screenshot(filename=f"{name}.svg", path=str(self.out)))
        png = svg.with_suffix(".png")
        cairosvg.svg2png(url=str(svg), write_to=str(png))
        if not self.keep_svg:
            svg.unlink()
        self.made.append(png)
        print(f"wrote {png.relative_to(ROOT) if png.is_relative_to(ROOT) else png}")


async def wait_for(pilot, predicate, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("the app did not get there")
        await pilot.pause(0.05)


def new_app(world: World):
    from agent.settings.config import AgentConfig
    from tui.app import DevAgentApp

    return DevAgentApp(world.repo, AgentConfig.from_env_and_args(None, world.repo))


async def run_turn(app, pilot, question: str = QUESTION) -> None:
    from tui.widgets.prompt import Prompt

    prompt = app.query_one("#prompt", Prompt)
    prompt.value = question
    await pilot.press("enter")
    await wait_for(pilot, app.turns.ready.is_set)
    await wait_for(pilot, lambda: not app.running)
    # Streamed text lands a few times a second; a loaded machine needs more than one beat.
    await pilot.pause(1.0)


LONG_REPLY = "\n\n".join(
    [
        "Here is what each step of the pipeline does, in the order it runs:",
        *(f"{n}. **{step}**: {what}" for n, (step, what) in enumerate([
            ("restore", "fetches the NuGet packages the solution references"),
            ("build", "compiles every project with warnings as errors off"),
            ("test", "runs the xUnit projects and uploads their results"),
            ("pack", "makes the NuGet package of ClaudeReviewBot.Core"),
            ("publish", "pushes the package when the branch is main"),
        ], 1)),
        "The red run stopped at **build**: `CS1061` in `ReviewOrchestrator.cs:111`. Fix that "
        "call site and the rest of the pipeline has nothing left to trip on.",
    ]
)


@asynccontextmanager
async def after_a_turn(world: World, work: Path, size: tuple[int, int]):
    """The app at `size` once the scenario's question has been answered by a fresh Claude double."""
    with DoubleProcess(double_script(long_reply=LONG_REPLY), work / f"double-{size[0]}x{size[1]}") as double:
        os.environ.update(double.env)
        app = new_app(world)
        async with app.run_test(size=size) as pilot:
            await run_turn(app, pilot)
            yield app, pilot


async def main_states(world: World, shooter: Shooter, work: Path) -> None:
    from textual.widgets import OptionList, TextArea

    from tui.widgets.conversation.lines import ToolLine

    async with after_a_turn(world, work, WIDE) as (app, pilot):
        await shooter.shot(app, pilot, "turn_with_tools_160x48")

        build = next(line for line in app.query(ToolLine) if line.tool_name == "build")
        build.focus()
        await pilot.press("enter")
        await shooter.shot(app, pilot, "build_log_160x48")

        options = app.query_one("#memory-list", OptionList)
        options.focus()
        names = app.memory_pane.names
        options.highlighted = names.index("Rename Patch to Diff")
        await pilot.press("ctrl+e")
        await pilot.pause(0.2)
        area = app.screen.query_one("#text", TextArea)
        area.move_cursor(area.document.end)
        area.insert("Monday: the build says CS1061 is still there.\n")
        await shooter.shot(app, pilot, "memory_editor_160x48")

        area.insert("Deploy key: AKIAIOSFODNN7Q4W2ZLM\n")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen.refusals)
        await shooter.shot(app, pilot, "memory_save_refused_160x48")
        await pilot.press("escape")  # unsaved text: the editor asks first
        await pilot.pause(0.2)
        await shooter.shot(app, pilot, "memory_discard_confirm_160x48")
        await pilot.press("ctrl+d")
        await pilot.pause(0.2)

        options.focus()
        options.highlighted = app.memory_pane.names.index("CI pipeline")
        await pilot.press("delete")
        await shooter.shot(app, pilot, "delete_confirm_160x48")
        await pilot.press("escape")

    async with after_a_turn(world, work, NARROW) as (app, pilot):
        await shooter.shot(app, pilot, "turn_80x24")
        # a full conversation: the newest reply's last line is on screen, not below the fold
        await run_turn(app, pilot, "And the rest of the pipeline? Give me the long version.")
        await run_turn(app, pilot, "Once more, the long version, for the notes.")
        await shooter.shot(app, pilot, "long_conversation_80x24")


async def first_run(world: World, shooter: Shooter) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        os.environ.pop(name, None)
    app = new_app(world)
    async with app.run_test(size=NARROW) as pilot:
        await wait_for(pilot, lambda: app.memory_pane.names)
        await shooter.shot(app, pilot, "first_run_no_key_80x24")


async def memory_review(world: World, shooter: Shooter) -> None:
    """The memory pane with evidence marks and a change waiting for review: the call site
    the rename note cites is fixed and committed, an old note is aging, and the agent has
    proposed an edit in review mode."""
    import subprocess

    from textual.widgets import Footer, OptionList

    from agent.eval import sources
    from memory.pending import PendingChanges
    from memory.roots import open_memory

    call_site = world.repo / sources.ORCHESTRATOR
    call_site.write_text(call_site.read_text().replace(sources.LEFT_OVER, sources.FINISHED))
    for args in (["add", "-A"], ["commit", "-q", "-m", "Finish the rename"]):
        subprocess.run(["git", "-c", "user.name=Dana", "-c", "user.email=dana@example.com", *args], cwd=world.repo, check=True)
    memory = open_memory(world.repo)
    old = Path(memory.repository.directory) / "reference_ci.md"
    stamp = time.time() - 45 * 86400
    os.utime(old, (stamp, stamp))
    PendingChanges(memory).hold({
        "command": "str_replace", "path": "/memories/project_patch_to_diff.md",
        "old_str": "Friday's state: one call site left", "new_str": "Finished on Monday; the last call site was",
    })
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        os.environ.pop(name, None)
    app = new_app(world)
    async with app.run_test(size=WIDE) as pilot:
        pane = app.memory_pane
        await wait_for(pilot, lambda: pane.listing.trust is not None and pane.listing.trust.pending)
        options = app.query_one("#memory-list", OptionList)
        options.focus()
        options.highlighted = next(i for i in range(options.option_count) if str(options.get_option_at_index(i).id).startswith("pending:"))
        # the footer redraws itself whole when the focus moves: wait for the pane's keys
        footer = app.query_one(Footer)
        await wait_for(pilot, lambda: any("Accept" in str(key.render()) for key in footer.children))
        await shooter.shot(app, pilot, "memory_review_160x48")
        # the user edits that memory by hand meanwhile: accepting the change is a conflict
        note = "/memories/project_patch_to_diff.md"
        memory.save(note, memory.read(note) + "Checked by hand on Monday.\n")
        await pilot.press("ctrl+y")
        await wait_for(pilot, lambda: pane.listing.trust is not None and pane.listing.trust.conflicts)
        options.highlighted = next(i for i in range(options.option_count) if str(options.get_option_at_index(i).id).startswith("pending:"))
        await wait_for(pilot, lambda: "Not applied" in str(app.query_one("#memory-text").render()))
        await shooter.shot(app, pilot, "memory_conflict_160x48")


def code_change_script() -> dict:
    """The rename finished by the text editor, held for review: Monday's "Finish it"."""
    from agent.eval import sources
    from agent.tools.text_editor import EDITOR_NAME
    from tests.double.server import reply, text, tool_use

    edit = {"command": "str_replace", "path": sources.ORCHESTRATOR, "old_str": sources.LEFT_OVER, "new_str": sources.FINISHED}
    return {"replies": [
        reply(text("The last call site still reads `file.Patch`; here is the change."), tool_use(EDITOR_NAME, edit)),
    ], "default": reply(text("Applied: the last call site reads `file.Diff` now."))}


async def code_review_states(world: World, shooter: Shooter, work: Path) -> None:
    """A reply's code change waiting for the user, at both sizes; kept as is each time."""
    from tui.widgets.conversation.code_review import CodeReviewBar
    from tui.widgets.prompt import Prompt

    for size in (WIDE, NARROW):
        with DoubleProcess(code_change_script(), work / f"double-code-{size[0]}x{size[1]}") as double:
            os.environ.update(double.env)
            app = new_app(world)
            async with app.run_test(size=size) as pilot:
                prompt = app.query_one("#prompt", Prompt)
                prompt.value = "Finish the rename."
                await pilot.press("enter")
                await wait_for(pilot, lambda app=app: bool(app.query(CodeReviewBar)))
                await pilot.pause(1.0)
                await shooter.shot(app, pilot, f"code_change_held_{size[0]}x{size[1]}")
                await pilot.press("escape")
                await wait_for(pilot, lambda app=app: not app.running)


async def trust_states(world: World, shooter: Shooter, work: Path) -> None:
    """The first build in a repository not trusted yet: the dialog, at both sizes; answered no."""
    from agent.workspace_trust import TrustStore
    from tests.double.server import reply, text, tool_use
    from tui.screens.trust import TrustPrompt
    from tui.widgets.prompt import Prompt

    script = {"replies": [reply(text("Let me build it."), tool_use("build", {}))],
              "default": reply(text("I could not build it."))}
    TrustStore().remember(world.repo, None)
    try:
        for size in (WIDE, NARROW):
            with DoubleProcess(script, work / f"double-trust-{size[0]}x{size[1]}") as double:
                os.environ.update(double.env)
                app = new_app(world)
                async with app.run_test(size=size) as pilot:
                    prompt = app.query_one("#prompt", Prompt)
                    prompt.value = "Why is the build red?"
                    await pilot.press("enter")
                    await wait_for(pilot, lambda app=app: isinstance(app.screen, TrustPrompt))
                    await pilot.pause(1.0)
                    await shooter.shot(app, pilot, f"trust_prompt_{size[0]}x{size[1]}")
                    await pilot.press("escape")
                    await wait_for(pilot, lambda app=app: not app.running)
                TrustStore().remember(world.repo, None)
    finally:
        TrustStore().remember(world.repo, True)


async def command_states(world: World, shooter: Shooter, work: Path) -> None:
    """The agent asks to run a command: the command bar, at both sizes; answered no."""
    from tests.double.server import reply, text, tool_use
    from tui.screens.command import CommandPrompt
    from tui.widgets.prompt import Prompt

    run = {"command": "dotnet format --verify-no-changes && dotnet build -warnaserror",
           "reason": "check the formatting and that the build has no warnings"}
    script = {"replies": [reply(text("Let me check it."), tool_use("run_command", run))],
              "default": reply(text("Not run, fine."))}
    for size in (WIDE, NARROW):
        with DoubleProcess(script, work / f"double-command-{size[0]}x{size[1]}") as double:
            os.environ.update(double.env)
            app = new_app(world)
            async with app.run_test(size=size) as pilot:
                prompt = app.query_one("#prompt", Prompt)
                prompt.value = "Format the code and run the linter."
                await pilot.press("enter")
                await wait_for(pilot, lambda app=app: isinstance(app.screen, CommandPrompt))
                await pilot.pause(1.0)
                await shooter.shot(app, pilot, f"command_bar_{size[0]}x{size[1]}")
                await pilot.press("n")
                await wait_for(pilot, lambda app=app: not app.running)


def rewind_script() -> dict:
    """Three turns that change the repository (code writes auto): the rename finished, a
    changelog written, and its entry reworded; then the rewind list over them."""
    from agent.eval import sources
    from agent.tools.text_editor import EDITOR_NAME
    from tests.double.server import reply, text, tool_use

    finish = {"command": "str_replace", "path": sources.ORCHESTRATOR, "old_str": sources.LEFT_OVER, "new_str": sources.FINISHED}
    log = {"command": "create", "path": "CHANGELOG.md", "file_text": "# Changes\n\n- ChangedFile.Patch is Diff now.\n"}
    reword = {"command": "str_replace", "path": "CHANGELOG.md", "old_str": "- ChangedFile.Patch is Diff now.",
              "new_str": "- Renamed ChangedFile.Patch to Diff (every call site)."}
    return {"replies": [
        reply(text("Finishing the rename."), tool_use(EDITOR_NAME, finish, id="t1")), reply(text("Done: it reads `file.Diff`.")),
        reply(text("Adding a changelog."), tool_use(EDITOR_NAME, log, id="t2")), reply(text("CHANGELOG.md is written.")),
        reply(text("Rewording it."), tool_use(EDITOR_NAME, reword, id="t3")), reply(text("Reworded.")),
    ], "default": reply(text("Fine."))}


async def rewind_states(world: World, shooter: Shooter, work: Path) -> None:
    """The rewind list after three turns that changed files, at both sizes; then the rewind
    itself puts the repository back as it was."""
    from tui.screens.rewind import RewindScreen

    os.environ["DEVAGENT_CODE_WRITES"] = "auto"
    try:
        for size in (WIDE, NARROW):
            with DoubleProcess(rewind_script(), work / f"double-rewind-{size[0]}x{size[1]}") as double:
                os.environ.update(double.env)
                app = new_app(world)
                async with app.run_test(size=size) as pilot:
                    for question in ("Finish the rename.", "Add a changelog entry for it.", "Reword the changelog entry."):
                        await run_turn(app, pilot, question)
                    await pilot.press("escape", "escape")
                    await wait_for(pilot, lambda app=app: isinstance(app.screen, RewindScreen) and len(app.screen.points) == 3)
                    await pilot.press("down")
                    await pilot.pause(0.5)
                    await shooter.shot(app, pilot, f"rewind_list_{size[0]}x{size[1]}")
                    await pilot.press("down", "enter")  # back to before the first: the repository as it was
                    await wait_for(pilot, lambda app=app: not isinstance(app.screen, RewindScreen))
                    await pilot.pause(0.5)
    finally:
        os.environ.pop("DEVAGENT_CODE_WRITES", None)


WELCOME_DETAIL = """## Since your last session (Friday)

**Commits** (git_log since Friday's HEAD)

- `Sam Rivera` Saturday: *Finish the rename: ReviewOrchestrator reads file.Diff*
  - M src/ClaudeReviewBot.Core/Review/ReviewOrchestrator.cs

**Working tree now** (git_status): clean, on `rename-patch-to-diff`.

**Memory evidence**

- *Rename Patch to Diff* cites `ReviewOrchestrator.cs:111`: **changed**; the line reads `file.Diff` now.

**Where you left off**: finishing the Patch to Diff rename; the last call site was left for Monday.

**Next step**: build Core to confirm the rename compiles, then update the memory."""


def welcome_script() -> dict:
    from tests.double.server import reply, text, tool_use

    detail = {"title": "Welcome back", "content": WELCOME_DETAIL, "format": "markdown"}
    return {"replies": [
        reply(text("Noted: the last call site waits for Monday.")),
        reply(tool_use("show_on_screen", detail, id="w1")),
        reply(text("Welcome back. Sam finished the rename on Saturday, so the call site your memory cites has "
                   "changed. Next: build Core to confirm it is green.")),
    ], "default": reply(text("Fine."))}


async def welcome_states(root: Path, shooter: Shooter) -> None:
    """The welcome-back briefing at both sizes: a session three days ago, a colleague's commit since."""
    from datetime import datetime, timedelta

    from agent.eval import sources
    from agent.loop.session import Session
    from agent.settings.config import AgentConfig
    from tests.repos import git

    for size in (WIDE, NARROW):
        world = build_world(root / f"welcome-{size[0]}x{size[1]}")
        world.apply()
        with DoubleProcess(welcome_script(), root / f"double-welcome-{size[0]}x{size[1]}") as double:
            os.environ.update(double.env)
            friday = datetime.now().astimezone() - timedelta(days=3)
            Session(world.repo, AgentConfig.from_env_and_args(None, world.repo), now=friday).send(
                "I'll finish the last call site on Monday.", lambda e: None)
            site = world.repo / sources.ORCHESTRATOR
            site.write_text(site.read_text().replace(sources.LEFT_OVER, sources.FINISHED))
            git(world.repo, "commit", "-qam", "Finish the rename: ReviewOrchestrator reads file.Diff",
                "--author=Sam Rivera <sam@example.com>")
            app = new_app(world)
            async with app.run_test(size=size) as pilot:
                await wait_for(pilot, lambda app=app: app.turns.ready.is_set() and not app.running
                               and app.screen_pane.current is not None)
                await pilot.pause(1.0)
                await shooter.shot(app, pilot, f"welcome_back_{size[0]}x{size[1]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "screenshots")
    parser.add_argument("--keep-svg", action="store_true")
    parser.add_argument("--only", choices=["code", "trust", "command", "rewind", "welcome"],
                        help="only these states (code: a held code change; trust: the trust dialog; command: the "
                             "command bar; rewind: the rewind list)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    shooter = Shooter(args.out.resolve(), args.keep_svg)
    with tempfile.TemporaryDirectory(prefix="devagent-shots-") as tmp:
        world = build_world(Path(tmp) / "world")
        world.apply()
        for name in ("DEVAGENT_MODEL", "DEVAGENT_EFFORT", "DEVAGENT_MEMORY"):
            os.environ.pop(name, None)
        if args.only in (None, "trust"):
            asyncio.run(trust_states(world, shooter, Path(tmp)))
        if args.only in (None, "code"):
            asyncio.run(code_review_states(world, shooter, Path(tmp)))
        if args.only in (None, "command"):
            asyncio.run(command_states(world, shooter, Path(tmp)))
        if args.only is None:
            asyncio.run(main_states(world, shooter, Path(tmp)))
            asyncio.run(first_run(world, shooter))
            asyncio.run(memory_review(world, shooter))
        if args.only in (None, "rewind"):
            asyncio.run(rewind_states(world, shooter, Path(tmp)))
        if args.only in (None, "welcome"):  # last: each size has a world of its own
            asyncio.run(welcome_states(Path(tmp), shooter))
    print(f"{len(shooter.made)} screenshots")
    return 0


if __name__ == "__main__":
    sys.exit(main())
