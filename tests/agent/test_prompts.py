"""The prompt files: what they must say, and what must never be in them."""

from __future__ import annotations

from datetime import UTC, datetime

from agent import prompts
from agent.loop.session import Session
from agent.settings.config import AgentConfig
from tests.agent.toolkit import EchoTool


def test_system_prompt_is_voice_first_and_points_long_output_to_the_screen():
    text = prompts.system_prompt()
    assert "voice-first" in text and "show_on_screen" in text
    assert "short" in text.lower()


def test_system_prompt_names_every_developer_tool():
    from agent.tools import developer_tools

    text = prompts.system_prompt()
    missing = [tool.name for tool in developer_tools() if tool.name not in text]
    assert missing == []
    assert "say in one sentence what you found" in text


def test_memory_rules_say_what_to_save_what_never_to_save_and_to_check():
    text = prompts.memory_rules()
    needed_phrases = (
        "preferences", "Conventions", "Plans", "Never save",
        "whether the build passes", "line numbers", "changed or uncommitted files", "counts of anything",
        "check it against the repository",
    )
    for needed in needed_phrases:
        assert needed in text, needed


def test_the_stable_prefix_is_the_same_from_day_to_day(tmp_path):
    repo = tmp_path / "sandbox" / "r"
    repo.mkdir(parents=True)
    for mode in ("none", "on-demand", "preloaded", "index"):
        friday = Session(repo, AgentConfig(memory_mode=mode), tools=[EchoTool()], now=datetime(2026, 11, 6, 9, tzinfo=UTC))
        monday = Session(repo, AgentConfig(memory_mode=mode), tools=[EchoTool()], now=datetime(2026, 11, 9, 9, tzinfo=UTC))
        assert friday.system == monday.system, mode
        assert friday.tool_definitions == monday.tool_definitions, mode
        assert "2026-11-09" not in str(monday.system)


def _quoted_after(text: str, lead: str) -> str:
    """The first double-quoted example after `lead` in the rules."""
    rest = text[text.index(lead) + len(lead):]
    return rest[rest.index('"') + 1 : rest.index('"', rest.index('"') + 1)]


def test_the_memory_rules_examples_agree_with_each_other_and_with_the_checks():
    from memory.check import day_names, state_lines
    from memory.citations import find
    from memory.notes import index_entries

    text = prompts.memory_rules()
    # A memory about the user holds in every repository: its example names nothing of one.
    about_user = _quoted_after(text, "/memories/user/ is about the user")
    assert not find(about_user) and "project" not in about_user.lower()
    # What the rules call state is what `memory check` calls state; a citation is not state.
    state = _quoted_after(text, "It is out of date by the next session: ")
    assert state_lines(state) == [state]
    cited = _quoted_after(text, "not an error: ")
    assert state_lines(cited) == [] and [(c.path, c.start) for c in find(cited)] == [("shop/orders.py", 88)]
    # The plan is saved with the date it means, and no example carries a day name beside a date.
    assert "is saved as \"The user moves the mailer to the queue on 2026-03-12.\"" in text
    counter = '("Thursday 2026-03-12")'
    assert counter in text and day_names(text.replace(counter, "")) == []
    example = next(line.strip() for line in text.splitlines() if line.strip().startswith("- [") and ".md)" in line)
    assert [entry.target for entry in index_entries(example)] == ["mailer-queue.md"]


def test_the_prompt_and_the_tools_fit_the_first_request_budget(tmp_path):
    # benchmarks/first_request.py prints each part; this holds the sum where a merge could
    # bring a long description back. Memory and the repository's instructions are apart.
    import json

    from agent.loop.claude import as_sent

    repo = tmp_path / "sandbox" / "r"
    repo.mkdir(parents=True)
    session = Session(repo, AgentConfig(memory_mode="index"), now=datetime(2026, 11, 9, 9, tzinfo=UTC))
    assert session.instructions.text() == ""
    tools = sum(len(json.dumps(tool, ensure_ascii=False)) for tool in as_sent(session.tool_definitions))
    assert {"git_log", "run_command", "memory", "str_replace_based_edit_tool"} <= {t["name"] for t in session.tool_definitions}
    assert len(session.system[0]["text"]) + tools <= 11_000
