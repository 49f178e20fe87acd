"""A key in the user's or the model's own words is not kept in the transcript, nor resumed."""

from __future__ import annotations

from datetime import UTC, datetime

from agent.conversation.transcripts import Transcript, load

KEY = "sk_live_" + "Q7w3ZkP9xY2vB8nL4mC6dF1h"


def test_text_holding_a_key_is_saved_masked(tmp_path):
    transcript = Transcript(tmp_path, started=datetime(2026, 11, 9, tzinfo=UTC), model="m", memory_mode="none")
    now = datetime(2026, 11, 9, 9, tzinfo=UTC)
    transcript.add_message({"role": "user", "content": f"use {KEY} for billing"}, turn=1, time=now)
    transcript.add_message({"role": "assistant", "content": [{"type": "text", "text": f"Noted: {KEY}."}]}, turn=1, time=now)
    saved = transcript.path.read_text()
    assert KEY not in saved and "[masked: Stripe key]" in saved
    resumed = load(transcript.path)
    assert resumed is not None and all(KEY not in str(m.message) for m in resumed.messages)
