"""The conversation pane's widgets: the pane (pane.py), its lines (lines.py), a reply's
pieces (reply.py, plain_reply.py before Markdown is imported) and the bar of a held code
change (code_review.py)."""
