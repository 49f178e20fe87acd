"""Text shaped like a credential.

Memory is fed back into every later prompt, and tool output goes to the model and the
screen, so a key that slips into either is copied again and again. This is a denylist of
known shapes, in two tables: formats.py (a provider's prefix and alphabet) and contexts.py
(a field name, a flag, a URL, a credential file's layout), with values.py deciding whether
what follows `password:` is a password or a note saying where one is kept. normalise.py
undoes the common disguises first, and scanner.py runs it all in linear time.

It catches the common shapes, not every secret, and is tuned so that ordinary engineering
notes (commit hashes, UUIDs, paths, warning codes, versions, class names) pass.
detect-secrets was measured as a base and left out: its plugins took about 45 s per MB
of source code, against a budget of 1 s.
"""

from memory.secrets.scanner import ScanCancelled, Secret, find_secrets, mask_secrets

__all__ = ["ScanCancelled", "Secret", "find_secrets", "mask_secrets"]
