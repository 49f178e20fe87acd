"""Issue 9, point 5: whole families of credentials the filter used to miss, and the
disguises that hid the ones it knew.

Each case is masked (no part of the key shows) and refused by the real store. The fake
values come from a seeded generator, so no scanner mistakes this file for a leak.
"""

from __future__ import annotations

import base64
import random

import pytest

from memory.secrets import find_secrets, mask_secrets
from tests.memory.secret_corpus import (
    ALPHABETS,
    full_width,
    leaked,
    percent_encoded,
    soft_hyphens,
    zero_width,
)

_rng = random.Random(9)


def fake(alphabet: str, n: int) -> str:
    return "".join(_rng.choice(ALPHABETS[alphabet]) for _ in range(n))


LETTERS_KEY = "sk-" + fake("alpha", 48)
PROJECT_LETTERS_KEY = "sk-proj-" + fake("alpha", 64)
TWILIO_TOKEN = fake("hex", 32)
TWILIO_KEY = "SK" + fake("hex", 32)
SAS = fake("alnum", 43)
STORAGE_KEY = fake("b64", 86) + "=="
SMTP = "Xk9#mQ2$vL7p"
DB_PASS = "r3d1s-S3cure-2026"
DISCORD = "MT" + fake("alnum", 24) + "." + fake("url", 6) + "." + fake("url", 38)
DISCORD_HOOK = fake("url", 68)
MAILGUN = "key-" + fake("hex", 32)
TELEGRAM = fake("digits", 10) + ":AA" + fake("url", 33)
ATLASSIAN = "ATATT3xFfGF0" + fake("url", 170)
DATABRICKS = "dapi" + fake("hex", 32)
PGPASS = "pgS3cret!2026"
NETRC = fake("alnum", 28)
CURL = "Adm1n#2026"
MYSQL = "R00t!pass"

FAMILIES: list[tuple[str, str, str]] = [
    ("OpenAI key of letters only", f'openai.api_key = "{LETTERS_KEY}"', LETTERS_KEY),
    ("OpenAI project key of letters only", f"export OPENAI_API_KEY={PROJECT_LETTERS_KEY}", PROJECT_LETTERS_KEY),
    ("Twilio auth token", f"TWILIO_AUTH_TOKEN={TWILIO_TOKEN}", TWILIO_TOKEN),
    ("Twilio API key", f'client = Client("{TWILIO_KEY}", other, account_sid)', TWILIO_KEY),
    ("Azure SAS signature", f"https://shop.blob.core.windows.net/up?sv=2022-11-02&sp=rw&sig={SAS}%3D", SAS),
    ("Azure storage connection string", f"DefaultEndpointsProtocol=https;AccountName=shop;AccountKey={STORAGE_KEY};", STORAGE_KEY),
    ("*_PASS line", f"SMTP_PASS={SMTP}", SMTP),
    ("*_PASSWORD line", f"REDIS_PASSWORD={DB_PASS}", DB_PASS),
    ("Discord bot token", f"DISCORD_TOKEN={DISCORD}", DISCORD),
    ("Discord webhook URL", f"https://discord.com/api/webhooks/{fake('digits', 19)}/{DISCORD_HOOK}", DISCORD_HOOK),
    ("Mailgun key", f"MAILGUN_API_KEY={MAILGUN}", MAILGUN),
    ("Telegram bot token", f'bot = telebot.TeleBot("{TELEGRAM}")', TELEGRAM),
    ("Atlassian API token", f"JIRA_API_TOKEN={ATLASSIAN}", ATLASSIAN),
    ("Databricks token", f"host = https://adb-1.azuredatabricks.net\ntoken = {DATABRICKS}", DATABRICKS),
    (".pgpass line", f"db.internal:5432:shop:shop_app:{PGPASS}", PGPASS),
    (".netrc line", f"machine git.acme.io login deploy password {NETRC}", NETRC),
    ("curl -u user:pass", f"curl -u admin:{CURL} https://jenkins.acme.io/api/json", CURL),
    ("mysql -pSECRET", f"mysql -h db -u root -p{MYSQL} shop", MYSQL),
]


@pytest.mark.parametrize("family,text,secret", FAMILIES, ids=[f[0] for f in FAMILIES])
def test_each_family_is_masked(family, text, secret):
    masked, found = mask_secrets(text)
    assert found, f"missed a {family}"
    assert not leaked(secret, masked), masked


@pytest.mark.parametrize("family,text,secret", FAMILIES, ids=[f[0] for f in FAMILIES])
def test_each_family_is_refused_by_the_store(store, family, text, secret):
    result, is_error = store.run({"command": "create", "path": "/memories/note.md", "file_text": f"Setup notes.\n{text}\n"})
    assert is_error and "credential" in result, result
    assert secret not in result


def test_a_base64_wrapped_credential_file_is_masked_whole():
    env = f"DATABASE_URL=postgres://shop:{PGPASS}@db:5432/shop\nSTRIPE_SECRET_KEY=sk_live_51{fake('alnum', 60)}\n"
    encoded = base64.b64encode(env.encode()).decode()
    lines = [encoded[i : i + 76] for i in range(0, len(encoded), 76)]
    text = "apiVersion: v1\nkind: Secret\ndata:\n  .env: " + "\n    ".join(lines) + "\nmetadata:\n  name: shop-env\n"
    masked, found = mask_secrets(text)
    assert found and found[0].kind.endswith("(base64)")
    assert not any(leaked(line, masked) for line in lines), masked
    assert masked.count("\n") == text.count("\n"), "masking must keep every line"
    assert "name: shop-env" in masked


def test_base64_of_ordinary_text_is_left_alone():
    text = "greeting: " + base64.b64encode(b"hello, this is an ordinary greeting").decode()
    assert find_secrets(text) == []


@pytest.mark.parametrize(
    "first,second",
    [
        ("OPENAI_API_KEY=sk-proj-" + fake("url", 40), fake("url", 40)),
        ('const token = "ghp_' + fake("alnum", 18) + '" +', '  "' + fake("alnum", 18) + '";'),
        ("key for the eval runs: sk-ant-api03-" + fake("alnum", 50), fake("alnum", 45) + "AA"),
    ],
)
def test_a_key_split_over_two_lines_is_masked_in_both_halves(first, second):
    text = f"Setup:\n{first}\n{second}\nDone."
    masked, found = mask_secrets(text)
    head = first.split("_")[-1].split("-")[-1].strip('"+ ')[-12:]
    tail = second.strip(' ";')[:12]
    assert head not in masked and tail not in masked, masked
    assert masked.splitlines()[0] == "Setup:" and masked.splitlines()[-1] == "Done."
    assert masked.count("\n") == text.count("\n")


GITHUB = "ghp_" + fake("alnum", 36)
AWS_ID = "AKIA" + fake("upper", 16)
RANDOM_KEY = fake("alnum", 40)


@pytest.mark.parametrize(
    "name",
    [
        f"/memories/creds_{GITHUB}.md",
        f"/memories/notes-{AWS_ID}.md",
        f"/memories/creds_{RANDOM_KEY}.md",
        f"/memories/keys/token-{RANDOM_KEY}.md",
        f"/memories/creds_{SMTP.replace('%', '')}.md",
    ],
)
def test_a_secret_in_a_file_name_after_an_underscore_or_dash_is_refused(store, name):
    result, is_error = store.run({"command": "create", "path": name, "file_text": "nothing secret here\n"})
    assert is_error and "credential" in result, result
    store.run({"command": "create", "path": "/memories/plain.md", "file_text": "nothing secret here\n"})
    result, is_error = store.run({"command": "rename", "old_path": "/memories/plain.md", "new_path": name})
    assert is_error and "credential" in result, result
    key = name.rsplit("/", 1)[1].split("_", 1)[-1].split("-", 1)[-1][:-3]
    assert key not in result, "the refusal must not repeat the key"


def test_ordinary_names_with_secret_words_are_accepted(store):
    for name in ("password-policy.md", "token_refresh_flow.md", "creds_location.md", "api-key-rotation-2026.md", "secret-santa.md"):
        result, is_error = store.run({"command": "create", "path": f"/memories/{name}", "file_text": "notes\n"})
        assert not is_error, result


ANTHROPIC = "sk-ant-api03-" + fake("url", 93) + "AA"


def mixed_entities(s: str) -> str:
    """Decimal and hex character references in turn (the corpus uses hex only)."""
    return "".join(f"&#x{ord(c):x};" if i % 2 else f"&#{ord(c)};" for i, c in enumerate(s))


@pytest.mark.parametrize("disguise", [zero_width, soft_hyphens, full_width, percent_encoded, mixed_entities],
                         ids=["zero_width", "soft_hyphens", "full_width", "percent", "entities"])
@pytest.mark.parametrize("secret", [ANTHROPIC, GITHUB, AWS_ID])
def test_a_disguised_key_is_found_and_masked_with_its_disguise(disguise, secret):
    hidden = disguise(secret)
    text = f"note before é… then {hidden} and after"
    masked, found = mask_secrets(text)
    assert found, f"missed {secret[:6]} behind {disguise.__name__}"
    assert not leaked(hidden, masked), masked
    assert masked.startswith("note before é… then [masked: ") and masked.endswith("] and after")


def test_the_mask_covers_the_disguise_exactly():
    hidden = zero_width(GITHUB)
    text = f"a {hidden} b"
    [secret] = find_secrets(text)
    assert text[secret.start : secret.end] == hidden
