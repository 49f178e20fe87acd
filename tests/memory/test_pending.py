"""Held changes at the store's level: folding, deletes, renames, conflicts and the lock."""

from __future__ import annotations

import threading
import time

import pytest

from memory.errors import MemoryBusy
from memory.pending import Change, PendingChanges
from memory.store import MemoryStore

NOTE = "---\nname: core\ntype: project\ndescription: which project matters\n---\nThe Core project matters.\n"


@pytest.fixture
def store(tmp_path) -> MemoryStore:
    return MemoryStore(tmp_path / "store" / "memories", lock_timeout=0.3)


def test_a_delete_of_a_held_create_drops_both(store):
    pending = PendingChanges(store)
    pending.hold({"command": "create", "path": "/memories/a.md", "file_text": NOTE})
    text, is_error = pending.hold({"command": "delete", "path": "/memories/a.md"})
    assert not is_error and "now dropped" in text
    assert pending.list() == []


def test_held_delete_and_rename_apply_on_accept(store):
    store.run({"command": "create", "path": "/memories/a.md", "file_text": NOTE})
    store.run({"command": "create", "path": "/memories/b.md", "file_text": NOTE.replace("core", "cli")})
    pending = PendingChanges(store)
    pending.hold({"command": "delete", "path": "/memories/a.md"})
    pending.hold({"command": "rename", "old_path": "/memories/b.md", "new_path": "/memories/old/b.md"})
    delete, rename = pending.list()
    assert (delete.summary, rename.summary) == ("delete /memories/a.md", "rename /memories/b.md -> /memories/old/b.md")
    assert delete.diff().startswith("--- /memories/a.md\n+++ /dev/null\n")
    assert "renamed, text unchanged" in rename.diff()
    assert [m.path for m in store.memories()] == ["/memories/a.md", "/memories/b.md"]
    for change in (delete, rename):
        assert pending.accept(change.id)[1] is False
    assert [m.path for m in store.memories()] == ["/memories/old/b.md"]


def test_a_write_on_a_file_that_is_not_there_is_refused_as_today(store):
    text, is_error = PendingChanges(store).hold({"command": "str_replace", "path": "/memories/none.md", "old_str": "a", "new_str": "b"})
    assert is_error and text == "The path /memories/none.md does not exist. Please provide a valid path."
    text, is_error = PendingChanges(store).hold({"command": "create", "path": "/memories/../x.md", "file_text": "x"})
    assert is_error and "'..' segments are not allowed" in text


def test_caps_are_checked_when_held(tmp_path):
    store = MemoryStore(tmp_path / "capped", max_file_chars=100)
    text, is_error = PendingChanges(store).hold({"command": "create", "path": "/memories/big.md", "file_text": "x" * 200})
    assert is_error and "over the 100-character limit" in text


def conflicted(store, old_str: str = "Core", new_str: str = "Cli") -> tuple[PendingChanges, Change]:
    """A held edit of a.md that met the user's own edit (a line added) when accepted."""
    store.run({"command": "create", "path": "/memories/a.md", "file_text": NOTE})
    pending = PendingChanges(store)
    pending.hold({"command": "str_replace", "path": "/memories/a.md", "old_str": old_str, "new_str": new_str})
    store.save("/memories/a.md", NOTE + "More.\n")
    change = pending.list()[0]
    assert pending.accept(change.id)[1] is True
    assert [c.id for c in pending.conflicts()] == [change.id]
    return pending, change


def test_a_conflict_can_go_back_into_review(store):
    pending, change = conflicted(store, "Core project matters", "Core project matters most")
    assert pending.take_news() == "Memory review since your last turn: the user could not apply (the file changed since) edit /memories/a.md."
    # Accepting it again applies nothing: it is rebased, and the diff the user now reviews
    # shows the line they added going away.
    assert pending.accept(change.id) == ("Back in review, against the file as it is now: edit /memories/a.md", False)
    assert store.read("/memories/a.md") == NOTE + "More.\n"
    assert pending.conflicts() == [] and "-More." in pending.list()[0].diff()
    assert pending.accept(change.id) == ("Accepted: edit /memories/a.md", False)
    assert store.read("/memories/a.md") == NOTE.replace("Core project matters", "Core project matters most")
    # the model heard of the conflict, and hears of the decision too; then nothing is left
    assert pending.take_news() == "Memory review since your last turn: the user accepted edit /memories/a.md."
    assert list(pending.folder.iterdir()) == []


def test_a_conflict_can_be_rejected_and_is_then_gone(store):
    pending, change = conflicted(store)
    pending.take_news()
    assert pending.reject(change.id) == ("Rejected: edit /memories/a.md", False)
    assert pending.conflicts() == [] and pending.list() == []
    assert pending.take_news() == "Memory review since your last turn: the user rejected edit /memories/a.md."
    assert list(pending.folder.iterdir()) == [] and store.read("/memories/a.md") == NOTE + "More.\n"
    assert pending.reject(change.id) == (f"There is no pending memory change {change.id}.", True)


def test_a_conflict_does_not_come_back_beside_a_newer_change_to_its_file(store):
    pending, old = conflicted(store)
    pending.hold({"command": "str_replace", "path": "/memories/a.md", "old_str": "More.", "new_str": "Less."})
    message, refused = pending.accept(old.id)
    assert refused and message.startswith("A newer change to /memories/a.md waits for review (edit /memories/a.md)")
    assert [c.id for c in pending.conflicts()] == [old.id] and len(pending.list()) == 1
    assert store.read("/memories/a.md") == NOTE + "More.\n"


def test_news_names_each_decision_once(store):
    pending = PendingChanges(store)
    pending.hold({"command": "create", "path": "/memories/a.md", "file_text": NOTE})
    pending.hold({"command": "create", "path": "/memories/b.md", "file_text": NOTE.replace("core", "cli")})
    first, second = pending.list()
    pending.reject(first.id)
    pending.accept(second.id)
    assert pending.take_news() == (
        "Memory review since your last turn: the user rejected create /memories/a.md; accepted create /memories/b.md."
    )
    assert pending.take_news() is None


def test_ids_from_outside_are_checked(store):
    pending = PendingChanges(store)
    assert pending.accept("../../etc/passwd") == ("There is no pending memory change ../../etc/passwd.", True)
    assert pending.reject("") == ("There is no pending memory change .", True)


def test_the_lock_is_reentrant_in_one_thread_only(store):
    entered = threading.Event()
    release = threading.Event()
    outcome: list[str] = []

    def holder() -> None:
        with store.locked(), store.locked():  # the same thread again: no wait
            entered.set()
            release.wait(5)

    def other() -> None:
        try:
            with store.locked():
                outcome.append("got it")
        except MemoryBusy:
            outcome.append("busy")

    first = threading.Thread(target=holder)
    first.start()
    assert entered.wait(5)
    second = threading.Thread(target=other)
    began = time.monotonic()
    second.start()
    second.join(5)
    assert outcome == ["busy"] and time.monotonic() - began >= 0.25
    release.set()
    first.join(5)
    with store.locked():
        pass  # released


def test_a_hand_made_change_file_is_ignored(store):
    folder = store.directory / ".pending"
    folder.mkdir(parents=True)
    (folder / "abc123.json").write_text('{"id": "ffffff", "command": "create", "path": "/memories/x.md", "before": null, "after": "x"}')
    (folder / "abc124.json").write_text('{"id": "abc124", "command": "create", "path": ["/etc/passwd"], "before": null, "after": "x"}')
    (folder / "abc125.json").write_text("not json")
    assert PendingChanges(store).list() == []
    # One that is well formed still goes through the store's path checks when accepted.
    (folder / "abc126.json").write_text('{"id": "abc126", "command": "create", "path": "/memories/../../x.md", "before": null, "after": "x", "created": "", "status": "pending", "told": false, "note": ""}')
    message, refused = PendingChanges(store).accept("abc126")
    assert refused and "'..' segments are not allowed" in message
    assert not (store.directory.parent.parent / "x.md").exists()
