"""Speech in and out, offline: push-to-talk recording, local transcription, a local voice.

Nothing here imports Textual, and importing this package is cheap: the model libraries
load only when a module that needs them is imported, so the app can paint first.
"""
