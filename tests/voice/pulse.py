"""A private PulseAudio server whose null sink is a real-time audio device.

Playing into the sink while recording its monitor round-trips audio through
PortAudio exactly as a microphone would, on a machine with no sound card.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.processes import alive

CONFIG = """\
load-module module-native-protocol-unix
load-module module-null-sink sink_name=vsink rate=16000 channels=1
set-default-sink vsink
set-default-source vsink.monitor
"""


def pulse_available() -> str | None:
    """None when a server can be started here, else why not."""
    for tool in ("pulseaudio", "pactl"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    return None


@dataclass
class PulseServer:
    root: Path
    pid: int = 0
    env: dict[str, str] = field(default_factory=dict)

    @classmethod
    def start(cls, root: Path | None = None, timeout: float = 15.0) -> PulseServer:
        root = Path(root or tempfile.mkdtemp(prefix="devagent-pulse-"))
        home = root / "home"
        runtime = root / "run"
        scratch = root / "tmp"
        home.mkdir(parents=True, exist_ok=True)
        runtime.mkdir(parents=True, exist_ok=True)
        scratch.mkdir(parents=True, exist_ok=True)
        runtime.chmod(0o700)
        config = root / "default.pa"
        config.write_text(CONFIG)
        env = dict(os.environ)
        env.update(
            HOME=str(home),
            XDG_RUNTIME_DIR=str(runtime),
            XDG_CONFIG_HOME=str(home / ".config"),
            PULSE_SERVER=f"unix:{runtime}/pulse/native",
            # PulseAudio and its clients make pulse-XXXX folders in the temp directory;
            # keep them inside this server's folder so nothing strays into /tmp.
            TMPDIR=str(scratch),
        )
        # A PulseAudio cookie or client.conf from the outer user must not leak in.
        env.pop("PULSE_COOKIE", None)
        server = cls(root=root, env=env)
        subprocess.run(
            ["pulseaudio", "-n", "-F", str(config), "--daemonize=yes",
             "--exit-idle-time=-1", "--disallow-exit", "--log-target=stderr"],
            env=env, check=True, capture_output=True, timeout=timeout,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            probe = subprocess.run(["pactl", "info"], env=env, capture_output=True, text=True)
            if probe.returncode == 0:
                break
            time.sleep(0.1)
        else:
            raise RuntimeError("the PulseAudio server did not answer")
        pid_file = runtime / "pulse" / "pid"
        server.pid = int(pid_file.read_text().split()[0])
        return server

    def stop(self) -> None:
        if self.pid:
            try:
                os.kill(self.pid, 15)
            except ProcessLookupError:
                pass
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and alive(self.pid):
                time.sleep(0.05)
            if alive(self.pid):
                os.kill(self.pid, 9)
            self.pid = 0
        shutil.rmtree(self.root, ignore_errors=True)

