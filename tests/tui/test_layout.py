"""Layout, pane keys, help, the command palette, and the first run without an API key."""

from __future__ import annotations

import subprocess
import threading

from textual.command import CommandList, CommandPalette
from textual.geometry import Region

from agent.voice.status import VoiceStatus, voice_off
from tests.tui.conftest import notified, wait_for
from tui.app import DevAgentApp
from tui.screens.help import HelpScreen
from tui.widgets.conversation.lines import Notice, UserTurn
from tui.widgets.memory.pane import MemoryPane
from tui.widgets.prompt import Prompt
from tui.widgets.status import StatusLine


async def test_wide_terminal_shows_three_panes(make_app, no_key):
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        assert app.conversation.display and app.screen_pane.display and app.memory_pane.display
        widths = [app.conversation.size.width, app.screen_pane.size.width, app.memory_pane.size.width]
        assert sum(widths) >= 150 and min(widths) >= 30
        assert app.focused is app.query_one("#prompt", Prompt)


async def test_narrow_terminal_keeps_conversation_and_memory(make_app, no_key):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.conversation.display and app.memory_pane.display
        assert not app.screen_pane.display
        assert app.conversation.size.width >= 44
        # F3 puts the screen pane where the conversation was; F3 again brings it back
        await pilot.press("f3")
        assert app.screen_pane.display and not app.conversation.display
        await pilot.press("f3")
        assert app.conversation.display and not app.screen_pane.display


async def test_panes_hide_and_resize_from_the_keyboard(make_app, no_key):
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        before = app.memory_pane.size.width
        await pilot.press("f8")
        await pilot.pause()
        assert app.memory_pane.size.width > before
        await pilot.press("f7", "f7")
        await pilot.pause()
        assert app.memory_pane.size.width < before
        # the first press goes to the pane, the second (from inside it) hides it
        await pilot.press("f4", "f4")
        await pilot.pause()
        assert not app.memory_pane.display
        await pilot.press("f3", "f3")
        await pilot.pause()
        assert not app.screen_pane.display
        assert app.conversation.size.width >= 150
        # with the memory pane hidden, F8 widens the screen pane instead
        await pilot.press("f3", "f4")
        await pilot.pause()
        app.screen_pane.query_one("#screen-body").focus()
        screen_before = app.screen_pane.size.width
        await pilot.press("f8")
        await pilot.pause()
        assert app.screen_pane.size.width > screen_before


async def test_first_run_without_a_key_explains_and_memory_still_works(make_app, no_key, store):
    from tests.tui.conftest import write_memory

    write_memory(store, "user_style.md", "Style", "how answers should sound", "Short answers.")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.query_one(MemoryPane).names == ["Style"], 10, "the memory pane")
        (notice,) = app.query(Notice)
        words = str(notice.render())
        assert "ANTHROPIC_API_KEY" in words and "export" in words
        assert "\n" not in words.strip(), "one paragraph"
        prompt = app.query_one("#prompt", Prompt)
        prompt.value = "hello?"
        await pilot.press("enter")
        await pilot.pause()
        assert len(app.query(UserTurn)) == 1
        assert [n.kind for n in app.query(Notice)] == ["setup", "error"]
        assert app.turns.session is None and not app.running


async def test_status_line_names_repo_branch_model_memory_and_voice(make_app, no_key):
    app = make_app(model="claude-haiku-5-5", effort="low", memory_mode="index")
    async with app.run_test(size=(160, 48)) as pilot:
        status = app.query_one(StatusLine)
        await wait_for(pilot, lambda: status.info.branch == "main", 5, "the branch")
        line = status.render().plain
        for part in ("shop", "main", "haiku-5-5·low", "mem:index", "voice: off"):
            assert part in line, part


async def test_status_line_drops_detail_before_the_repository_when_narrow(make_app, no_key):
    app = make_app()
    async with app.run_test(size=(40, 20)) as pilot:
        await pilot.pause()
        line = app.query_one(StatusLine).render().plain
        assert "shop" in line and len(line) <= 40


async def test_status_line_at_80_columns_keeps_everything_and_shortens_the_branch(make_app, repo, no_key):
    from agent.events import Usage

    subprocess.run(["git", "switch", "-q", "-c", "rename-patch-to-diff-in-orders"], cwd=repo, check=True)
    app = make_app(model="claude-haiku-5-5", memory_mode="preloaded")
    async with app.run_test(size=(80, 24)) as pilot:
        status = app.query_one(StatusLine)
        await wait_for(pilot, lambda: status.info.branch is not None, 5, "the branch")
        app.set_voice_state(voice_off("no audio input device"))
        status.update_info(usage=Usage(input_tokens=10234, output_tokens=300, cache_read_tokens=8900, cost_usd=0.0123))
        await pilot.pause()
        line = status.render().plain
        assert len(line) <= 80
        for part in ("shop on rename", "…", "haiku-5-5", "mem:preloaded", "10k", "300", "$0.01", "voice: off"):
            assert part in line, (part, line)


async def test_status_line_keeps_the_reason_voice_is_off_when_there_is_room(make_app, no_key):
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        app.set_voice_state(voice_off("no audio input device"))
        await pilot.pause()
        assert "voice: off — no audio input device" in app.query_one(StatusLine).render().plain


async def test_reason_voice_is_off_is_reachable_on_a_narrow_terminal(make_app, no_key):
    app = make_app()
    messages = notified(app)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        reason = "the audio input device will not record: Invalid sample rate [PaErrorCode -9997]"
        app.set_voice_state(voice_off(reason))
        await pilot.pause()
        line = app.query_one(StatusLine).render().plain
        assert "voice: off" in line and reason not in line
        await pilot.press("f2")
        await pilot.pause()
        assert any(f"Voice is off: {reason}" in m for m in messages)
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        lines = app.screen.query_one("#help-text").render_lines(Region(0, 0, 200, 10))
        assert reason in " ".join("".join(segment.text for segment in strip).strip() for strip in lines)


async def test_a_first_time_user_is_told_how_to_start(make_app, claude_double):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        notices = [str(n.render()) for n in app.query(Notice)]
        assert len(notices) == 1 and "F2" in notices[0] and "F1" in notices[0]


async def test_voice_turned_off_by_the_user_is_not_probed(repo, store, no_key):
    from agent.settings.config import AgentConfig

    app = DevAgentApp(repo, AgentConfig(), store=store, voice_off="turned off (--no-voice)")
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause(0.5)
        assert not app.probe_voice
        assert str(app.query_one(StatusLine).info.voice) == "voice: off — turned off (--no-voice)"


async def test_the_talk_key_is_configurable(repo, store, claude_double):
    from agent.settings.config import AgentConfig

    app = DevAgentApp(repo, AgentConfig(), store=store, probe_voice=False, talk_key="f9")
    messages = notified(app)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.pause()
        assert "press F9 to talk" in str(app.query_one(Notice).render())
        await pilot.press("f2")
        await pilot.pause()
        assert not messages
        await pilot.press("f9")
        await pilot.pause()
        assert any("Voice is off" in m for m in messages)
        await pilot.press("f1")
        lines = app.screen.query_one("#help-text").render_lines(Region(0, 0, 200, 40))
        assert "F9 again or Enter stops" in " ".join("".join(s.text for s in strip) for strip in lines)


async def test_voice_seam(make_app, no_key):
    app = make_app(probe_voice=True)
    messages = notified(app)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("f2")
        await pilot.pause()
        assert any("type your question" in m for m in messages)
        # without a controller the line still says why voice is off here, in one line
        status = app.query_one(StatusLine)
        await wait_for(pilot, lambda: status.info.voice.off and bool(status.info.voice.reason), 10, "the probe")
        voice = status.info.voice
        assert voice.off and voice.reason and str(voice).startswith("voice: off — ")
        app.set_voice_state(VoiceStatus("ready", detail="(F2)"))
        assert str(app.query_one(StatusLine).info.voice) == "voice: ready (F2)"


async def test_voice_controller_gets_keys_and_reply(make_app, claude_double):
    from tests.double.server import text

    calls = []

    class Recording:
        """A controller that records what the app asked of it (the seam's contract)."""

        def attach(self, app):
            calls.append("attach")
            app.set_voice_state(VoiceStatus("ready"))

        def push_to_talk(self):
            calls.append("talk")

        def cancel(self):
            calls.append("cancel")
            return False

        def turn_started(self):
            calls.append("turn started")

        def reply_delta(self, text):
            calls.append(("delta", text))

        def reply_finished(self, cancelled):
            calls.append(("finished", cancelled))

        def close(self):
            calls.append("close")

        def enter(self):
            calls.append("enter")
            return self.recording

        def toggle_mute(self):
            calls.append("mute")
            return True

        recording = False
        loaded = threading.Event()

    controller = Recording()
    app = make_app()
    app.voice_factory = lambda: controller
    claude_double.add(text("Spoken."))
    async with app.run_test(size=(120, 40)) as pilot:
        # the voice starts once the session is up (tui.app._session_loaded), not with the first frame
        status = app.query_one(StatusLine)
        await wait_for(pilot, lambda: str(status.info.voice) == "voice: ready", 20, "the voice")
        await pilot.press("f2")
        await app.submit_turn("transcribed words")
        await wait_for(pilot, lambda: ("finished", False) in calls, 20, "the reply")
        assert str(app.query_one(UserTurn).render()) == "transcribed words"
        assert calls.index("turn started") < calls.index(("delta", "Spoken."))
        await pilot.press("escape")
        # Enter while recording ends the recording and sends nothing
        controller.recording = True
        prompt = app.query_one("#prompt")
        prompt.value = "typed"
        await pilot.press("enter")
        assert prompt.value == "typed" and len(app.query(UserTurn)) == 1
        await pilot.press("f6")
    assert calls[0] == "attach" and "talk" in calls and "cancel" in calls
    assert "enter" in calls and "mute" in calls
    assert "".join(c[1] for c in calls if isinstance(c, tuple) and c[0] == "delta") == "Spoken."


async def test_a_typed_question_warms_the_voice(make_app, claude_double):
    from tests.double.server import text

    calls = []

    class Warming:
        loaded = threading.Event()

        def attach(self, app):
            app.set_voice_state(VoiceStatus("ready"))

        def enter(self):
            return False

        def turn_started(self):
            calls.append("turn started")

        def reply_delta(self, text):
            calls.append("delta")

        def reply_finished(self, cancelled):
            calls.append("finished")

        def close(self):
            pass

    app = make_app()
    app.voice_factory = Warming
    claude_double.add(text("Warm."))
    async with app.run_test(size=(120, 40)) as pilot:
        # a question typed once the voice is attached (it starts after the session is up)
        await wait_for(pilot, lambda: str(app.status.info.voice) == "voice: ready", 20, "the voice")
        app.prompt.value = "a typed question"
        await pilot.press("enter")
        await wait_for(pilot, lambda: "finished" in calls, 20, "the reply")
    assert calls[0] == "turn started" and "delta" in calls


async def test_help_screen_opens_and_closes(make_app, no_key):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_command_palette_lists_the_app_actions(make_app, no_key):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        titles = [c.title for c in app.get_system_commands(app.screen)]
        for title in ("Help", "Cancel turn", "Toggle screen pane", "Toggle memory pane", "New memory", "Delete memory", "Push to talk"):
            assert title in titles
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        for key in "toggle memory":
            await pilot.press("space" if key == " " else key)
        # the palette searches in the background; Enter before a hit would run nothing
        commands = app.screen.query_one(CommandList)
        await wait_for(pilot, lambda: commands.option_count > 0, 10, "the palette's search")
        await pilot.press("enter")
        await pilot.pause()
        assert not app.memory_pane.display


def test_footer_shows_the_main_keys():
    keys = {b.key: b for b in DevAgentApp.BINDINGS}
    for key in ("escape", "f1", "f2", "f3", "f4"):
        assert keys[key].show


def test_run_app_refuses_a_missing_folder(tmp_path, capsys):
    import gc
    from argparse import Namespace

    from tui.cli import run_app

    code = run_app(Namespace(path=str(tmp_path / "nowhere"), memory="preloaded", model=None, effort=None))
    assert code == 2
    assert "is not a folder" in capsys.readouterr().out
    assert gc.isenabled()  # held for the start-up that never came, and given back


async def test_a_folder_that_is_not_a_repository_opens(tmp_path, user_dirs, no_key):
    from agent.settings.config import AgentConfig
    from memory.store import MemoryStore

    folder = tmp_path / "notes"
    folder.mkdir()
    app = DevAgentApp(folder, AgentConfig(), store=MemoryStore.for_repository(folder), probe_voice=False)
    async with app.run_test(size=(100, 30)) as pilot:
        status = app.query_one(StatusLine)
        await wait_for(pilot, lambda: "notes" in status.render().plain, 10, "the status line")
        assert app.query_one(MemoryPane).listing.problem is None


async def test_status_line_with_a_long_repository_and_branch_at_80_columns():
    from textual.app import App

    from agent.events import Usage

    class Bar(App):
        def compose(self):
            yield StatusLine()

    app = Bar()
    async with app.run_test(size=(80, 3)) as pilot:
        status = app.query_one(StatusLine)
        status.update_info(repo="ClaudeReviewBot", branch="rename-patch-to-diff", model="claude-haiku-5-5", effort="low",
                           memory_mode="preloaded", voice=voice_off("no audio input device"),
                           usage=Usage(input_tokens=14234, output_tokens=418, cache_read_tokens=12000, cost_usd=0.0017))
        await pilot.pause()
        line = status.render().plain
        assert len(line) <= 80
        # the repository gives way before the branch, and nothing else is dropped
        assert "… on rename" in line
        for part in ("haiku-5-5", "mem:preloaded", "14k", "418", "$0.0017", "voice: off"):
            assert part in line, (part, line)
