"""A Piper voice's model cut in three, so a sentence can be heard before all of it is made.

A Piper voice is one VITS graph: the text encoder and the duration predictor read the
whole sentence and lay out its frames (about 12 ms of audio each), a flow turns them into
the vocoder's input, and the vocoder (HiFi-GAN) makes the audio. Run whole, nothing comes
out until the last sample is made: "The newest commit on main prunes old checkpoints"
took 125 ms on two cores, 88 of them in the vocoder. The flow and the vocoder only look a
few frames either side of each frame, so once the encoder has laid out the sentence they
can make it a stretch at a time, each stretch with enough frames of context either side
that its audio is the same, to within float rounding, as the whole run's; the first
0.3 s of that sentence is ready after about 45 ms. The prosody is the whole
sentence's: the encoder still reads it all before anything is made.

The cut is found in the graph itself (the tensors the flow's and the vocoder's first
operations read), and checked when the voice loads: a sentence made a stretch at a time
must match the same sentence made whole, else the voice is used whole.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

# Frames of context each side of a stretch. The joe voice's flow reads 24 frames either
# side (exact from 24 on, 0.003 off at 16) and its vocoder 12 (exact from 12, 0.002 off
# at 8); a margin on each for voices built with larger kernels, and the load-time check
# for any that still differ.
FLOW_CONTEXT = 32
VOCODER_CONTEXT = 16
# The largest difference, on audio in -1..1, between stretches and the whole that still
# counts as the same (float rounding across different window sizes is about 1e-6).
SAME = 1e-3


@dataclass
class VoiceParts:
    """The three sessions, and the names of the tensors between them."""

    encoder: Any          # (input, input_lengths, scales[, sid]) -> (prior, mask)
    flow: Any             # (prior, mask) -> latent
    vocoder: Any          # latent -> audio
    prior: str
    mask: str
    latent_name: str
    hop: int              # audio samples per frame

    def encode(self, inputs: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """The sentence laid out in frames: (prior [1, C, frames], mask [1, 1, frames])."""
        prior, mask = self.encoder.run([self.prior, self.mask], inputs)
        return prior, mask

    def latent(self, prior: np.ndarray, mask: np.ndarray, start: int, end: int) -> np.ndarray:
        """The flow's output for frames [start, end), as the whole graph has it there."""
        frames = prior.shape[2]
        f_start, f_end = max(0, start - FLOW_CONTEXT), min(frames, end + FLOW_CONTEXT)
        latent = self.flow.run([self.latent_name], {self.prior: prior[:, :, f_start:f_end],
                                                    self.mask: mask[:, :, f_start:f_end]})[0]
        return np.ascontiguousarray(latent[:, :, start - f_start:end - f_start])

    def vocode(self, latent: np.ndarray, start: int, end: int) -> np.ndarray:
        """float32 audio of frames [start, end) of `latent` (the flow's output over a
        stretch), with whatever context it holds either side."""
        v_start, v_end = max(0, start - VOCODER_CONTEXT), min(latent.shape[2], end + VOCODER_CONTEXT)
        audio = self.vocoder.run(None, {self.latent_name: np.ascontiguousarray(latent[:, :, v_start:v_end])})[0]
        audio = audio.reshape(-1)[(start - v_start) * self.hop:(end - v_start) * self.hop]
        return np.asarray(audio, dtype=np.float32)

    def audio(self, prior: np.ndarray, mask: np.ndarray, start: int, end: int) -> np.ndarray:
        """float32 audio of frames [start, end), as the whole graph makes it there."""
        frames = prior.shape[2]
        v_start, v_end = max(0, start - VOCODER_CONTEXT), min(frames, end + VOCODER_CONTEXT)
        return self.vocode(self.latent(prior, mask, v_start, v_end), start - v_start, end - v_start)

    def stretches(self, prior: np.ndarray, mask: np.ndarray, first: int, longest: int) -> Iterator[np.ndarray]:
        """The sentence's float32 audio in the stretches plan() lays out. The flow runs
        twice: for the first stretch, then for all the rest at once."""
        frames = prior.shape[2]
        stretches = plan(frames, first, longest)
        yield self.audio(prior, mask, 0, stretches[0].end)
        if len(stretches) == 1:
            return
        offset = max(0, stretches[0].end - VOCODER_CONTEXT)
        rest = self.latent(prior, mask, offset, frames)
        for stretch in stretches[1:]:
            yield self.vocode(rest, stretch.start - offset, stretch.end - offset)


@dataclass(frozen=True)
class Stretch:
    start: int
    end: int
    work: int  # frames the flow and the vocoder run over to make it


def plan(frames: int, first: int, longest: int) -> list[Stretch]:
    """A sentence of `frames` frames in stretches: `first` frames, then each twice as long
    as the one before, up to `longest`; each with the work it takes (VoiceParts.stretches)."""
    end = min(first, frames)
    vocoded = min(frames, end + VOCODER_CONTEXT)
    stretches = [Stretch(0, end, vocoded + min(frames, vocoded + FLOW_CONTEXT))]
    offset = max(0, end - VOCODER_CONTEXT)
    flow = frames - max(0, offset - FLOW_CONTEXT)  # the rest's flow, with the second stretch
    start, size = end, 2 * first
    while start < frames:
        end = min(frames, start + size)
        vocoded = min(frames, end + VOCODER_CONTEXT) - max(offset, start - VOCODER_CONTEXT)
        stretches.append(Stretch(start, end, vocoded + flow))
        start, size, flow = end, min(2 * size, longest), 0
    return stretches


def split_model(model: Path, session: Any, hop: int) -> VoiceParts | None:
    """The voice's graph in three sessions made by `session(a part's file or bytes)`; None
    when the graph has no flow and vocoder where a Piper VITS export has them.

    The first load cuts the graph and keeps the three parts in the user's cache (about the
    voice's size again); later loads read them from there. Cutting holds the whole graph
    in memory: sessions made from the cut parts in memory left the app 80 MB larger than
    the voice as Piper loads it, sessions read from the files no larger."""
    folder = _cut_folder(model)
    names = _read_cut(folder) if folder is not None else None
    if names is None:
        cut = _cut(model)
        if cut is None:
            if folder is not None:
                _write_cut(folder, [], {"cuts": False})
            return None
        data, names = cut
        if folder is None or not _write_cut(folder, data, names):
            sessions = [session(part) for part in data]
            del data
            return _with_mask_known(VoiceParts(sessions[0], sessions[1], sessions[2], names["prior"], names["mask"],
                                               names["latent"], hop))
        del data
    if not names.get("cuts", True):
        return None
    assert folder is not None
    sessions = [session(str(folder / f"{part}.onnx")) for part in _PARTS]
    return _with_mask_known(VoiceParts(sessions[0], sessions[1], sessions[2], names["prior"], names["mask"],
                                       names["latent"], hop))


_PARTS = ("encoder", "flow", "vocoder")
CUT_VERSION = 1  # of how the graph is cut; a cut of another version is made again


def _cut_folder(model: Path) -> Path | None:
    from agent.voice.models import joined_models_dir

    try:
        stat = model.stat()
    except OSError:
        return None
    return joined_models_dir() / f"voice-{model.stem}-{stat.st_size}-{int(stat.st_mtime)}-cut{CUT_VERSION}"


def _read_cut(folder: Path) -> dict[str, Any] | None:
    import json

    try:
        names: dict[str, Any] = json.loads((folder / "names.json").read_text())
    except (OSError, ValueError):
        return None
    if names.get("cuts", True) and not all((folder / f"{part}.onnx").is_file() for part in _PARTS):
        return None
    return names


def _write_cut(folder: Path, data: list[bytes], names: dict[str, Any]) -> bool:
    """The parts and their names into `folder`, whole or not at all; False where the cache
    cannot be written."""
    import json
    import shutil
    import tempfile

    from memory.private import make_private

    try:
        make_private(folder.parent)
        scratch = Path(tempfile.mkdtemp(prefix=".cutting-", dir=folder.parent))
        try:
            for part, content in zip(_PARTS, data):
                (scratch / f"{part}.onnx").write_bytes(content)
            (scratch / "names.json").write_text(json.dumps(names))
            if folder.exists():
                shutil.rmtree(folder)  # left by a cut that did not finish
            scratch.rename(folder)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    except OSError:
        return _read_cut(folder) is not None  # another start cut it meanwhile
    return True


def _cut(model: Path) -> tuple[list[bytes], dict[str, Any]] | None:
    """The graph's three parts, serialized, and the names of the tensors between them."""
    import onnx
    from onnx.utils import Extractor

    graph = onnx.load(str(model))
    nodes = list(graph.graph.node)
    made_by = {output: index for index, node in enumerate(nodes) for output in node.output}
    weights = {tensor.name for tensor in graph.graph.initializer}
    flow_start = next((i for i, node in enumerate(nodes) if node.name.startswith("/flow/")), None)
    vocoder = next((node for node in nodes if node.name.startswith("/dec/")), None)
    if flow_start is None or vocoder is None:
        return None
    # what the flow and everything after it read from before it: the prior and the mask
    # (the graph's constants aside); which is which is seen on a sentence (_with_mask_known)
    before = sorted({name for node in nodes[flow_start:] for name in node.input
                     if name and name not in weights and made_by.get(name, len(nodes)) < flow_start
                     and nodes[made_by[name]].op_type != "Constant"})
    latent = vocoder.input[0]
    if len(before) != 2 or latent not in made_by:
        return None
    extractor = Extractor(graph)
    inputs = [tensor.name for tensor in graph.graph.input]
    data = [extractor.extract_model(inputs, before).SerializeToString(),
            extractor.extract_model(before, [latent]).SerializeToString(),
            extractor.extract_model([latent], [output.name for output in graph.graph.output][:1]).SerializeToString()]
    return data, {"prior": before[0], "mask": before[1], "latent": latent}


def _with_mask_known(parts: VoiceParts) -> VoiceParts:
    feeds = {"input": np.array([[1, 0, 2, 0, 3]], dtype=np.int64),
             "input_lengths": np.array([5], dtype=np.int64),
             "scales": np.array([0.0, 1.0, 0.0], dtype=np.float32)}
    wanted = {tensor.name for tensor in parts.encoder.get_inputs()}
    if "sid" in wanted:
        feeds["sid"] = np.array([0], dtype=np.int64)
    first, second = parts.encoder.run([parts.prior, parts.mask], feeds)
    if first.shape[1] == 1 and second.shape[1] != 1:
        parts.prior, parts.mask = parts.mask, parts.prior
    return parts


def matches_whole(parts: VoiceParts, inputs: dict[str, np.ndarray], first: int) -> bool:
    """Whether a sentence made a stretch at a time (`first` frames, then twice as many each
    time) is the sentence made in one stretch."""
    prior, mask = parts.encode(inputs)
    whole = parts.audio(prior, mask, 0, prior.shape[2])
    stretched = np.concatenate(list(parts.stretches(prior, mask, first, 2 * first)))
    return stretched.shape == whole.shape and float(np.max(np.abs(stretched - whole))) <= SAME
