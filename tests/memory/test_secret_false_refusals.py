"""Issue 9, point 6: notes that say where a secret is kept, and code that names one, are
memory worth keeping; the filter must let them through, the refusal's own advice included.
"""

from __future__ import annotations

import pytest

from memory.secrets import find_secrets

FROM_THE_ISSUE = [
    "password: kept in the 1Password vault",
    "DB_PASSWORD=vault:secret/data/shop/db#password",
    "db_password: !vault |\n          $ANSIBLE_VAULT;1.1;AES256\n          62313365396662343061393464336163383764373764613633653634306231386433626436623361\n",
    "var cts = new CancellationTokenSource();",
    "token: CancellationTokenSource",
    "credential = DefaultAzureCredential()",
    "credential: DefaultAzureCredential",
    "credentials: OAuth2ClientCredentials",
    "grant = OAuth2ClientCredentials",
    "PWD=C:\\agent\\_work\\1\\s",
]

WHERE_IT_IS_KEPT = [
    'password: "kept in the 1Password vault"',
    "password: kept-in-1Password",
    'password = "see 1Password: Shop / prod-db"',
    "The staging DB password is kept in the team vault, entry staging/postgres.",
    "api_key: stored in AWS Secrets Manager as prod/shop/sendgrid",
    "token: kept in Vault at secret/data/ci/token",
    "password = op://Platform/prod-db/password",
    "password: !secret mqtt_password",
    "ConnectionStrings__Shop=@Microsoft.KeyVault(SecretUri=https://shop-kv.vault.azure.net/secrets/ShopDb/)",
    "aws_secret_access_key: arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/shop/aws-Ab12Cd",
]


@pytest.mark.parametrize("note", FROM_THE_ISSUE + WHERE_IT_IS_KEPT)
def test_a_note_about_a_secret_is_not_a_secret(note):
    assert find_secrets(note) == []


@pytest.mark.parametrize("note", FROM_THE_ISSUE + WHERE_IT_IS_KEPT)
def test_the_store_accepts_it(store, note):
    result, is_error = store.run({"command": "create", "path": "/memories/where.md", "file_text": f"Secrets:\n{note}\n"})
    assert not is_error, result


def test_the_refusal_advice_is_taken(store):
    """Refused with a password, the model follows the message: it notes where the
    password is kept instead, and that is written."""
    result, is_error = store.run(
        {"command": "create", "path": "/memories/db.md", "file_text": "Staging database\npassword: Stg!ng-2026#db\n"}
    )
    assert is_error and "note where it is kept" in result
    assert "Stg!ng" not in result
    for note in (
        "password: kept in the 1Password vault",
        "password: in 1Password, item Staging DB",
        "password: see the team vault (staging/postgres)",
        "password: stored in Vault at secret/data/staging/db",
        "The password is kept in the 1Password vault Platform, item Staging DB.",
    ):
        result, is_error = store.run({"command": "create", "path": "/memories/db.md", "file_text": f"Staging database\n{note}\n"})
        assert not is_error, (note, result)


def test_a_real_password_next_to_such_a_note_is_still_refused(store):
    text = "password: kept in the 1Password vault\nold_password: Stg!ng-2026#db\n"
    result, is_error = store.run({"command": "create", "path": "/memories/db.md", "file_text": text})
    assert is_error and "credential" in result
