"""The screen pane: what the agent put on screen, one item at a time (pane.py)."""
