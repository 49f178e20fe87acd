"""`devagent trust`: grant, status, revoke and list, as a process of its own."""

from __future__ import annotations

from agent.workspace_trust import TrustStore
from tests.test_cli import devagent


def test_trust_grants_revokes_and_a_bare_call_only_says_where_it_stands(tmp_path):
    repo = tmp_path / "shop"
    repo.mkdir()
    bare = subprocess_in(repo, "trust")
    assert bare.returncode == 0 and "is not trusted yet" in bare.stdout and f"devagent trust {repo}" in bare.stdout
    assert TrustStore().decision(repo) is None  # a bare `devagent trust` grants nothing
    granted = devagent("trust", str(repo))
    assert granted.returncode == 0 and granted.stdout.startswith(f"Trusted {repo}")
    assert TrustStore().trusted(repo)
    assert "is trusted since" in devagent("trust", "--status", str(repo)).stdout
    listed = devagent("trust", "--list").stdout
    assert listed.startswith("trusted") and str(repo) in listed
    revoked = devagent("trust", "--revoke", str(repo))
    assert revoked.returncode == 0 and "the next run asks again" in revoked.stdout
    assert TrustStore().decision(repo) is None
    missing = devagent("trust", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "is not a folder" in missing.stderr and "Traceback" not in missing.stderr


def subprocess_in(folder, *args):
    import os
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "tui.cli", *args], cwd=folder, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": os.getcwd()}, timeout=60)


def test_status_lists_the_commands_answered_always_and_forget_command_takes_one_back(tmp_path):
    from agent.command_consent import AllowedCommands

    repo = tmp_path / "shop"
    repo.mkdir()
    other = tmp_path / "other"
    other.mkdir()
    AllowedCommands().remember(repo, "npm run lint", False)
    AllowedCommands().remember(repo, "make fmt && make check", True)
    AllowedCommands().remember(other, "cargo fmt", False)
    status = devagent("trust", "--status", str(repo)).stdout
    assert "npm run lint" in status and "make fmt && make check (with the network)" in status
    assert "cargo fmt" not in status  # another repository's answer
    forgot = devagent("trust", "--forget-command", "npm run lint", str(repo))
    assert forgot.returncode == 0 and "asks again" in forgot.stdout
    assert [a.command for a in AllowedCommands().listing(repo)] == ["make fmt && make check"]
    again = devagent("trust", "--forget-command", "npm run lint", str(repo))
    assert again.returncode == 1 and "no \"always\" answer" in again.stderr and "Traceback" not in again.stderr
    assert "without asking (none" in devagent("trust", "--status", str(other / "..")).stdout
