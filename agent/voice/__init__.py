"""Speech in and out, offline: push-to-talk recording, local transcription, a local voice.

Nothing here imports Textual, and importing this package is cheap: the model libraries
load only when a module that needs them is imported, so the app can paint first.

- stack.load_voice(): everything below, brought up from a worker thread
- controller.VoiceController: the app's voice seam (tui/turns/voice.py)
- push_to_talk.PushToTalk: idle -> recording -> transcribing -> idle, events as dataclasses
- recorder.Recorder: capture with end-of-speech detection; DeviceSource or WavSource
- endpoint.silence_wait(): how long a silence ends the recording, from what was said
- stt.Transcriber, synth.Voice, tts.Speaker: the models and the interruptible speaker
- sentences, speakable: what of a streaming reply is said, and when
- vocabulary.repository_vocabulary(): the repository's words, to bias recognition;
  hints.decoder_hints(): those words as hotwords and a prompt, within the decoder's budget
- models, choice: the packaged speech models (tiny.en, base) and which one this machine
  can afford, measured at the first start
- status.voice_unavailable_reason(): why voice is off, in one line
- settings.voice_settings(): the talk key, the speech model and the voice the user chose
"""
