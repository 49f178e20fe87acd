"""run_command: real processes, their trees, their pipes and their time limits."""

from __future__ import annotations

import sys
import threading
import time

import pytest

from agent.cancel import Cancellation
from agent.tools.toolchain.processes import MAX_OUTPUT_CHARS, run_command


def py(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_output_and_exit_code(tmp_path):
    outcome = run_command(py("import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)"), tmp_path, timeout=30)
    assert outcome.returncode == 3
    assert "out" in outcome.output and "err" in outcome.output
    assert not outcome.ok and not outcome.timed_out and not outcome.cancelled


def test_runs_in_the_given_folder_with_extra_env(tmp_path):
    outcome = run_command(py("import os; print(os.getcwd(), os.environ['X_TOOL'])"), tmp_path, timeout=30, env={"X_TOOL": "yes"})
    assert outcome.output.strip() == f"{tmp_path} yes"


@pytest.mark.slow
def test_a_straggler_holding_the_pipe_does_not_hang_the_call(tmp_path):
    # The command exits at once but leaves a grandchild with its stdout open for a minute.
    code = (
        "import subprocess, sys; "
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
        "print('done', flush=True)"
    )
    start = time.monotonic()
    outcome = run_command(py(code), tmp_path, timeout=30)
    assert outcome.returncode == 0
    assert "done" in outcome.output
    assert time.monotonic() - start < 15


@pytest.mark.slow
def test_huge_output_keeps_head_and_tail(tmp_path):
    lines = MAX_OUTPUT_CHARS // 20 * 2
    code = f"import sys\nfor i in range({lines}): sys.stdout.write(f'line {{i:>12}} xxxx\\n')\nprint('THE END')"
    outcome = run_command(py(code), tmp_path, timeout=120)
    assert outcome.output_cut
    assert "line            0 xxxx" in outcome.output
    assert "THE END" in outcome.output
    assert "[... output cut here: too long to keep ...]" in outcome.output
    assert len(outcome.output) < MAX_OUTPUT_CHARS * 1.1


def test_already_cancelled_starts_nothing(tmp_path):
    cancel = Cancellation()
    cancel.cancel()
    marker = tmp_path / "ran"
    outcome = run_command(py(f"open({str(marker)!r}, 'w').close()"), tmp_path, timeout=30, cancel=cancel)
    assert outcome.cancelled and outcome.returncode is None
    assert not marker.exists()


def test_cancel_from_another_thread(tmp_path):
    cancel = Cancellation()
    timer = threading.Timer(0.5, cancel.cancel)
    timer.start()
    start = time.monotonic()
    outcome = run_command(py("import time; print('started', flush=True); time.sleep(60)"), tmp_path, timeout=60, cancel=cancel)
    timer.join()
    assert outcome.cancelled
    assert "started" in outcome.output
    assert time.monotonic() - start < 15


@pytest.mark.slow
def test_timeout_stops_a_process_that_ignores_sigterm(tmp_path):
    code = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('stubborn', flush=True); time.sleep(60)"
    start = time.monotonic()
    outcome = run_command(py(code), tmp_path, timeout=1)
    assert outcome.timed_out
    assert "stubborn" in outcome.output
    assert time.monotonic() - start < 15


def test_invalid_utf8_output_is_replaced_not_fatal(tmp_path):
    outcome = run_command(py("import sys; sys.stdout.buffer.write(b'caf\\xe9\\n')"), tmp_path, timeout=30)
    assert outcome.output == "caf\ufffd\n"


@pytest.mark.slow
def test_a_process_that_leaves_the_group_with_the_pipe_does_not_hang_the_call(tmp_path):
    pid_file = tmp_path / "pid"
    # The grandchild starts its own session, so killing our group does not reach it.
    code = (
        "import subprocess, sys; "
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'], start_new_session=True); "
        f"open({str(pid_file)!r}, 'w').write(str(p.pid)); print('left', flush=True)"
    )
    start = time.monotonic()
    try:
        outcome = run_command(py(code), tmp_path, timeout=30)
        assert outcome.returncode == 0
        assert "left" in outcome.output
        assert time.monotonic() - start < 15
    finally:
        import os
        import signal

        os.kill(int(pid_file.read_text()), signal.SIGKILL)
