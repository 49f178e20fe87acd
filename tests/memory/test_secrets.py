"""The secret filter: credential shapes are found, ordinary engineering notes are not.

The fake keys are assembled from pieces so that no scanner mistakes this file for a leak.
"""

from __future__ import annotations

import pytest

from memory.secrets import Secret, find_secrets, mask_secrets

A = "a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuVwXyZ"  # 36 mixed characters, reused to build fakes
HEX = "0123456789abcdef" * 4


def sk(prefix: str, body: str) -> str:
    return prefix + body


CREDENTIALS: list[tuple[str, str]] = [
    ("Anthropic API key", "key is " + sk("sk-ant-", "api03-") + A + A[:20] + "AA"),
    ("Anthropic API key", "ANTHROPIC_API_KEY=" + sk("sk-ant-", "admin01-") + A + "xyz"),
    ("OpenAI API key", "use " + sk("sk-", "proj-") + A + A),
    ("OpenAI API key", "old style " + sk("sk-", "") + A + "ABCDEFGHIJKL"),
    ("OpenAI API key", "service " + sk("sk-", "svcacct-") + A),
    ("AWS access key ID", "AWS_ACCESS_KEY_ID=" + "AKIA" + "IOSFODNN7Q4W2ZLM"),
    ("AWS access key ID", "temporary creds " + "ASIA" + "Y34FZKBOKMUTVV7A"),
    ("AWS secret access key", "aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYQ7W3ZKEYX9"),
    ("AWS secret access key", 'AWS_SECRET_ACCESS_KEY: "' + "je7MtGbClwBF/2Zp9Utk/h3yCo8nvb" + "Q7W3ZKEYX9" + '"'),
    ("GitHub token", "token " + "ghp_" + A),
    ("GitHub token", "oauth " + "gho_" + A),
    ("GitHub token", "app " + "ghs_" + A),
    ("GitHub token", "fine-grained " + "github_pat_" + "11ABCDEFG0" + A + "_" + A),
    ("GitLab token", "glpat-" + "xYz123ABCdef456GHIjkl"),
    ("Slack token", "bot " + "xoxb-" + "123456789012-1234567890123-" + A[:24]),
    ("Slack token", "user " + "xoxp-" + "123456789012-123456789012-123456789012-" + HEX[:32]),
    ("Slack token", "app-level " + "xapp-1-" + "A01ABCDEFGH-1234567890123-" + HEX[:32]),
    ("Slack webhook URL", "post to https://hooks.slack.com/services/" + "T00000000/B00000000/" + "Zk3PqR8sT2vW9xYb4nLm7cDf"),
    ("Google API key", "maps key " + "AIza" + "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"),
    ("Google OAuth secret", "client secret " + "GOCSPX-" + "1aB2cD3eF4gH5iJ6kL7mN8oP9qR0"),
    ("Google OAuth token", "access " + "ya29." + "a0AfH6SMC" + A),
    ("Stripe key", "stripe " + "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"),
    ("Stripe key", "test " + "sk_test_" + "4eC39HqLyjWDarjtT1zdp7dc"),
    ("Stripe key", "restricted " + "rk_live_" + "51H8xYzAbCdEfGhIjKlMnOp"),
    ("Stripe key", "webhook " + "whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
    ("npm token", "//registry.npmjs.org/:_authToken=" + "npm_" + A),
    ("API key or token", "//registry.npmjs.org/:_authToken=" + "abcdef12-3456-7890-abcd-ef1234567890"),
    ("PyPI token", "password = " + "pypi-AgEIcHlwaS5vcmc" + A + A),
    ("Hugging Face token", "HF " + "hf_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"),
    ("SendGrid API key", "SG." + "ngeVfQFYQlKU0ufo8x5d1A" + "." + "TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr"),
    ("DigitalOcean token", "dop_v1_" + HEX),
    ("Shopify token", "shpat_" + HEX[:32]),
    ("Azure storage key", "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=" + A + A + "==;"),
    (
        "JSON Web Token",
        "jwt: " + "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ"
        + ".Q7fLkxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5",
    ),
    (
        "private key",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA" + A + "\n-----END RSA PRIVATE KEY-----",
    ),
    ("private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA" + A),
    ("private key", "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg" + A + "\n-----END PRIVATE KEY-----"),
    ("bearer token", "Authorization: Bearer " + "abc123" + A),
    ("bearer token", "curl -H 'authorization: bearer " + HEX[:40] + "'"),
    ("basic auth credentials", "Authorization: Basic dXNlcjpodW50ZXIy"),
    ("password in URL", "DATABASE_URL=postgres://app:s3cr3t-Pa55@db.internal:5432/app"),
    ("password in URL", "clone https://deploy:" + "hunter2hunter2" + "@git.example.com/repo.git"),
    ("password in URL", "redis://:p4ssw0rd!@cache:6379/0"),
    ("password", "Server=db;Database=app;User Id=sa;Password=Str0ng!Pass;"),
    ("password", "password: hunter2"),
    ("password", 'DB_PASSWORD="c0rrect horse battery"'),
    ("password", "pwd=Winter2026!"),
    ("API key or token", "MY_SERVICE_API_KEY=" + "9f8e7d6c5b4a39281726354a5b6c7d8e"),
    ("API key or token", 'api_key: "' + A[:24] + '"'),
    ("API key or token", "client_secret = " + "Zx9" + A[:20]),
    ("API key or token", "DATADOG_TOKEN=" + HEX[:32]),
    ("API key or token", "secret => '" + "q1W2e3R4t5Y6u7I8o9P0" + "'"),
]


ORDINARY: list[str] = [
    # commit hashes
    "The regression came in with commit 3f2a9c1d7e8b4a6f0c5d2e1b9a8f7c6d5e4b3a21.",
    "Fixed in a1b2c3d, reverted in 9f8e7d6.",
    "git show 4b825dc642cb6eb9a060e54bf8d69288fbee4904 is the empty tree.",
    "Bisect says e83c5163316f89bfbde7d9ab23ca2e25604af290 is the first bad commit.",
    "Cherry-pick 0123456789abcdef0123456789abcdef01234567 onto release/2.4.",
    "sha256 of the build: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "Merge base is 7d3e1f0 (short hash).",
    # UUIDs and ids
    "The test tenant is 123e4567-e89b-12d3-a456-426614174000.",
    "Project GUID {8BC9CEB8-8B4A-11D0-8D11-00A0C91BC942} is the C# project type.",
    "Session 4a68cacc-858b-4a4d-a02d-c0e45eb12903 was the one that broke.",
    "Ticket JIRA-4521 tracks the flaky test.",
    "Correlation id 550e8400-e29b-41d4-a716-446655440000 appears in the logs.",
    "originSessionId: 4a68cacc-858b-4a4d-a02d-c0e45eb12903",
    # environment dumps in build logs
    "PWD=/home/runner/work/app/app",
    "OLDPWD=~/src/app-2.1",
    # paths
    "The core project is src/ClaudeReviewBot.Core/ClaudeReviewBot.Core.csproj.",
    "ReviewOrchestrator.cs line 111 still uses file.Patch.",
    "Config lives in ~/.config/devagent/config.toml.",
    "Logs go to /var/log/devagent/agent.log on the build box.",
    "Windows path C:\\Users\\dev\\source\\repos\\app\\app.sln",
    "tests/memory/test_store.py:42 is the flaky assertion.",
    "See docs/architecture/adr-0007-memory.md for the decision.",
    "Build output lands in bin/Release/net9.0/publish/.",
    "The token parser is in src/lexer/token_stream.rs.",
    "Secrets are read from /run/secrets/db_password at start-up.",
    "Password hashing is in src/Auth/PasswordHasher.cs.",
    "The api_key field is read from os.environ in settings.py.",
    "api_key = os.environ['SERVICE_API_KEY']",
    "token = get_token(scope)",
    "password = getpass.getpass()",
    "password: ${DB_PASSWORD}",
    "password=<from the vault>",
    "export PGPASSWORD=$(pass show db/dev)",
    "dsn = 'host=%(host)s password=%(password)s'",
    "password: ${{ secrets.DB_PASSWORD }}",
    "cache_key: build-2026-11-v2-release",
    "private_key: /home/dev/.ssh/id_ed25519",
    "session_token = 3600",
    "Connection string: Server=db;Database=app;User Id=sa;Password=${SA_PASSWORD};",
    "DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app",
    "Clone with https://github.com/anthropics/anthropic-sdk-python.git",
    "Docs at https://docs.python.org/3/library/os.html#os.replace",
    "The registry is https://pypi.org/simple/ and the mirror is http://mirror.local:8080/simple/.",
    "ssh git@github.com:org/repo.git works, https does not.",
    # warning and error codes
    "CS1591 is noise, ignore it. Nullable warnings are real.",
    "CS1061 means a member that does not exist.",
    "Treat CS8602 and CS8618 as errors.",
    "Suppress IDE0058 in tests only.",
    "E501 is disabled in ruff; W605 is not.",
    "TS2339: property does not exist on type.",
    "MSB3277 shows up when two references conflict.",
    "HTTP 429 means back off; HTTP 401 means the key is wrong.",
    "Exit code 137 is the OOM killer.",
    "errno 28 (ENOSPC) on the CI runner.",
    # versions
    "We are on .NET 9.0.100 and C# 13.",
    "Pin anthropic>=2.14,<3.",
    "Python 3.11.9 on CI, 3.12.4 locally.",
    "Node v20.11.1 and npm 10.2.4.",
    "Upgrade to textual 8.2.1 fixed the scroll bug.",
    "Version 1.0.0-rc.2+build.5 is the release candidate.",
    "Kernel 6.18.44 on the build box.",
    "Release train: 2026.11.2 then 2026.12.0.",
    # ordinary prose about credentials
    "Never commit secrets; the key lives in 1Password under 'Claude API'.",
    "The API key is set through ANTHROPIC_API_KEY in the shell profile.",
    "Rotate the GitHub token every 90 days.",
    "Bearer token authentication is used by the internal API.",
    "Authorization: Bearer <token>",
    "Use a bearer token from the auth service, never a hard-coded one.",
    "The password policy needs 12 characters.",
    "password: required",
    "password: see the vault",
    "token: the short form",
    "secret: none",
    "The AWS region is eu-west-1; the account alias is dev-sandbox.",
    "Stripe is in test mode on staging.",
    "The Slack channel is #build-alerts.",
    "JWTs expire after 15 minutes; refresh tokens after 30 days.",
    "PEM files live in the keys/ folder, which is in .gitignore.",
    # user and project facts
    "The developer cares most about src/ClaudeReviewBot.Core.",
    "The CLI project is just a wrapper; lower priority.",
    "Branch rename-patch-to-diff renames ChangedFile.Patch to Diff.",
    "Finish ReviewOrchestrator on Monday (2026-11-09).",
    "Prefers short answers on the voice channel, details on screen.",
    "Code freeze from 2026-12-18 to 2027-01-04.",
    "Bugs are tracked in Linear project REV.",
    "Oncall watches the Grafana board 'review-bot latency'.",
    "The user is a senior .NET developer, new to Python.",
    "Run tests with dotnet test --filter Category!=Slow.",
    "Build only the Core project: dotnet build src/ClaudeReviewBot.Core.",
    "Use uv run pytest -x -q for a quick loop.",
    "See [[feedback-push-aggressively]] for why pushes need no confirmation.",
    "Related: [[project-rename-patch-to-diff]], [[user-role]].",
    # frontmatter and markdown
    "---\nname: feedback-cs1591\ndescription: CS1591 is noise\ntype: feedback\n---\nIgnore CS1591.",
    "- [CS1591 is noise](feedback_cs1591.md) — ignore missing XML doc warnings",
    "**Why:** the user said so. **How to apply:** skip it in build summaries.",
    "| Project | Role |\n|---|---|\n| Core | main |\n| Cli | wrapper |",
    # numbers, hashes and encodings that look random but are not credentials
    "Benchmark: 1,234 ms median, p95 2,345 ms.",
    "Coverage 87.5% on Core, 42% on Cli.",
    "The base64 of 'hello' is aGVsbG8=.",
    "MD5 d41d8cd98f00b204e9800998ecf8427e is the empty string.",
    "Color #1E90FF for links.",
    "IPv6 ::1 and 127.0.0.1 both listen.",
    "MAC 00:1A:2B:3C:4D:5E on the test device.",
    "Docker image sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "The method is named sk_process_batch in the legacy code.",
    "Use the task-runner script, not risk-averse retries.",
    "The class AKIAParser parses nothing secret.",
    "Key size 4096 bits for RSA, 256 for Ed25519.",
    "Environment: ASPNETCORE_ENVIRONMENT=Development",
    "The header x-api-key is required by the gateway.",
    "ghp_ prefixes mark GitHub personal tokens; never paste one here.",
    "Slack tokens start with xoxb- for bots.",
    "JWTs start with eyJ because of base64-encoded JSON.",
    "TODO(perf): cache the tokenizer output.",
    "The access_token_lifetime setting is 3600.",
    "token_endpoint = https://login.example.com/oauth2/v2.0/token",
    "secret_name: prod/db/password (in Secrets Manager)",
    "The e.g. and i.e. abbreviations confuse the linter.",
]


def test_corpus_sizes():
    assert len({text for _, text in CREDENTIALS}) >= 30
    assert len(set(ORDINARY)) >= 100


@pytest.mark.parametrize("kind,text", CREDENTIALS, ids=[f"{i}-{k}" for i, (k, _) in enumerate(CREDENTIALS)])
def test_credentials_are_found(kind, text):
    found = find_secrets(text)
    assert found, f"missed a {kind}: {text!r}"
    assert kind in {s.kind for s in found}


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_notes_pass(text):
    assert find_secrets(text) == []


def test_mask_keeps_the_context_and_names_the_kind():
    text = "Server=db;Password=Str0ng!Pass;Trusted=no and " + "AKIA" + "IOSFODNN7Q4W2ZLM done"
    masked, found = mask_secrets(text)
    assert masked == "Server=db;Password=[masked: password];Trusted=no and [masked: AWS access key ID] done"
    assert [s.kind for s in found] == ["password", "AWS access key ID"]
    assert text[found[1].start : found[1].end] == "AKIA" + "IOSFODNN7Q4W2ZLM"


def test_mask_of_clean_text_is_identity():
    text = "nothing to see in commit 3f2a9c1d7e8b4a6f0c5d2e1b9a8f7c6d5e4b3a21"
    assert mask_secrets(text) == (text, [])


def test_overlapping_rules_give_one_secret():
    text = "Authorization: Bearer " + "ghp_" + A
    found = find_secrets(text)
    assert len(found) == 1
    masked, _ = mask_secrets(text)
    assert "ghp_" not in masked


def test_secret_is_frozen_and_compares_by_value():
    assert Secret("x", 1, 2) == Secret("x", 1, 2)
    with pytest.raises(AttributeError):
        Secret("x", 1, 2).kind = "y"  # type: ignore[misc]


@pytest.mark.parametrize("value", [None, "", 12])
def test_odd_inputs_find_nothing(value):
    assert find_secrets(value) == []  # type: ignore[arg-type]


def test_pem_without_end_still_masks_the_header():
    masked, found = mask_secrets("key:\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE...")
    assert found and found[0].kind == "private key"
    assert "PRIVATE KEY-----" not in masked


@pytest.mark.parametrize("kind,text", CREDENTIALS, ids=[f"{i}-{k}" for i, (k, _) in enumerate(CREDENTIALS)])
def test_masking_twice_changes_nothing(kind, text):
    once, _ = mask_secrets(text)
    assert mask_secrets(once) == (once, [])


@pytest.mark.parametrize(
    "text,kind",
    [
        ("Password=[masked:Hunter2-Long-1]", "password"),
        ("postgres://app:[masked:Hunter2-Long-1]@db/app", "password in URL"),
        ("[masked: " + sk("sk-ant-api03-", A) + "]", "Anthropic API key"),
        ("[masked: AKIA" + "IOSFODNN7Q4W2ZLM]", "AWS access key ID"),
    ],
)
def test_a_look_alike_marker_hides_nothing(text, kind):
    """Only our exact marker reads as already masked: a file cannot hide a key by
    wrapping it in something that looks like one."""
    assert [s.kind for s in find_secrets(text)] == [kind]
