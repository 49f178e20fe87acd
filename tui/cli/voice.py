"""`devagent say` and `devagent transcribe`: the local voice and ear, for scripts and tests."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path


def add_arguments(name: str, parser: argparse.ArgumentParser) -> None:
    if name == "say":
        parser.add_argument("text", help="what to say")
        parser.add_argument("-o", "--output", required=True, type=Path, help="WAV file to write")
        parser.add_argument("--voice", default=None,
                            help="Piper voice: a .onnx path or a name (default: en_US-joe-medium)")
        parser.add_argument("--rate", type=int, default=None,
                            help="sample rate of the file (default: the voice's own)")
        parser.add_argument("--variation", type=float, default=None,
                            help="how much the delivery varies between runs; 0 gives the same "
                                 "audio every time (default: the voice's own)")
    elif name == "transcribe":
        parser.add_argument("file", type=Path, help="audio file (WAV at any sample rate)")
        parser.add_argument("--model", default=None,
                            help='"tiny.en" (default) or "base", the packaged models, or a CTranslate2 folder')
        parser.add_argument("--vocabulary", default="",
                            help="comma-separated words to expect, e.g. ReviewOrchestrator,CS1591")
        parser.add_argument("--repo", type=Path, default=None,
                            help="also expect this repository's project and class names")
    else:
        raise ValueError(f"not a voice command: {name}")


def run(name: str, args: argparse.Namespace) -> int:
    try:
        if name == "say":
            return _say(args)
        return _transcribe(args)
    except Exception as error:  # a script gets one line, not a traceback
        from agent.voice.status import describe_error

        print(f"devagent {name}: {describe_error(error, 'failed')}", file=sys.stderr)
        return 1


def _say(args: argparse.Namespace) -> int:
    from agent.voice.audio import resample, to_int16, write_wav
    from agent.voice.synth import Voice

    if not args.text.strip():
        # an empty WAV and exit 0 would pass for speech in a script
        print("devagent say: nothing to say: give the text to speak", file=sys.stderr)
        return 2
    audio, rate = Voice(args.voice, variation=args.variation).synthesize(args.text)
    if args.rate and args.rate != rate:
        audio, rate = to_int16(resample(audio, rate, args.rate)), args.rate
    args.output.parent.mkdir(parents=True, exist_ok=True)
    write_wav(args.output, audio, rate)
    print(f"{args.output} ({len(audio) / rate:.1f} s, {rate} Hz)")
    return 0


def _transcribe(args: argparse.Namespace) -> int:
    if not args.file.is_file():
        print(f"devagent transcribe: no such file: {args.file}", file=sys.stderr)
        return 1
    from agent.voice.audio import load_audio
    from agent.voice.stt import Transcriber

    vocabulary = [w.strip() for w in args.vocabulary.split(",") if w.strip()]
    if args.repo is not None:
        from agent.voice.vocabulary import repository_vocabulary

        vocabulary += repository_vocabulary(args.repo, None)
    try:
        audio = load_audio(args.file)
    except Exception as error:
        # the decoder's messages open with an errno made of letters: "[Errno 1094995529] ..."
        reason = re.sub(r"^\[Errno -?\d+\]\s*", "", str(error).strip().splitlines()[0] if str(error).strip() else "")
        reason = reason.split(": '")[0] or type(error).__name__
        print(f"devagent transcribe: cannot read {args.file} as audio: {reason}", file=sys.stderr)
        return 1
    print(Transcriber(args.model).transcribe(audio, vocabulary))
    return 0
