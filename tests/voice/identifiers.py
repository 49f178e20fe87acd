"""Speech of a developer naming the repository's things the way people say them: a
camel-case name as its words ("comfy UI server"), an error code digit by digit ("C S
one five nine one"), in the bundled Piper voice and in espeak-ng, each at three speeds.

Used by tests/voice/test_identifiers.py and benchmarks/voice_latency.py.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from tests.voice.words import words

# (what is said, what should be written, the identifiers in it)
SAID = [
    ("go into your comfy UI folder and list the files",
     "go into your ComfyUI folder and list the files", ["ComfyUI"]),
    ("open the comfy UI server class", "open the ComfyUIServer class", ["ComfyUIServer"]),
    ("why does the review orchestrator time out",
     "why does the ReviewOrchestrator time out", ["ReviewOrchestrator"]),
    ("fix C S one five nine one in the payment gateway project",
     "fix CS1591 in the PaymentGateway project", ["CS1591", "PaymentGateway"]),
    ("the build says T S two three two two in parse diff hunk",
     "the build says TS2322 in parseDiffHunk", ["TS2322", "parseDiffHunk"]),
]
PIPER_SPEEDS = (0.8, 1.0, 1.25)    # Piper's length scale: under 1 is faster
ESPEAK_SPEEDS = (140, 175, 220)    # words a minute; espeak-ng's default is 175
# Classes a repository has besides the ones said, so the ranking and the cut matter.
OTHER_CLASSES = ["SessionStore", "TurnRunner", "MemoryPane", "ToolResult", "DiffView", "BuildStep",
                 "PromptCache", "ReplyBlock", "EventSink", "WorkerPool", "ConfigFile", "HeapGuard",
                 "ScreenPane", "StatusLine", "TraceReport", "QueueDepth", "LogFolder", "TokenMeter",
                 "PatchQueue", "CommitGraph", "BranchPicker", "SnapshotDiff", "RetryPolicy",
                 "ThemeColors", "KeyBindings", "HelpScreen", "SearchIndex", "PathFilter"]
BUILD_LOG = ("web/diff.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.\n"
             "src/Reviews/Payment.cs(40,9): warning CS1591: Missing XML comment [Reviews.csproj]\n"
             "src/Reviews/Payment.cs(52,9): warning CS1591: Missing XML comment [Reviews.csproj]\n")
MEMORY = ("---\nname: payments\ntype: project\ndescription: where the payment code lives\n---\n"
          "The PaymentGateway project is the one the user works on most.\n")


def make_repository(root: Path) -> Path:
    """A repository whose folder, classes and functions are the ones said, among others."""
    (root / "ComfyUI").mkdir(parents=True)
    (root / "ComfyUI" / "server.py").write_text("class ComfyUIServer:\n    pass\n")
    (root / "src" / "Reviews").mkdir(parents=True)
    (root / "src" / "Reviews" / "Reviews.csproj").write_text("<Project/>")
    (root / "src" / "Reviews" / "Review.cs").write_text(
        "public sealed class ReviewOrchestrator { }\n"
        + "".join(f"internal class {name} {{ }}\n" for name in OTHER_CLASSES))
    (root / "web").mkdir()
    (root / "web" / "diff.ts").write_text(
        "export function parseDiffHunk(text: string): number { return 0 }\n"
        "export function renderSideBySide(a: string) { }\n")
    return root


def identifier_misses(heard: str, identifiers: list[str]) -> int:
    """Identifiers not written as one word in what was heard ("comfy UI" for ComfyUI is a miss)."""
    said = words(heard)
    return sum(1 for identifier in identifiers if words(identifier)[0] not in said)


def espeak_available() -> bool:
    return shutil.which("espeak-ng") is not None


def espeak(text: str, speed: int) -> np.ndarray:
    """16 kHz float32 speech of espeak-ng (Debian's espeak-ng) at `speed` words a minute."""
    from agent.voice.audio import load_audio

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "said.wav"
        subprocess.run(["espeak-ng", "-v", "en-us", "-s", str(speed), "-w", str(path), text],
                       check=True, capture_output=True, timeout=60)
        return load_audio(path)


def piper(voice, text: str, scale: float) -> np.ndarray:
    from agent.voice.audio import resample

    previous, voice.length_scale = voice.length_scale, scale
    try:
        audio, rate = voice.synthesize(text)
    finally:
        voice.length_scale = previous
    return resample(audio, rate, 16000)


def recordings(voice) -> list[tuple[str, np.ndarray, str, list[str]]]:
    """(which voice and speed, audio, what should be written, identifiers) for every case."""
    made = []
    for scale in PIPER_SPEEDS:
        for said, written, identifiers in SAID:
            made.append((f"piper x{scale:g}", piper(voice, said, scale), written, identifiers))
    for speed in ESPEAK_SPEEDS:
        for said, written, identifiers in SAID:
            made.append((f"espeak-ng {speed} wpm", espeak(said, speed), written, identifiers))
    return made
