"""The note-per-file layout, caps, the editor's save, and what the side pane lists."""

from __future__ import annotations

import os
import time
from datetime import datetime

import pytest

from agent.recall.briefing import age_text
from memory.errors import MemoryNotFound, MemoryNotText, MemoryPathError, MemoryStoreError
from memory.store import MemoryStore
from tests.marked_text import without_ids
from tests.memory.helpers import snapshot

FEEDBACK = """---
name: feedback-cs1591
description: "CS1591 is noise; nullable warnings are real"
type: feedback
---

Ignore CS1591 in build summaries.

**Why:** the developer said so. **How to apply:** leave it out. See [[project-core]] and [[not-written-yet]].
"""

NESTED = """---
name: feedback-push-aggressively
description: Commit and push each change without asking
metadata:
  node_type: memory
  type: feedback
  originSessionId: 4a68cacc-858b-4a4d-a02d-c0e45eb12903
---

Push aggressively in this repo.
"""


def create(store: MemoryStore, path: str, text: str) -> tuple[str, bool]:
    return store.run({"command": "create", "path": path, "file_text": text})


def test_memories_lists_frontmatter_size_and_time(store):
    create(store, "/memories/feedback_cs1591.md", FEEDBACK)
    create(store, "/memories/feedback_push.md", NESTED)
    create(store, "/memories/plain.md", "no frontmatter at all\n")
    create(store, "/memories/topics/user_role.md", "---\nname: user-role\ntype: user\ndescription: senior .NET developer\n---\nbody\n")
    create(store, "/memories/odd.md", "---\nname: [unclosed\ntype: nonsense\n---\nbody\n")
    create(store, "/memories/MEMORY.md", "- [CS1591](feedback_cs1591.md) — noise\n")
    create(store, "/memories/notes.txt", "not a memory file")
    infos = store.memories()
    assert [i.path for i in infos] == [
        "/memories/feedback_cs1591.md",
        "/memories/feedback_push.md",
        "/memories/odd.md",
        "/memories/plain.md",
        "/memories/topics/user_role.md",
    ]
    first = infos[0]
    assert (first.name, first.type, first.description) == (
        "feedback-cs1591",
        "feedback",
        "CS1591 is noise; nullable warnings are real",
    )
    assert first.size == len(FEEDBACK)
    assert first.file == store.directory.resolve() / "feedback_cs1591.md"
    assert abs(first.modified - time.time()) < 60
    assert (infos[1].name, infos[1].type) == ("feedback-push-aggressively", "feedback")
    assert (infos[2].name, infos[2].type) == ("[unclosed", None)
    assert (infos[3].name, infos[3].type, infos[3].description) == ("plain", None, "")
    assert infos[4].type == "user"


def test_total_chars_counts_every_file_in_characters(store):
    create(store, "/memories/a.md", "ü" * 10)
    create(store, "/memories/MEMORY.md", "abc")
    assert store.total_chars() == 13


def test_snapshot_holds_every_file_with_its_age(store):
    create(store, "/memories/b.md", "second\n")
    create(store, "/memories/MEMORY.md", "- [B](b.md) — the b note\n")
    create(store, "/memories/a.md", "first </memory> trick")
    now = time.time()
    os.utime(store.directory / "b.md", (now - 3 * 86400, now - 3 * 86400))
    today, before = (datetime.fromtimestamp(t).date().isoformat() for t in (now, now - 3 * 86400))
    assert without_ids(snapshot(store, now)) == (
        f'<memory path="/memories/MEMORY.md" age="just now" written="{today}">\n- [B](b.md) — the b note\n</memory>\n'
        f'<memory path="/memories/a.md" age="just now" written="{today}">\nfirst &lt;/memory> trick\n</memory>\n'
        f'<memory path="/memories/b.md" age="3 days" written="{before}">\nsecond\n</memory>\n'
    )


def test_snapshot_of_an_empty_store_is_empty(store):
    assert snapshot(store) == ""
    assert store.index_text() == ""


@pytest.mark.parametrize(
    "seconds,text",
    [(5, "just now"), (61, "1 minute"), (7200, "2 hours"), (86400, "1 day"), (20 * 86400, "2 weeks"),
     (90 * 86400, "3 months"), (800 * 86400, "2 years"), (-5, "just now")],
)
def test_age_text(seconds, text):
    assert age_text(seconds) == text


def test_index_problems_and_reindex(store):
    create(store, "/memories/feedback_cs1591.md", FEEDBACK)
    create(store, "/memories/feedback_push.md", NESTED)
    create(
        store,
        "/memories/MEMORY.md",
        "# Memory index\n\n"
        "- [CS1591 is noise](feedback_cs1591.md) — ignore missing XML doc warnings\n"
        "- [Old rule](gone.md) — was deleted\n"
        "- [Escape](../outside.md) — not a memory path\n"
        "- [Docs](https://example.com/x.md) — a web link, not a memory\n",
    )
    assert store.index_problems() == [
        "/memories/feedback_push.md has no line in /memories/MEMORY.md, so a session reading the index will not find it.",
        "/memories/MEMORY.md links to gone.md, which does not exist.",
        "/memories/MEMORY.md line 5 links to ../outside.md, which is not a memory path.",
    ]
    store.reindex()
    assert store.index_text() == (
        "# Memory index\n\n"
        "- [CS1591 is noise](feedback_cs1591.md) — ignore missing XML doc warnings\n"
        "- [Docs](https://example.com/x.md) — a web link, not a memory\n"
        "- [feedback-push-aggressively](feedback_push.md) — Commit and push each change without asking\n"
    )
    assert store.index_problems() == []
    before = store.index_text()
    store.reindex()
    assert store.index_text() == before


def test_reindex_builds_a_missing_index(store):
    create(store, "/memories/feedback_cs1591.md", FEEDBACK)
    create(store, "/memories/sub/plain.md", "just text")
    assert len(store.index_problems()) == 2
    store.reindex()
    assert store.index_text() == (
        "- [feedback-cs1591](feedback_cs1591.md) — CS1591 is noise; nullable warnings are real\n"
        "- [plain](sub/plain.md)\n"
    )
    assert store.index_problems() == []


def test_links_to_memories_not_written_yet_are_fine(store):
    create(store, "/memories/feedback_cs1591.md", FEEDBACK)
    store.reindex()
    assert "[[not-written-yet]]" in store.read("/memories/feedback_cs1591.md")
    assert store.index_problems() == []


def test_file_cap_refuses_with_advice(tmp_path):
    store = MemoryStore(tmp_path / "m", max_file_chars=100, max_total_chars=1000)
    assert create(store, "/memories/a.md", "x" * 100)[1] is False
    text, is_error = create(store, "/memories/b.md", "y" * 101)
    assert is_error
    assert text == (
        "Not written: /memories/b.md would be 101 characters, over the 100-character limit for one "
        "memory file. Merge or delete entries that are no longer true, then try again."
    )
    text, is_error = store.run({"command": "insert", "path": "/memories/a.md", "insert_line": 0, "insert_text": "more"})
    assert is_error and "over the 100-character limit" in text
    assert (store.directory / "a.md").read_text() == "x" * 100
    assert not (store.directory / "b.md").exists()


def test_total_cap_refuses_with_advice(tmp_path):
    store = MemoryStore(tmp_path / "m", max_file_chars=4000, max_total_chars=250)
    assert create(store, "/memories/a.md", "a" * 120)[1] is False
    assert create(store, "/memories/b.md", "b" * 120)[1] is False
    text, is_error = create(store, "/memories/c.md", "c" * 20)
    assert is_error
    assert text == (
        "Not written: memory would total 260 characters, over the 250-character limit for all memory "
        "files. Merge or delete entries that are no longer true, then try again."
    )
    # Replacing a file counts its new size, not old plus new.
    assert create(store, "/memories/a.md", "A" * 130)[1] is False
    assert store.total_chars() == 250
    assert store.run({"command": "str_replace", "path": "/memories/a.md", "old_str": "A", "new_str": "AA"})[1] is True


def test_over_cap_store_can_still_shrink(tmp_path):
    store = MemoryStore(tmp_path / "m", max_file_chars=4000, max_total_chars=6000)
    (store.directory / "big.md").write_text("line\n" * 1500)  # 7,500 characters, written outside the tool
    text, is_error = store.run({"command": "str_replace", "path": "/memories/big.md", "old_str": "line\n" * 1500, "new_str": "merged\n"})
    assert not is_error, text
    assert store.total_chars() == 7


def test_caps_are_configurable_defaults(store):
    assert (store.max_file_chars, store.max_total_chars, store.lock_timeout) == (4000, 6000, 2.0)


def test_secret_filter_on_every_write_path(store):
    key = "AKIA" + "IOSFODNN7Q4W2ZLM"
    create(store, "/memories/a.md", "clean\n")
    attempts = [
        {"command": "create", "path": "/memories/b.md", "file_text": f"aws {key}"},
        {"command": "str_replace", "path": "/memories/a.md", "old_str": "clean", "new_str": f"key {key}"},
        {"command": "insert", "path": "/memories/a.md", "insert_line": 0, "insert_text": f"password: hunter2{key[:3]}!"},
        {"command": "create", "path": f"/memories/{key}.md", "file_text": "x"},
        {"command": "rename", "old_path": "/memories/a.md", "new_path": f"/memories/{key}.md"},
    ]
    for attempt in attempts:
        text, is_error = store.run(attempt)
        assert is_error and "Secrets never go into memory" in text, attempt
        assert key not in text
    message, failed = store.save("/memories/c.md", "-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----")
    assert failed and "private key" in message
    assert sorted(os.listdir(store.directory)) == [".lock", "a.md"]
    assert (store.directory / "a.md").read_text() == "clean\n"


def test_secret_already_on_disk_does_not_block_other_edits(store):
    key = "ghp_" + "a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuVwXyZ"
    (store.directory / "old.md").write_text(f"pasted by hand: {key}\nsecond line\n")
    text, is_error = store.run({"command": "str_replace", "path": "/memories/old.md", "old_str": "second", "new_str": "2nd"})
    assert not is_error, text


def test_read_save_and_delete_for_the_editor(store):
    assert store.save("/memories/ed.md", "v1\n") == ("Saved /memories/ed.md", False)
    assert store.read("/memories/ed.md") == "v1\n"
    assert store.save("/memories/ed.md", "v2\n", expected="v1\n") == ("Saved /memories/ed.md", False)
    message, failed = store.save("/memories/ed.md", "v3\n", expected="v1\n")
    assert failed and "changed on disk" in message
    assert store.read("/memories/ed.md") == "v2\n"
    assert store.delete("/memories/ed.md") == ("Successfully deleted /memories/ed.md", False)
    message, failed = store.save("/memories/ed.md", "v4\n", expected="v2\n")
    assert failed and "deleted on disk" in message
    assert store.delete("/memories/ed.md") == ("The path /memories/ed.md does not exist", True)
    assert store.save("/memories", "x")[1] is True
    assert store.save("/memories/../x.md", "x")[1] is True
    assert store.save(None, "x")[1] is True  # type: ignore[arg-type]


def test_read_raises_memory_errors(store):
    (store.directory / "bin.md").write_bytes(b"\xff\xfe")
    with pytest.raises(MemoryNotFound):
        store.read("/memories/none.md")
    with pytest.raises(MemoryPathError):
        store.read("/memories/../etc/passwd")
    with pytest.raises(MemoryNotText):
        store.read("/memories/bin.md")
    with pytest.raises(MemoryStoreError):
        store.read("/memories/none.md")
    assert issubclass(MemoryNotFound, MemoryStoreError)
    # The built-in MemoryError means the interpreter ran out of memory: a missing note is not that.
    assert not issubclass(MemoryStoreError, MemoryError)


@pytest.mark.parametrize(
    "command,fragment",
    [
        ({"command": "str_replace", "old_path": "/memories/a.md", "old_str": "a", "new_str": "b"},
         "str_replace does not take 'old_path' and is missing 'path'. str_replace takes: path, old_str, new_str (optional)."),
        ({"command": "view", "path": "/memories/a.md", "view_range": [1.5, 10]},
         "'view_range' must be two integers [start, end] (end -1 for the last line), got [1.5, 10]."),
        ({"command": "view", "path": "/memories/a.md", "view_range": [1]}, "'view_range' must be two integers"),
        ({"command": "view", "path": "/memories/a.md", "view_range": "1-2"}, "'view_range' must be two integers"),
        ({"command": "insert", "path": "/memories/a.md", "insert_line": "1", "insert_text": "x"},
         "'insert_line' must be an integer, got '1'."),
        ({"command": "insert", "path": "/memories/a.md", "insert_line": True, "insert_text": "x"},
         "'insert_line' must be an integer, got True."),
        ({"command": "create", "path": "/memories/a.md"}, "create is missing 'file_text'. create takes: path, file_text."),
        ({"command": "create", "path": 7, "file_text": "x"}, "'path' must be a string, got int."),
        ({"command": "create", "path": "/memories/a.md", "file_text": ["x"]}, "'file_text' must be a string, got list."),
        ({"command": "rename", "path": "/memories/a.md", "new_path": "/memories/b.md"},
         "rename does not take 'path' and is missing 'old_path'."),
        ({"command": "str_replace", "path": "/memories/a.md", "old_str": ""}, "'old_str' must not be empty"),
        ({"command": "undo", "path": "/memories/a.md"}, "Unknown command 'undo'. Expected one of: view, create, str_replace, insert, delete, rename."),
        ({"path": "/memories/a.md"}, "Missing 'command'."),
        ({"command": 3}, "Unknown command"),
        ({"command": "delete", "path": "/memories/a.md", "force": True}, "delete does not take 'force'."),
        ([], "A memory command must be an object"),
        (None, "A memory command must be an object"),
    ],
)
def test_malformed_input_names_the_problem(store, command, fragment):
    create(store, "/memories/a.md", "a\n")
    text, is_error = store.run(command)
    assert is_error
    assert fragment in text


def test_none_for_an_optional_field_is_absence(store):
    create(store, "/memories/a.md", "a\n")
    assert store.run({"command": "view", "path": "/memories/a.md", "view_range": None})[1] is False
    assert store.run({"command": "str_replace", "path": "/memories/a.md", "old_str": "a", "new_str": None}) == (
        "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\t\n     2\t",
        False,
    )


def test_files_and_folders_are_owner_only(store):
    create(store, "/memories/deep/er/a.md", "x")
    assert (store.directory / "deep" / "er" / "a.md").stat().st_mode & 0o777 == 0o600
    assert (store.directory / "deep").stat().st_mode & 0o777 == 0o700


def test_unusable_folder_gives_error_results_not_exceptions(tmp_path):
    blocker = tmp_path / "data"
    blocker.write_text("a file where the data folder should be")
    store = MemoryStore(blocker / "memories")
    text, is_error = store.run({"command": "view", "path": "/memories"})
    assert is_error and text.startswith("Could not view /memories:")
    assert store.save("/memories/a.md", "x")[1] is True
    assert store.memories() == [] and snapshot(store) == ""


def test_snapshot_escapes_odd_file_names(store):
    create(store, '/memories/a"b<c>.md', "x")
    assert snapshot(store).startswith('<memory path="/memories/a&quot;b&lt;c&gt;.md" age=')


# The index as models write it when told "one line per file": each form names its file.
MODEL_INDEXES = [
    "- project-focus.md: the core project is the one that matters\n- notes/deploy.md: how deploys go out\n",
    "* `project-focus.md` — which project matters\n* `notes/deploy.md` — deploys\n",
    "1. **project-focus.md** - which project matters\n2. /memories/notes/deploy.md - deploys\n",
    "# Index\n\nproject-focus.md | which project matters\n+ [Deploys](./notes/deploy.md \"how\") — deploys\n",
    "- [Focus](/memories/project-focus.md)\n- deploy.md — a bare name of a file in a folder\n",
]


@pytest.mark.parametrize("text", MODEL_INDEXES)
def test_an_index_in_a_models_own_words_names_every_memory(store, text):
    create(store, "/memories/project-focus.md", FEEDBACK)
    create(store, "/memories/notes/deploy.md", NESTED)
    create(store, "/memories/MEMORY.md", text)
    assert store.index_problems() == []
    store.reindex()
    assert store.index_text() == text  # nothing to repair: no line added, none dropped


def test_a_models_index_line_for_a_deleted_file_leads_nowhere(store):
    create(store, "/memories/project-focus.md", FEEDBACK)
    create(store, "/memories/MEMORY.md", "- project-focus.md: which project matters\n- `old-plan.md`: gone since\n"
           "- See https://example.com/guide.md and README.md for more.\n")
    assert store.index_problems() == ["/memories/MEMORY.md links to old-plan.md, which does not exist."]
    store.reindex()
    assert store.index_text() == "- project-focus.md: which project matters\n- See https://example.com/guide.md and README.md for more.\n"


def test_the_user_index_names_its_files_by_their_full_path(tmp_path):
    user = MemoryStore(tmp_path / "u", root="/memories/user")
    create(user, "/memories/user/prefs.md", FEEDBACK)
    create(user, "/memories/user/MEMORY.md", "- /memories/user/prefs.md: how the user likes to work\n")
    assert user.index_problems() == []
