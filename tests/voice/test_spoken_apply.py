"""A held code change applied by voice: "Apply." is spoken into the recorder, heard by the
real Whisper model, and the app takes the transcript as the decision, not as a question."""

from __future__ import annotations

import pytest

from agent.tools.text_editor import EDITOR_NAME
from tests.double.server import tool_use
from tests.tui.conftest import wait_for

# how long one wait may take: the real Whisper model loads, or a turn runs, within one
WAIT = 60.0

pytestmark = pytest.mark.audio
SOURCE = "class ReviewOrchestrator {}\n"


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_saying_apply_applies_the_held_change(tmp_path, speech_wav, transcriber, claude_double):
    from agent.settings.config import AgentConfig
    from agent.voice.controller import VoiceController
    from agent.voice.push_to_talk import PushToTalk
    from agent.voice.recorder import Recorder, WavSource
    from agent.voice.stack import VoiceStack
    from memory.store import MemoryStore
    from tui.app import DevAgentApp
    from tui.widgets.conversation.code_review import CodeReviewBar
    from tui.widgets.prompt import Prompt

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "Review.cs").write_text(SOURCE)

    def factory(repo_path, sink):
        recorder = Recorder(WavSource(speech_wav("Apply."), speed=4.0, lead_silence=0.3, noise=0.002))
        return VoiceStack(PushToTalk(recorder, transcriber, sink), None, None)

    claude_double.add(tool_use(EDITOR_NAME, {"command": "str_replace", "path": "Review.cs",
                                             "old_str": "ReviewOrchestrator", "new_str": "ReviewCoordinator"}))
    claude_double.add("Renamed.")
    controller = VoiceController(stack_factory=factory)
    app = DevAgentApp(repo, AgentConfig(thinking="off"), store=MemoryStore.for_repository(repo), voice=controller)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, controller.loaded.is_set, timeout=WAIT, what="voice to load")
        prompt = app.query_one("#prompt", Prompt)
        prompt.value = "Finish the rename."
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(app.query(CodeReviewBar)), timeout=WAIT, what="the change to wait")
        assert (repo / "Review.cs").read_text() == SOURCE
        await pilot.press("f2")
        await wait_for(pilot, lambda: not app.running, timeout=WAIT, what="the spoken apply to finish the turn")
        assert (repo / "Review.cs").read_text() == "class ReviewCoordinator {}\n"
        assert app.turns.next_queued() is None
        assert claude_double.messages_requests()[1].tool_results()[0]["content"].startswith("The user applied")
