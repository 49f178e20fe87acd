"""What the user does to memory mid-session is what the next request says: a memory deleted,
edited or added is rebuilt into the system block (the old text is not sent again, one cache
write) and named in a note; and a resumed session reads memory as it is now."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from agent.conversation import saved_sessions as sessions
from agent.loop.resume import open_saved
from agent.loop.session import Session
from agent.recall.briefing import EMPTY
from agent.settings.config import AgentConfig
from memory.roots import open_memory
from tests.agent.sessions import session as new_session
from tests.agent.toolkit import EchoTool
from tests.double.server import reply, text, thinking, tool_use

MONDAY = datetime(2026, 11, 9, 9, 0, tzinfo=UTC)


def note(name: str, body: str) -> str:
    return f"---\nname: {name}\ntype: project\ndescription: about {name}\n---\n{body}\n"


def write(store, path: str, body: str) -> None:
    assert store.run({"command": "create", "path": path, "file_text": note(Path(path).stem, body)})[1] is False


def session(repo: Path, mode: str = "preloaded") -> Session:
    return new_session(repo, tools=[EchoTool()], now=MONDAY, memory_mode=mode)


def ask(double, session: Session, words: str):
    double.add(reply(text("Fine.")))
    session.send(words, lambda e: None)
    return double.messages_requests()[-1]


def test_a_memory_deleted_edited_or_added_mid_session_reaches_the_next_request(claude_double, repo):
    store = open_memory(repo)
    write(store, "/memories/deploy.md", "Deploys go out on Fridays.")
    write(store, "/memories/db.md", "The database is Postgres 14.")
    talk = session(repo)
    first = ask(claude_double, talk, "When do we deploy?")
    assert "Deploys go out on Fridays." in first.system_text()

    # Deleted from the pane, edited in an editor, written by another session.
    (Path(store.repository.directory) / "deploy.md").unlink()
    (Path(store.repository.directory) / "db.md").write_text(note("db", "The database is Postgres 16 now."))
    write(store, "/memories/ci.md", "CI runs on every push.")

    second = ask(claude_double, talk, "Anything else?")
    told = second.last_user_text()
    assert "- /memories/deploy.md: deleted" in told and "- /memories/db.md: edited" in told and "- /memories/ci.md: new" in told
    # The block is rebuilt: what the user deleted or rewrote is not sent again, and no note quotes it.
    assert "Fridays" not in json.dumps(second.body) and "Postgres 14" not in json.dumps(second.body)
    assert "Postgres 16 now." in second.system_text() and "CI runs on every push." in second.system_text()
    assert "Postgres 16" not in told
    assert second.body["system"][0] == first.body["system"][0]  # the stable prompt is still read from the cache

    # Told once, and what the model wrote itself is not told back to it.
    claude_double.add(reply(tool_use("memory", {"command": "create", "path": "/memories/own.md", "file_text": note("own", "Mine.")}, id="toolu_1")))
    claude_double.add(reply(text("Saved.")))
    talk.send("Remember that we use Postgres 16.", lambda e: None)
    assert (Path(store.repository.directory) / "own.md").exists()
    fourth = ask(claude_double, talk, "And?")
    assert "Memory changed" not in fourth.last_user_text()
    assert "Memory changed" in json.dumps(fourth.messages)  # the earlier note stays in the history


def test_an_edit_to_the_index_reaches_an_index_session(claude_double, repo):
    store = open_memory(repo)
    index = Path(store.repository.directory) / "MEMORY.md"
    index.parent.mkdir(parents=True, exist_ok=True)
    index.write_text("- [deploy](deploy.md): when deploys go out\n")
    talk = session(repo, "index")
    assert "when deploys go out" in ask(claude_double, talk, "hi").system_text()
    index.write_text(index.read_text() + "- [release](release.md): how releases are cut\n")
    after = ask(claude_double, talk, "and?")
    assert "- /memories/MEMORY.md: edited" in after.last_user_text() and "how releases are cut" in after.system_text()


def test_a_credential_written_by_hand_is_masked_in_the_note(claude_double, repo):
    talk = session(repo)
    ask(claude_double, talk, "hi")
    store = open_memory(repo)
    secret = "sk-ant-api03-" + "A1b2C3d4E5" * 9 + "-AAAAAAAA"
    (Path(store.repository.directory) / "keys.md").write_text(note("keys", f"The key is {secret}"))
    after = ask(claude_double, talk, "and?")
    assert "- /memories/keys.md: new" in after.last_user_text() and secret not in json.dumps(after.body)


def test_a_resumed_session_reads_memory_as_it_is_now(claude_double, repo):
    talk = session(repo)
    first = ask(claude_double, talk, "What do we sell?")
    assert EMPTY in first.system_text()
    store = open_memory(repo)
    write(store, "/memories/later.md", "A memory written since.")
    resumed, _ = open_saved(
        repo, AgentConfig(memory_mode="preloaded"), sessions.session_id(talk.transcript.path), now=MONDAY + timedelta(hours=3)
    )
    after = ask(claude_double, resumed, "And now?")
    assert "A memory written since." in after.system_text() and EMPTY not in after.system_text()
    # The conversation itself is the one resumed.
    assert "What do we sell?" in json.dumps(after.messages)


def test_a_memory_deleted_in_the_pane_is_never_sent_again_at_the_cost_of_one_cache_write(claude_double, repo):
    claude_double.simulate_cache = True
    store = open_memory(repo)
    write(store, "/memories/deploy.md", "Deploys go out on Fridays, from the release branch.")
    write(store, "/memories/db.md", "The database is Postgres 14.")
    index = "- deploy.md: deploys go out on Fridays\n- db.md: which database\n"
    assert store.run({"command": "create", "path": "/memories/MEMORY.md", "file_text": index})[1] is False
    talk = session(repo)
    # A reply with thinking: it is bound to the system prompt it was made under (the double checks).
    claude_double.add(reply(thinking("The user asks about deploys.", signature="sig-1"), text("On Fridays.")))
    talk.send("When do we deploy?", lambda e: None)
    first = claude_double.messages_requests()[-1]
    assert "Deploys go out on Fridays" in first.system_text() and "deploys go out on Fridays" in first.system_text()

    message, refused, lines = store.forget("/memories/deploy.md")  # what the pane's delete does
    assert not refused and lines == ["- deploy.md: deploys go out on Fridays"], message

    second = ask(claude_double, talk, "And the database?")
    assert "on Fridays" not in json.dumps(second.body)  # neither the memory nor its index line
    assert "The database is Postgres 14." in second.system_text()
    assert "- /memories/deploy.md: deleted" in second.last_user_text()
    assert "thinking" not in json.dumps(second.messages)  # bound to the old block; the API would refuse it
    # One cache write: the stable prompt is read, the rebuilt block and the turns after it are
    # written once, and the next request reads all of that back.
    assert 0 < second.context.cache_read < first.context.cache_read + first.context.cache_write
    assert second.context.cache_write > 0
    third = ask(claude_double, talk, "Thanks.")
    # (the double counts tokens in proportion to characters: a token either way is rounding)
    assert third.context.cache_read >= second.context.cache_read + second.context.cache_write - 2
    assert third.body["system"] == second.body["system"]
    assert "Memory changed" not in third.last_user_text() and "on Fridays" not in json.dumps(third.body)


@pytest.mark.parametrize("mode", ["preloaded", "on-demand", "index"])
def test_a_memory_the_model_wrote_this_session_and_the_user_deleted_leaves_the_conversation(claude_double, repo, mode):
    claude_double.simulate_cache = True
    store = open_memory(repo)
    talk = session(repo, mode)
    secret_plan = "The user will sell the shop to Globex on 2026-12-18; nobody else knows."
    create = {"command": "create", "path": "/memories/plan.md", "file_text": note("plan", secret_plan)}
    claude_double.add(reply(thinking("I should save this.", signature="sig-a"), tool_use("memory", create, id="toolu_c")))
    claude_double.add(reply(tool_use("memory", {"command": "view", "path": "/memories/plan.md"}, id="toolu_v")))
    claude_double.add(reply(text("Saved.")))
    talk.send("Remember my plan for the shop, as I told you.", lambda e: None)
    assert "Globex" in json.dumps(claude_double.messages_requests()[-1].body)
    first = claude_double.messages_requests()[-1]

    message, refused, _ = store.forget("/memories/plan.md")  # the pane's delete
    assert not refused, message

    second = ask(claude_double, talk, "What else?")
    assert "Globex" not in json.dumps(second.body)
    assert "- /memories/plan.md: deleted" in second.last_user_text()
    calls = [b for m in second.messages if isinstance(m["content"], list) for b in m["content"] if b.get("type") == "tool_use"]
    assert [c["input"].get("file_text") for c in calls] == ["(a memory the user deleted since: its text is not sent again)", None]
    # The user's first words are still read from the cache; the rest is written once.
    assert 0 < second.context.cache_read < first.context.cache_read + first.context.cache_write
    third = ask(claude_double, talk, "Thanks.")
    assert third.context.cache_read >= second.context.cache_read + second.context.cache_write - 2


def resume(repo: Path, talk: Session, mode: str = "preloaded") -> Session:
    """The saved session, resumed the way `--resume` does, by a process that knows only its file."""
    resumed, said = open_saved(
        repo, AgentConfig(memory_mode=mode), sessions.session_id(talk.transcript.path), now=MONDAY + timedelta(hours=3)
    )
    assert resumed is not None, said
    return resumed


def valid_for_the_api(request) -> None:
    """Nothing the API would refuse: no blank text block, and no thinking (the double refuses
    thinking bound to a system block it no longer gets, and the request would have failed)."""
    blocks = [b for m in request.messages if isinstance(m["content"], list) for b in m["content"]]
    assert all(b["text"].strip() for b in blocks if b.get("type") == "text")
    assert not [b for b in blocks if b.get("type") in ("thinking", "redacted_thinking")]


def test_a_memory_deleted_while_no_session_ran_is_not_sent_again_by_the_resumed_session(claude_double, repo):
    store = open_memory(repo)
    write(store, "/memories/deploy.md", "Deploys go out on Fridays, from the release branch.")
    write(store, "/memories/db.md", "The database is Postgres 14.")
    talk = session(repo)
    view = {"command": "view", "path": "/memories/deploy.md"}
    claude_double.add(reply(thinking("Check the deploy memory.", signature="sig-d"), tool_use("memory", view, id="toolu_d")))
    claude_double.add(reply(text("As the memory says.")))
    talk.send("When do we deploy?", lambda e: None)
    assert "release branch" in claude_double.messages_requests()[-1].tool_results()[0]["content"]

    message, refused, _ = store.forget("/memories/deploy.md")  # the pane's delete, after the session ended
    assert not refused, message

    after = ask(claude_double, resume(repo, talk), "And the database?")
    assert "Fridays" not in json.dumps(after.body)
    assert "The database is Postgres 14." in after.system_text()
    assert "- /memories/deploy.md: deleted" in after.last_user_text()
    assert "When do we deploy?" in json.dumps(after.messages)  # the conversation is the one resumed
    valid_for_the_api(after)


def test_a_memory_deleted_mid_session_stays_out_of_the_conversation_when_it_is_resumed(claude_double, repo):
    store = open_memory(repo)
    write(store, "/memories/deploy.md", "Deploys go out on Fridays, from the release branch.")
    talk = session(repo, "on-demand")
    view = {"command": "view", "path": "/memories/deploy.md"}
    claude_double.add(reply(thinking("Check the deploy memory.", signature="sig-m"), tool_use("memory", view, id="toolu_m")))
    claude_double.add(reply(text("As the memory says.")))
    talk.send("When do we deploy?", lambda e: None)
    store.forget("/memories/deploy.md")
    live = ask(claude_double, talk, "And the database?")
    assert "Fridays" not in json.dumps(live.body)  # taken out of the running conversation
    # The transcript still holds what was said; a resumed session reads the scrub after it.
    assert "Fridays" in talk.transcript.path.read_text()

    after = ask(claude_double, resume(repo, talk, "on-demand"), "Anything else?")
    assert "Fridays" not in json.dumps(after.body)
    assert "Memory changed" not in after.last_user_text()  # told once, in the turn it happened
    valid_for_the_api(after)


@pytest.mark.parametrize("fingerprints", [True, False], ids=["fingerprints", "older-transcript"])
def test_a_memory_edited_or_deleted_by_hand_between_sessions_is_sent_as_it_is_now(claude_double, repo, fingerprints):
    store = open_memory(repo)
    write(store, "/memories/db.md", "The database is Postgres 14.")
    write(store, "/memories/deploy.md", "Deploys go out on Fridays.")
    talk = session(repo, "on-demand")
    claude_double.add(reply(tool_use("memory", {"command": "view", "path": "/memories/db.md"}, id="toolu_1"),
                            tool_use("memory", {"command": "view", "path": "/memories/deploy.md"}, id="toolu_2")))
    claude_double.add(reply(text("Noted.")))
    talk.send("What do we run?", lambda e: None)
    if not fingerprints:  # a transcript saved before they were: only what the calls show
        saved = talk.transcript.path
        saved.write_text("".join(line for line in saved.read_text().splitlines(True) if '"type": "memory"' not in line))
    folder = Path(store.repository.directory)
    (folder / "db.md").write_text(note("db", "The database is Postgres 16 now."))
    (folder / "deploy.md").unlink()

    after = ask(claude_double, resume(repo, talk, "on-demand"), "And now?")
    body = json.dumps(after.body)
    assert "Fridays" not in body
    told = after.last_user_text()
    assert "- /memories/deploy.md: deleted" in told
    if fingerprints:  # an edit shows in a fingerprint; an older transcript knows only what is gone
        assert "Postgres 14" not in body and "- /memories/db.md: edited" in told
    valid_for_the_api(after)


def test_after_a_rebuild_thinking_is_saved_under_the_prefix_its_request_carried(claude_double, repo):
    # A thinking block is bound to the system and the tools as the request carried them; the
    # transcript keeps that binding beside each message, and a resume finds thinking by it.
    from agent.conversation.history import prefix_of
    from agent.conversation.transcripts import load

    store = open_memory(repo)
    write(store, "/memories/deploy.md", "Deploys go out on Fridays.")
    talk = session(repo)
    claude_double.add(reply(thinking("Fridays, says memory.", "sig-1"), text("On Fridays.")))
    talk.send("When do we deploy?", lambda e: None)
    (Path(store.repository.directory) / "deploy.md").write_text(note("deploy", "Deploys go out on Tuesdays now."))
    claude_double.add(reply(thinking("Tuesdays now.", "sig-2"), text("On Tuesdays.")))
    talk.send("And now?", lambda e: None)
    before, after = claude_double.messages_requests()[-2:]
    assert "Tuesdays now." in after.system_text() and before.body["system"] != after.body["system"]

    def bound(request) -> str:
        return prefix_of(request.body["model"], request.body["system"], request.body["tools"])

    saved = load(talk.transcript.path).messages
    answers = [m for m in saved if m.message["role"] == "assistant"]
    assert [m.prefix for m in answers] == [bound(before), bound(after)]
