"""Sonnet 5.5's notes between tool calls: asked for, shown apart from the answer, sent back
unchanged; and the double refuses the `display` values, headers and effort changes the API
refuses (tests/double/rules.py, rules 16 to 18)."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path

import anthropic
import pytest

from agent.events import Progress, ToolInputArriving, TurnFinished
from agent.loop.session import Session
from tests.agent.sessions import session as new_session
from tests.agent.toolkit import EchoTool
from tests.double.server import reply, text, thinking, tool_use
from tui.cli.ask import Printer

FRIDAY = datetime(2026, 11, 6, 17, 30, tzinfo=UTC)
NOTE = "Checking what the echo tool says first."
BETA = "thinking-display-updates-2026-08-18"


def session(tmp_path: Path, **config) -> Session:
    config.setdefault("memory_mode", "none")
    config.setdefault("model", "claude-sonnet-5-5")
    return new_session(tmp_path, tools=[EchoTool()], now=FRIDAY, **config)


def run(s: Session, words: str) -> list:
    events: list = []
    s.send(words, events.append)
    return events


def sent_back(claude_double) -> list[dict]:
    """The thinking blocks the second request sent back."""
    assistant = claude_double.messages_requests()[1].messages[1]
    return [b for b in assistant["content"] if b["type"] == "thinking"]


@pytest.mark.parametrize("thinking_setting", ["adaptive", "off"])
def test_the_notes_between_tool_calls_are_shown_as_progress_not_as_the_answer(claude_double, tmp_path, thinking_setting):
    # "off" is between_tools on Sonnet 5.5, whose notes come with their text; adaptive
    # thinking returns them only under a display that does (the default omits them).
    claude_double.add(reply(thinking(NOTE, "sig-note"), tool_use("echo", {"text": "x"}, id="t1")), text("Done."))
    events = run(session(tmp_path, thinking=thinking_setting, effort="low"), "echo x")
    assert [e.text for e in events if isinstance(e, Progress)] == [NOTE]
    finished = next(e for e in events if isinstance(e, TurnFinished))
    assert finished.text == "Done."
    # The block goes back as it came, signature and all.
    assert sent_back(claude_double) == [{"type": "thinking", "thinking": NOTE, "signature": "sig-note"}]


def test_adaptive_thinking_on_sonnet_5_5_asks_for_the_notes_and_nothing_else(claude_double, tmp_path):
    claude_double.add(text("Hi."))
    run(session(tmp_path), "hi")
    request = claude_double.messages_requests()[0]
    assert request.body["thinking"] == {"type": "adaptive", "display": "updates"}
    assert BETA in request.headers["anthropic-beta"]


def test_between_tools_sends_no_display(claude_double, tmp_path):
    claude_double.add(text("Hi."))
    run(session(tmp_path, thinking="off", effort="low"), "hi")
    request = claude_double.messages_requests()[0]
    assert request.body["thinking"] == {"type": "between_tools"}
    assert BETA not in request.headers.get("anthropic-beta", "")


def test_reasoning_of_other_models_is_not_shown_as_progress(claude_double, tmp_path):
    claude_double.add(reply(thinking("I should call echo.", "sig-r"), tool_use("echo", {"text": "x"}, id="t1")), text("Done."))
    events = run(session(tmp_path, model="claude-haiku-5-5"), "echo x")
    assert not [e for e in events if isinstance(e, Progress)]
    assert "display" not in claude_double.messages_requests()[0].body["thinking"]


def test_a_progress_note_is_spoken_as_its_first_sentence():
    long = "Reading the build log now. Then I will look at the failing test in tests/test_app.py."
    assert Progress(1, long).spoken == "Reading the build log now."
    endless = "Going through every file of the solution " + "and more " * 30
    spoken = Progress(1, endless).spoken
    assert spoken.endswith("…") and len(spoken) <= 81


# --- devagent ask ---------------------------------------------------------------------


def test_ask_prints_progress_notes_and_a_slow_tool_input_to_stderr(claude_double, tmp_path):
    out, err = io.StringIO(), io.StringIO()
    printer = Printer(out, err)
    big = {"text": "line\n" * 400}
    claude_double.add(
        reply(thinking("Writing the \x1b[31mlong\x1b[0m echo now.", "sig-w"), tool_use("echo", big, id="t1"), input_seconds=2.5),
        text("Written."),
    )
    s = session(tmp_path)
    arrivals: list = []

    def sink(event) -> None:
        if isinstance(event, ToolInputArriving):
            arrivals.append(event)
        printer(event)

    s.send("echo a lot", sink)
    said = err.getvalue()
    # as in the app (tui.format.sanitize): colour codes carry no content and go, and no escape is left
    assert "[… Writing the long echo now.]" in said and "\x1b" not in said
    assert len(arrivals) > 1, "the input should have been heard arriving more than once"
    assert said.count("[writing echo…]") == 1
    assert out.getvalue().startswith("Written.")


# --- the double ----------------------------------------------------------------------

HI = [{"role": "user", "content": "hi"}]


def client(double) -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key="test", base_url=double.url, max_retries=0)


REFUSED = [
    ("updates without its beta header", "claude-sonnet-5-5", {"type": "adaptive", "display": "updates"}, [], "needs the anthropic-beta header"),
    ("updates on a model without it", "claude-haiku-5-5", {"type": "adaptive", "display": "updates"}, [BETA], "not supported for model"),
    ("a display between_tools does not take", "claude-sonnet-5-5", {"type": "between_tools", "display": "updates"}, [BETA], "Extra inputs"),
    ("a display that does not exist", "claude-sonnet-5-5", {"type": "adaptive", "display": "everything"}, [BETA], "'summarized' or 'omitted'"),
]


@pytest.mark.parametrize("why, model, thinking_param, betas, words", REFUSED, ids=[c[0] for c in REFUSED])
def test_the_double_refuses_a_display_the_api_refuses(claude_double, why, model, thinking_param, betas, words):
    claude_double.add(reply("never sent"))
    with pytest.raises(anthropic.BadRequestError, match=words):
        client(claude_double).beta.messages.create(
            model=model, max_tokens=100, messages=HI, thinking=thinking_param, betas=betas,
            output_config={"effort": "low"},
        )
    assert claude_double.pending() == 1


def test_the_double_omits_thinking_text_on_sonnet_5_5_unless_asked(claude_double):
    claude_double.add(reply(thinking(NOTE, "s1"), text("a")), reply(thinking(NOTE, "s2"), text("b")))
    plain = client(claude_double).messages.create(model="claude-sonnet-5-5", max_tokens=100, messages=HI)
    asked = client(claude_double).beta.messages.create(
        model="claude-sonnet-5-5", max_tokens=100, messages=HI, thinking={"type": "adaptive", "display": "updates"}, betas=[BETA]
    )
    assert plain.content[0].thinking == "" and plain.content[0].signature == "s1"
    assert asked.content[0].thinking == NOTE


def test_the_double_refuses_a_change_of_effort_mid_conversation_with_between_tools(claude_double):
    claude_double.add(reply(thinking(NOTE, "s-low"), tool_use("echo", {"text": "x"}, id="t1")), reply("fine"), reply("never"))
    tools = [EchoTool().definition()]
    first = client(claude_double).messages.create(
        model="claude-sonnet-5-5", max_tokens=100, messages=HI, tools=tools, thinking={"type": "between_tools"},
        output_config={"effort": "low"},
    )
    back = [*HI, {"role": "assistant", "content": [b.to_dict() for b in first.content]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "echo: x"}]}]

    def again(effort: str):
        return client(claude_double).messages.create(
            model="claude-sonnet-5-5", max_tokens=100, messages=back, tools=tools, thinking={"type": "between_tools"},
            output_config={"effort": effort},
        )

    with pytest.raises(anthropic.BadRequestError, match="effort cannot change"):
        again("medium")
    assert again("low").content[0].text == "fine"
