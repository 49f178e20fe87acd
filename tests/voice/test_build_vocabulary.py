"""A build the model runs in the app teaches push-to-talk its diagnostic codes: the next
recording expects "CS0246" before any word of the repository. Through the real app, the
real SDK against the Claude double, and a build command set in the user's config.toml."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agent.voice.controller import VoiceController
from agent.voice.push_to_talk import PushToTalk
from agent.voice.recorder import Recorder, WavSource
from agent.voice.stack import VoiceStack
from agent.voice.stt import Transcriber
from tests.double.server import text, tool_use
from tests.tui.conftest import wait_for
from tests.tui.test_turns import ask, finished

REPOSITORY_WORDS = ("ReviewOrchestrator", "OrderPatch")


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def configured_repo(tmp_path, user_dirs) -> Path:
    """A repository with no toolchain of its own; its build is the one config.toml names
    under XDG_CONFIG_HOME (the user_dirs fixture's)."""
    repo = tmp_path / "shop"
    repo.mkdir()
    script = repo / "build.sh"  # inside: build runs in the sandbox, which shows only the repository
    script.write_text(
        "echo 'src/Orders.cs(12,5): error CS0246: The type or namespace name Patch could not be found'\n"
        "echo 'Build FAILED.'\nexit 1\n"
    )
    (user_dirs["config"] / "devagent").mkdir()
    (user_dirs["config"] / "devagent" / "config.toml").write_text(f'[repos."{repo}"]\nbuild = "sh {script}"\n')
    return repo


@pytest.mark.anyio
async def test_a_build_run_by_the_model_puts_its_codes_at_the_head_of_the_vocabulary(configured_repo, claude_double):
    from agent.settings.config import AgentConfig
    from memory.store import MemoryStore
    from tui.app import DevAgentApp

    config = AgentConfig(thinking="off").for_repository(configured_repo)  # reads config.toml
    assert config.build_command and config.build_command.startswith("sh ")

    def factory(repo_path, sink):
        # silence: nothing is recorded here; the transcriber is never loaded
        recorder = Recorder(WavSource(samples=np.zeros(16000, dtype=np.float32)))
        return VoiceStack(PushToTalk(recorder, Transcriber(), sink, vocabulary=REPOSITORY_WORDS), None, None)

    controller = VoiceController(stack_factory=factory)
    app = DevAgentApp(configured_repo, config, store=MemoryStore.for_repository(configured_repo), voice=controller)
    claude_double.add(tool_use("build", {}))
    claude_double.add(text("One error: CS0246 in Orders.cs."))
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: controller.stack is not None, 20, "the voice to load")
        assert controller.stack.push_to_talk.vocabulary == REPOSITORY_WORDS
        await ask(pilot, "build it")
        await finished(pilot)
        vocabulary = controller.stack.push_to_talk.vocabulary
        assert vocabulary[:1] == ("CS0246",), vocabulary
        assert vocabulary[1:] == REPOSITORY_WORDS
