"""Kinds of credential text a fresh generator found passing the filter, and the GPG key
ids it refused.

Each text is refused by the store's create and masked in what read_file returns for a
file holding it: both go through the one detector, and read_file masks the whole file
at once, so a name on one line and its value on the next are seen together.
"""

from __future__ import annotations

import base64
import json

import pytest

from agent.tools.base import ToolContext
from agent.tools.files import ReadFileTool
from memory.secrets import find_secrets
from tests.memory.secret_corpus import leaked

PW = "Qv7" + "#mT2r!pLx9"  # a made-up password
TOKEN = "f3Kq9ZtX2" + "bWm8Lr4Nc7Vd1Hs6Jy0Pe"  # a made-up token with no provider prefix
HEX = "9c4e1b7a" + "d2f08e63a5c9b17d4e2f6a80"  # a made-up hex key
B64_KEY = "tR5xQ2mN8vL" + "4kP7wZ1yB3cF6hJ9sD0gA+e/Ui=="


def _aws_file() -> str:
    return f"[default]\naws_access_key_id = AKIA{'Q3RZ7W' + 'XK2NMB5T4Y'}\naws_secret_access_key = {B64_KEY[:40]}\n"


def _service_account() -> str:
    body = "\n".join(("MIIEv" + "QIBADANBgkqhkiG9w0BAQ" + str(i) * 42)[:64] for i in range(5))
    return json.dumps(
        {
            "type": "service_account",
            "project_id": "shop-prod-311",
            "private_key_id": HEX[:16] + "b4c7e1f0a9d3e8c2b6f5",
            "private_key": f"-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----\n",
            "client_email": "ci@shop-prod-311.iam.gserviceaccount.com",
        }
    )


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


MISSED = {
    "name and value on two lines: Kubernetes env": (f"containers:\n  - env:\n      - name: PAYMENTS_API_KEY\n        value: {TOKEN[:12]}-{TOKEN[12:]}\n", TOKEN[12:]),
    "name and value on two lines: CI variables": (f"variables:\n  - key: DEPLOY_TOKEN\n    value: {TOKEN}\n    protected: true\n", TOKEN),
    "name and value on two lines: ECS task definition": (f'"environment": [\n  {{\n    "name": "DB_PASSWORD",\n    "value": "{PW}"\n  }}\n]', PW),
    "name and value on two lines: Hadoop XML": (f"<property>\n  <name>fs.s3a.secret.key</name>\n  <value>{B64_KEY[:40]}</value>\n</property>", B64_KEY[:40]),
    "name and value on two lines: Terraform default": (f'variable "webhook_secret" {{\n  type    = string\n  default = "{HEX}"\n}}', HEX),
    "markdown table, name in a row": (f"| Setting | Value |\n|---|---|\n| REGION | eu-west-1 |\n| SIGNING_SECRET | {HEX} |\n", HEX),
    "markdown table, password column": (f"| Host | User | Password |\n|------|------|----------|\n| db1 | admin | `{PW}` |\n", PW),
    "chat prose: set it to": (f"I changed the admin password to {PW} this morning", PW),
    "chat prose: value before its name": (f"just use {TOKEN} as the api token for now", TOKEN),
    "chat prose: log in with": (f"you can log in with ops and {PW}", PW),
    "JSON escaped in a string": (f'{{"settings": "{{\\"apiKey\\": \\"{TOKEN}\\", \\"retries\\": 2}}"}}', TOKEN),
    "JSON escaped in a log line": (f'audit payload="{{\\"user\\":\\"jo\\",\\"password\\":\\"{PW}\\"}}"', PW),
    "CLI output: created token on the next line": (f"$ acme tokens create --name ci\nCreated a new API token. Copy it now:\n\n  {TOKEN}\n", TOKEN),
    "CLI output: vault-style table": (f"Key                  Value\n---                  -----\ntoken                {TOKEN}\ntoken_policies       [default]\n", TOKEN),
    "SMTP URL whose user holds @": (f"EMAIL_URL=smtp://alerts@acme.io:{PW}@smtp.acme.io:587", PW),
    "sqlplus user/password@db": (f"sqlplus -s app_owner/{PW}@//db.acme.io:1521/SHOP", PW),
    "sqlplus with @ in the password": ("sqlplus scott/" + "Tig3r@2026x" + "@orcl", "Tig3r@2026x"),
    "ldapsearch -w": (f"ldapsearch -x -H ldaps://ldap.acme.io -D cn=reader,dc=acme,dc=io -w '{PW}' -b ou=people,dc=acme,dc=io", PW),
    "Teams webhook": (
        "TEAMS_URL=https://acme.webhook.office.com/webhookb2/3f1c2e4a-1b2c-4d5e-8f90-1a2b3c4d5e6f@9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d"
        "/IncomingWebhook/" + HEX[:32] + "/0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
        "IncomingWebhook/" + HEX[:32],
    ),
    "Teams workflow webhook": (
        "https://prod-27.westeurope.logic.azure.com:443/workflows/" + HEX[:32] + "/triggers/manual/paths/invoke"
        "?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=Zk_" + TOKEN,
        TOKEN,
    ),
    "base64 service-account JSON in a JSON secret": ('{"kind": "Secret", "data": {"key.json": "' + _b64(_service_account()) + '"}}', _b64(_service_account())[200:260]),
    "base64 AWS credentials file piped to base64 -d": (f"echo '{_b64(_aws_file())}' | base64 -d > ~/.aws/credentials", _b64(_aws_file())[40:]),
    "base64 .netrc inside JSON": ('{"data": {"netrc": "' + _b64(f"machine git.acme.io login ci password {PW}\n") + '"}}', _b64(f"machine git.acme.io login ci password {PW}\n")[24:]),
}


def _read_file(tmp_path, text: str) -> str:
    repo = tmp_path / "sandbox" / "repo"
    repo.mkdir(parents=True)
    (repo / "notes.txt").write_text(text, encoding="utf-8")
    result = ReadFileTool().run({"path": "notes.txt"}, ToolContext(repo=repo))
    assert not result.is_error, result.text
    return result.text


@pytest.mark.parametrize("kind", list(MISSED))
def test_refused_in_a_memory_write(kind, store):
    text, _ = MISSED[kind]
    result, is_error = store.run({"command": "create", "path": "/memories/setup.md", "file_text": f"Setup notes\n{text}\n"})
    assert is_error and "credential" in result, result


@pytest.mark.parametrize("kind", list(MISSED))
def test_masked_in_read_file(kind, tmp_path):
    text, secret = MISSED[kind]
    shown = _read_file(tmp_path, f"Setup notes\n{text}\n")
    assert not leaked(secret, shown), shown
    assert "[masked:" in shown


GPG = [
    "signing key: 8F64BDA237F20C52",
    "gpg --recv-keys 8F64BDA237F20C52",
    "GPG key: 8f64bda237f20c52",
    "git config user.signingkey 8F64BDA237F20C52",
    "pgp_key_id: 0x8F64BDA237F20C52",
    "| Maintainer | GPG key |\n|---|---|\n| alice | 8F64BDA237F20C52 |\n",
    "fingerprint: 4A1E9C07B3D25F68E0C14B97A2D3E5F68F64BDA2",
    "Primary key fingerprint: 4A1E 9C07 B3D2 5F68 E0C1  4B97 A2D3 E5F6 8F64 BDA2",
]


@pytest.mark.parametrize("note", GPG)
def test_a_gpg_key_id_is_no_secret(note, store):
    assert find_secrets(note) == []
    result, is_error = store.run({"command": "create", "path": "/memories/release.md", "file_text": f"Release signing\n{note}\n"})
    assert not is_error, result


ORDINARY = [
    "env:\n  - name: LOG_LEVEL\n    value: debug\n  - name: DB_PASSWORD_FILE\n    value: /run/secrets/db\n",
    "- name: API_TOKEN\n  valueFrom:\n    secretKeyRef:\n      name: shop\n      key: token\n",
    "| Variable | Value |\n|---|---|\n| DB_PASSWORD | in 1Password |\n| PORT | 5432 |\n",
    "| Token | Scopes |\n|---|---|\n| ci-deploy | repo, workflow |\n",
    "I set the password policy to ninety days",
    "Created token 'ci-deploy' (id 42).",
    "sqlplus / as sysdba",
    "sqlplus /nolog",
    "ldapsearch -x -W -D cn=admin,dc=acme,dc=io -b dc=acme,dc=io",
    "smtp://alerts@acme.io@smtp.acme.io:587",
    "connect src/components to the store",
    "echo '" + _b64("log_level: info\nregion: eu-west-1\n") + "' | base64 -d",
    # from a Helm chart repository: templates, parameter tables and prose about secrets
    "  password: {{ .Values.externalDatabase.password | b64enc | quote }}",
    "| `auth.password` | Password for the custom user to create | `\"\"` |\n",
    "| Name | Description | Value |\n|---|---|---|\n| `auth.rootPassword` | Password for the root user | `\"\"` |\n",
    "The secret has to contain the keys `mysql-root-password`, `mysql-replication-password` and `mysql-password`.",
    "{{- if and .Values.aws.credentials.secretKey .Values.aws.credentials.accessKey }}",
    "## @param redis.auth.password Redis&reg; password",
    'PGPASSWORD="${PGPASSWORD:-$(< $POSTGRES_PASSWORD_FILE)}" pg_dumpall',
    "configPatches add values from secrets to KongClusterPlugin",
    'uri: {{ printf "mysql://%s:%s@%s:%s" .user .password .host .port }}',
    "auth:\n  existingSecret: new-password-secret\n\npasswordUpdateJob:\n  enabled: true\n",
]


@pytest.mark.parametrize("text", ["admin_password: Password123!", "DB_PASSWORD=Winter-password-2026", "api_key: Orbit@9624nmg"])
def test_a_password_made_of_words_and_digits_is_still_one(text):
    assert find_secrets(text), text


@pytest.mark.parametrize("note", ORDINARY)
def test_the_same_kinds_without_a_secret_pass(note):
    assert find_secrets(note) == [], note
