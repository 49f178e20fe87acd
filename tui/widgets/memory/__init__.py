"""The memory pane's widgets: the pane (pane.py), its list (listing.py what it lists,
list_widget.py and row.py how), the preview, the folder watcher (watch.py), the review and
delete actions, and how trust is drawn (trust_view.py)."""
