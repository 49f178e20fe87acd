"""The Debian packages some tests need, and what such a test does where one is missing.

`uv run pytest` must pass on a fresh machine before `.ci/run` has installed anything: a
test that needs a missing package skips, and the run's summary names what to install.
Under `CI=true` (as `.ci/run` runs) a missing package fails the test instead, so CI can
never pass by skipping.
"""

from __future__ import annotations

import ctypes.util
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass

import pytest


@dataclass(frozen=True)
class Package:
    debian: str  # what `apt-get install` takes
    present: Callable[[], bool]
    why: str


def _loads(name: str) -> bool:
    """The library is there and loads (an entry in the linker's cache alone is not enough)."""
    found = ctypes.util.find_library(name)
    if found is None:
        return False
    try:
        ctypes.CDLL(found)
    except OSError:
        return False
    return True


def _commands(*names: str) -> Callable[[], bool]:
    return lambda: all(shutil.which(name) for name in names)


PACKAGES: dict[str, Package] = {
    "portaudio": Package("libportaudio2", lambda: _loads("portaudio"),
                         "sounddevice records and plays through PortAudio"),
    "pulseaudio": Package("pulseaudio pulseaudio-utils", _commands("pulseaudio", "pactl"),
                          "a PulseAudio null sink is the sound card of the device tests"),
    "espeak-ng": Package("espeak-ng", _commands("espeak-ng"),
                         "a second voice says identifiers to the speech recognizer"),
    "tmux": Package("tmux", _commands("tmux"), "the end-to-end tests drive devagent in a tmux terminal"),
    "bubblewrap": Package("bubblewrap", _commands("bwrap"), "a command the user approved runs in a bubblewrap sandbox"),
}

PREFIX = "needs the Debian package(s) "


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def missing(*names: str) -> list[str]:
    return [name for name in names if not PACKAGES[name].present()]


def need(*names: str) -> None:
    """Skips the calling test (fails it under CI=true) when a package it needs is missing."""
    absent = missing(*names)
    if not absent:
        return
    debian = " ".join(PACKAGES[name].debian for name in absent)
    message = f"{PREFIX}{debian}: sudo apt-get install {debian}"
    if in_ci():
        pytest.fail(f"CI=true and a system package is missing: {message}", pytrace=False)
    pytest.skip(message)


def needs(*names: str) -> pytest.MarkDecorator:
    """A marker for a test or module; tests/conftest.py applies it before the test runs."""
    return pytest.mark.system_packages(*names)


def summary_lines(skip_messages: list[str]) -> list[str]:
    """What to install, from the messages of the tests this run skipped."""
    packages: set[str] = set()
    count = 0
    for message in skip_messages:
        if PREFIX in message:
            count += 1
            packages.update(message.split(PREFIX, 1)[1].split(":", 1)[0].split())
    if not count:
        return []
    return [f"{count} test(s) skipped: this machine lacks Debian packages they need.",
            f"Install them to run everything (.ci/run does): sudo apt-get install -y {' '.join(sorted(packages))}"]
