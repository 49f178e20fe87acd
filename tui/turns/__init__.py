"""The turns off the UI thread: the driver that owns a turn's state (driver.py), the inbox
its events cross in (inbox.py), a resumed session's earlier turns (earlier.py), and the
voice a turn speaks through (voice.py)."""
