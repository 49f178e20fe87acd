"""The shapes an outside probe found passing the filter, and the examples it refused.

The whole corpus is measured by test_secret_corpus.py (slow); this runs its issue-24
entries and notes on every run, through the same mask the tools use and the store's create.
"""

from __future__ import annotations

import pytest

from memory.secrets import find_secrets, mask_secrets
from tests.memory.secret_corpus import credentials, leaked, ordinary

NEW_CREDENTIALS = credentials()[173:]
NEW_NOTES = ordinary()[344:]


def test_the_new_shapes_are_there():
    assert len(NEW_CREDENTIALS) >= 40 and len(NEW_NOTES) >= 10


@pytest.mark.parametrize("case", NEW_CREDENTIALS, ids=lambda c: c.note)
def test_each_new_shape_is_masked_and_refused(case, store):
    shown = mask_secrets(case.text)[0]
    assert not any(leaked(secret, shown) for secret in case.secrets), shown
    text, is_error = store.run({"command": "create", "path": "/memories/cred.md", "file_text": case.text})
    assert is_error and "credential" in text


@pytest.mark.parametrize("note", NEW_NOTES)
def test_marked_examples_and_ids_pass(note):
    assert find_secrets(note) == [], note


def test_a_key_spelled_in_yaml_escapes_is_masked_in_listings(store):
    key = "sk_live_" + "Q7w3ZkP9xY2vB8nL4mC6dF1h"
    escaped = "".join(f"\\x{ord(c):02x}" for c in key[:8]) + key[8:]
    (store.directory / "billing.md").write_text(f'---\nname: billing\ndescription: "{escaped}"\ntype: project\n---\nBody.\n')
    [info] = store.memories()
    assert key not in info.description and "[masked" in info.description
    store.reindex()
    assert key[8:] not in (store.directory / "MEMORY.md").read_text()


@pytest.mark.parametrize("glued", ["EXAMPLE", "xxxxxxxxxx", "-your-token-here"])
def test_a_real_key_with_an_example_mark_glued_on_is_still_masked(glued):
    key = "xoxb-" + "812345678901-1234567890123-" + "Q7w3ZkP9xY2vB8nL4mC6dF1h"
    text = f"SLACK={key}{glued}"
    assert "Q7w3ZkP9xY2vB8nL" not in mask_secrets(text)[0]
