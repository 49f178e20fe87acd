"""A broken config.toml: the app starts with the defaults and says in one line what it ignored."""

from __future__ import annotations

from agent.settings.config import AgentConfig, config_file
from tests.tui.conftest import wait_for
from tui.widgets.conversation.lines import Notice


async def test_the_app_starts_with_defaults_and_names_the_ignored_key(repo, store, no_key, monkeypatch):
    from tui.app import DevAgentApp

    monkeypatch.delenv("DEVAGENT_EFFORT", raising=False)
    path = config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('repos = "nope"\neffort = "extreme"\n')
    app = DevAgentApp(repo, AgentConfig.from_env_and_args(None, repo), store=store, probe_voice=False)
    async with app.run_test(size=(120, 40)) as pilot:
        def shown() -> list[str]:
            return [str(n.render()) for n in app.query(Notice) if n.kind == "error"]

        await wait_for(pilot, lambda: bool(shown()), 10, "the settings notice")
        (line,) = shown()
        assert str(path) in line and "repos was ignored" in line and "effort was ignored" in line
        assert app.config.effort == "low"
