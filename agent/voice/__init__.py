"""Speech in and out, offline: push-to-talk recording, local transcription, a local voice.

Nothing here imports Textual, and importing this package is cheap: the model libraries
load only when a module that needs them is imported, so the app can paint first.

- stack.load_voice(): everything below, brought up from a worker thread
- controller.VoiceController: the app's voice seam (tui/voice_seam.py)
- push_to_talk.PushToTalk: idle -> recording -> transcribing -> idle, events as dataclasses
- recorder.Recorder: capture with end-of-speech detection; DeviceSource or WavSource
- stt.Transcriber, synth.Voice, tts.Speaker: the models and the interruptible speaker
- sentences, speakable: what of a streaming reply is said, and when
- vocabulary.repository_vocabulary(): the repository's words, to bias recognition
- status.voice_unavailable_reason(): why voice is off, in one line
- settings.voice_settings(): the talk key, the speech model and the voice the user chose
"""
