"""Issue 9, point 2: masking time grows in step with the text, and Esc can stop it.

The adversarial inputs at 200 KB took the old patterns tens of seconds each (about 47 s
for a dotted run with one URL); each case here has a generous per-test timeout instead of
a timed assertion: it fails on quadratic code without measuring speed, which is
benchmarks/masking.py's job.
"""

from __future__ import annotations

import pytest

from agent.cancel import Cancellation
from agent.tools.base import ToolContext, ToolResult
from agent.tools.files import ReadFileTool
from agent.tools.masking import mask_result, mask_text
from agent.tools.memory_tool import MemoryTool
from memory.secrets import ScanCancelled, find_secrets, mask_secrets
from memory.store import MemoryStore

SIZE = 200_000
URL = " https://deploy:" + "hunter2" + "hunter2@git.acme.io/shop.git "


def repeat(unit: str, size: int = SIZE) -> str:
    return (unit * (size // len(unit) + 1))[:size]


ADVERSARIAL = {
    "dotted run and a URL": repeat("a.") + URL,
    "dashed run and a URL": repeat("a-") + URL,
    "BEGIN headers without an END": repeat("-----BEGIN RSA PRIVATE KEY-----\n"),
    "BEGIN headers on one line": repeat("-----BEGIN OPENSSH PRIVATE KEY-----"),
    "URL-like run": "https://" + repeat("a.b-c/"),
    "userinfo run": repeat("http://u:p@h/"),
    "key = value run": repeat("password=password=") + URL,
    "underscored run": repeat("a_") + URL,
    "name-like run": repeat("creds_a") + URL,
    "base64 lines": repeat("QUtJQUlPU0ZPRE5ON0VYQU1QTEVBS0lBSU9TRk9ETk43RVhBTVBMRQ==\n"),
    "percent escapes": repeat("%41"),
    "zero-width run": repeat("a\u200b"),
    "table rule lines": "| password |\n" + repeat("|---|---|\n") + URL,
    "name fields without values": repeat("- name: API_TOKEN\n") + URL,
    "announced token lines": repeat("created token\n") + URL,
    "escaped JSON fields": repeat('\\"a\\": \\"b\\", ') + URL,
    "Oracle logins": repeat("sqlplus a/b@") + URL,
    "SMTP-like userinfo": repeat("smtp://a@b:c@") + URL,
    "userinfo without a host": "smtp://a:" + repeat("b@") + URL,
    "inline base64 runs": repeat("x='QUtJQUlPU0ZPRE5ON0VYQU1QTEVBS0lB' ") + URL,
    "sentence anchors": repeat("use abcdefgh as the ") + URL,
}


@pytest.mark.timeout(20)
@pytest.mark.parametrize("name", list(ADVERSARIAL))
def test_adversarial_text_is_masked_without_backtracking(name):
    text = ADVERSARIAL[name]
    masked, found = mask_secrets(text)
    if "hunter2hunter2" in text:
        assert "hunter2hunter2" not in masked, "the URL's password must still be masked"
    assert masked.count("\n") == text.count("\n")


class CountingCancel:
    """Says "cancelled" from its nth question on, and counts the questions."""

    def __init__(self, after: int) -> None:
        self.after = after
        self.asked = 0

    def __call__(self) -> bool:
        self.asked += 1
        return self.asked >= self.after


def test_the_scan_asks_for_cancellation_as_it_goes_and_stops():
    text = repeat("a.", 300_000) + URL
    never = CountingCancel(after=10**9)
    find_secrets(text, never)
    assert never.asked >= 50, "a long scan must ask between its passes"
    soon = CountingCancel(after=3)
    with pytest.raises(ScanCancelled):
        find_secrets(text, soon)
    assert soon.asked == 3, "it stops at the first yes"


def test_a_short_text_is_masked_even_after_a_cancel():
    """A cancelled build still reports what ran: a short output is quicker to mask than
    the key press was, so it is masked rather than withheld."""
    cancel = Cancellation()
    cancel.cancel()
    masked, hits = mask_text("log: " + URL, cancel=cancel)
    assert "hunter2hunter2" not in masked and hits


def test_mask_result_takes_the_turns_cancellation():
    cancel = Cancellation()
    cancel.cancel()
    with pytest.raises(ScanCancelled):
        mask_result(ToolResult(text=repeat("a-") + URL), cancel)


def test_read_file_stops_masking_when_the_turn_is_cancelled(tmp_path):
    repo = tmp_path / "sandbox" / "repo"
    repo.mkdir(parents=True)
    (repo / "big.log").write_text(repeat("a-") + URL + "\nend\n")
    cancel = Cancellation()
    cancel.cancel()
    result = ReadFileTool().run({"path": "big.log"}, ToolContext(repo=repo, cancel=cancel))
    assert result.is_error and "withheld" in result.text and "cancelled" in result.text
    assert "hunter2" not in result.text and "a-a-a-" not in result.text


def test_the_memory_tool_stops_masking_when_the_turn_is_cancelled(tmp_path):
    folder = tmp_path / "sandbox" / "memories"
    store = MemoryStore(folder, max_file_chars=10**6, max_total_chars=10**7)
    folder.joinpath("big.md").write_text(repeat("a-") + URL)
    cancel = Cancellation()
    cancel.cancel()
    result = MemoryTool(store).run({"command": "view", "path": "/memories/big.md"}, ToolContext(repo=tmp_path, cancel=cancel))
    assert result.is_error and "withheld" in result.text
    assert "hunter2" not in result.text
