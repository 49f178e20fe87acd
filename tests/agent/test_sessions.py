"""agent/conversation/saved_sessions.py: listing, finding and bounding the saved transcripts."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from agent.conversation import saved_sessions as sessions
from agent.conversation import transcripts
from agent.conversation.transcripts import Transcript

DAY = 86400


def write_session(repo: Path, started: datetime, questions: list[str], cost: float = 0.01, pad: int = 0) -> Path:
    transcript = Transcript(repo, started=started, model="claude-haiku-5-5", memory_mode="preloaded")
    for n, question in enumerate(questions, 1):
        transcript.add_message({"role": "user", "content": [{"type": "text", "text": "Today is x."}, {"type": "text", "text": question}]}, turn=n, time=started)
        transcript.add_message({"role": "assistant", "content": [{"type": "text", "text": "answer " + "x" * pad}]}, turn=n, time=started)
        transcript.add_turn(n, {"cost_usd": cost, "input_tokens": 10}, time=started)
    return transcript.path


def age(path: Path, days: float) -> None:
    when = time.time() - days * DAY
    os.utime(path, (when, when))


def test_listing_says_date_first_question_turns_and_cost(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    start = datetime(2026, 11, 2, 9, 30, tzinfo=UTC)
    older = write_session(repo, start, ["why is the build red?", "and the tests?"], cost=0.02)
    newer = write_session(repo, start + timedelta(days=1), ["rename the module"], cost=0.5)
    listed = sessions.listing(repo)
    assert [s.path for s in listed] == [newer, older]
    assert (listed[1].first_question, listed[1].turns, round(listed[1].cost_usd, 4)) == ("why is the build red?", 2, 0.04)
    assert listed[0].id == newer.name.removesuffix(".jsonl") and listed[0].started.day == 3


def test_find_takes_the_latest_or_any_unambiguous_part_of_an_id(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    start = datetime(2026, 11, 2, 9, 30, tzinfo=UTC)
    first = write_session(repo, start, ["one"])
    second = write_session(repo, start + timedelta(hours=1), ["two"])
    assert sessions.find(repo, None) == (second, None)
    assert sessions.find(repo, sessions.session_id(first)) == (first, None)
    assert sessions.find(repo, sessions.session_id(first)[-6:])[0] == first
    missing, why = sessions.find(repo, "nope")
    assert missing is None and "devagent sessions" in why
    both, why = sessions.find(repo, "20261102")
    assert both is None and "matches 2 sessions" in why
    assert sessions.find(tmp_path, None)[0] is None


def test_prune_removes_the_old_then_the_oldest_beyond_the_size(tmp_path):
    start = datetime(2026, 11, 2, 9, 30, tzinfo=UTC)
    repos = [tmp_path / "a", tmp_path / "b"]
    for repo in repos:
        repo.mkdir()
    ancient = write_session(repos[0], start, ["old"])
    age(ancient, 120)
    big = [write_session(repos[i % 2], start + timedelta(hours=i), [f"q{i}"], pad=300_000) for i in range(4)]
    for n, path in enumerate(big):
        age(path, 10 - n)  # big[0] is the oldest write
    removed = sessions.prune(max_age_days=90, max_mb=1)
    assert ancient in removed and not ancient.exists()
    # About 300 KB each, 1.2 MB together: only the oldest goes.
    assert [p.exists() for p in big] == [False, True, True, True]
    assert sum(p.stat().st_size for p in big if p.exists()) <= 1024 * 1024
    assert sessions.prune(max_age_days=90, max_mb=1) == []


def test_prune_keeps_the_running_session_and_follows_no_link(tmp_path, user_dirs):
    start = datetime(2026, 11, 2, 9, 30, tzinfo=UTC)
    repo = tmp_path / "deep" / "er" / "repo"
    repo.mkdir(parents=True)
    mine = write_session(repo, start, ["mine"])
    age(mine, 200)
    outside = tmp_path / "deep" / "precious.jsonl"
    outside.write_text("keep me")
    age(outside, 400)
    link = transcripts.transcripts_dir(repo) / "20200101T000000000000-abcdef.jsonl"
    link.symlink_to(outside)
    linked_folder = transcripts.transcripts_dir(repo).parent / "elsewhere"
    linked_folder.symlink_to(tmp_path / "deep", target_is_directory=True)
    removed = sessions.prune(max_age_days=90, max_mb=500, keep=mine)
    assert removed == [] and mine.exists() and outside.read_text() == "keep me"
    assert sorted(p.name for p in (tmp_path / "deep").iterdir()) == ["er", "precious.jsonl"]


@pytest.mark.slow
def test_prune_again_with_everything_but_its_sandbox_read_only(tmp_path):
    """The tests above in a mount namespace where only their sandbox can be written (see
    tests/memory/test_hostile_readonly.py): an unlink that escaped would fail with EROFS."""
    from tests.read_only_rerun import rerun_read_only

    if os.environ.get("DEVAGENT_PRUNE_INNER"):
        pytest.skip("already inside the read-only namespace")
    done = rerun_read_only(Path(__file__), tmp_path, "DEVAGENT_PRUNE_INNER", timeout=240, pytest_args=("-k", "not read_only"))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "4 passed" in done.stdout, done.stdout[-2000:]
    assert [p for p in (tmp_path / "box").rglob("*") if "pytest" not in p.parts and p.name not in ("home", "data")] == []
