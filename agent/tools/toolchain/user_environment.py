"""The environment a repository's commands run in: the user's, not devagent's.

`uv run devagent` starts devagent with its own virtualenv first on PATH and VIRTUAL_ENV
pointing at it; an installed `devagent` script runs under that interpreter too. A command
inheriting that environment tests the user's repository with devagent's Python and
packages. So the launch is captured once at start (which virtualenv is devagent's own, and
what the environment held), and every command gets the environment with those traces
taken out. Later changes to os.environ still apply (a test or the evaluation putting a
stand-in toolchain first on PATH), except devagent's own DEVAGENT_* settings, which the
user's shell never had.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass

# Set by `uv run` itself, never by a user's shell.
UV_RUN_MARKERS = ("UV_RUN_RECURSION_DEPTH",)
# Set alongside an activated virtualenv, or by the macOS framework launcher.
VENV_COMPANIONS = ("VIRTUAL_ENV_PROMPT", "__PYVENV_LAUNCHER__")


@dataclass(frozen=True)
class Launch:
    environ: dict[str, str]
    own_venv: str | None  # devagent's virtualenv, resolved; None when it runs without one
    by_uv_run: bool


_launch: Launch | None = None


def _real(path: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return path


def capture(environ: Mapping[str, str] | None = None, prefix: str | None = None, base_prefix: str | None = None) -> Launch:
    """Records how devagent was started; the first call wins (the arguments are for tests)."""
    global _launch
    if _launch is None:
        _launch = describe(environ, prefix, base_prefix)
    return _launch


def describe(environ: Mapping[str, str] | None = None, prefix: str | None = None, base_prefix: str | None = None) -> Launch:
    environ = dict(os.environ if environ is None else environ)
    prefix = sys.prefix if prefix is None else prefix
    base_prefix = sys.base_prefix if base_prefix is None else base_prefix
    own = _real(prefix) if _real(prefix) != _real(base_prefix) else None
    return Launch(environ, own, any(k in environ for k in UV_RUN_MARKERS))


def user_environment(environ: Mapping[str, str] | None = None, launch: Launch | None = None) -> dict[str, str]:
    """os.environ (or `environ`) without what devagent's launch added to it."""
    launch = launch or capture()
    env = dict(os.environ if environ is None else environ)
    for key in [k for k in env if k.startswith("DEVAGENT_") and k not in launch.environ]:
        del env[key]
    own = launch.own_venv
    if own is not None:
        if _real(env.get("VIRTUAL_ENV", "")) == own:
            env.pop("VIRTUAL_ENV")
            for key in VENV_COMPANIONS:
                env.pop(key, None)
        own_bins = {os.path.join(own, "bin"), os.path.join(own, "Scripts")}
        path = env.get("PATH")
        if path is not None:
            kept = [p for p in path.split(os.pathsep) if not p or _real(p) not in own_bins]
            env["PATH"] = os.pathsep.join(kept) or os.defpath
    if launch.by_uv_run:
        for key in UV_RUN_MARKERS:
            env.pop(key, None)
        # uv run also names its own binary in UV, which no shell sets.
        if env.get("UV") is not None and env.get("UV") == launch.environ.get("UV"):
            env.pop("UV")
    return env
