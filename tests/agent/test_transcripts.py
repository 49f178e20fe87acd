"""Saved conversations: the file format survives a crash mid-write."""

from __future__ import annotations

import stat
from datetime import UTC, datetime

from agent.conversation import transcripts
from agent.conversation.replay import completed, turn_starts

T0 = datetime(2026, 11, 6, 9, 0, tzinfo=UTC)


def user(text):
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def assistant(*blocks):
    return {"role": "assistant", "content": list(blocks)}


def test_round_trip_and_a_torn_last_line(tmp_path):
    repo = tmp_path / "sandbox" / "r"
    repo.mkdir(parents=True)
    t = transcripts.Transcript(repo, started=T0, model="m", memory_mode="history")
    t.add_message(user("hi"), turn=1, time=T0)
    t.add_message(assistant({"type": "text", "text": "hello"}), turn=1, time=T0)
    t.add_summary("notes", time=T0)
    assert stat.S_IMODE(t.path.stat().st_mode) == 0o600
    with open(t.path, "a") as f:
        f.write('{"type": "message", "time": "2026-')  # a crash mid-write
    saved = transcripts.load(t.path)
    assert [m.message["role"] for m in saved.messages] == ["user", "assistant"]
    assert saved.summary == "notes" and saved.started == T0
    assert transcripts.latest(repo).path == t.path
    assert transcripts.latest(repo, exclude=t.path) is None


def test_consecutive_user_records_load_as_one_message(tmp_path):
    repo = tmp_path / "sandbox" / "r"
    repo.mkdir(parents=True)
    t = transcripts.Transcript(repo, started=T0, model="m", memory_mode="history")
    t.add_message(user("first, unanswered"), turn=1, time=T0)
    t.add_message(user("second"), turn=2, time=T0)
    saved = transcripts.load(t.path)
    assert len(saved.messages) == 1
    assert [b["text"] for b in saved.messages[0].message["content"]] == ["first, unanswered", "second"]


def test_garbage_files_are_skipped(tmp_path):
    repo = tmp_path / "sandbox" / "r"
    repo.mkdir(parents=True)
    folder = transcripts.transcripts_dir(repo)
    folder.mkdir(parents=True)
    (folder / "20990101T000000000000-aaaaaa.jsonl").write_text("not json\n[1, 2]\n")
    assert transcripts.load(folder / "20990101T000000000000-aaaaaa.jsonl") is None
    assert transcripts.latest(repo) is None


def test_completed_stops_at_the_last_finished_turn():
    def saved(m):
        return transcripts.SavedMessage(time=T0, turn=0, message=m)

    tool = {"type": "tool_use", "id": "t", "name": "build", "input": {}}
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]}
    messages = [saved(user("a")), saved(assistant({"type": "text", "text": "A"})), saved(user("b")), saved(assistant(tool)), saved(result)]
    assert [m.message for m in completed(messages)] == [user("a"), assistant({"type": "text", "text": "A"})]
    assert turn_starts(messages) == [0, 2]
