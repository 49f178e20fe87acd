"""A generator of credential texts by kind: every value format placed in every context
that can hold it, and ordinary texts of the same kinds that hold no credential.

A credential text is (format x context): a format makes a value (a provider's token, a
generic hex or base64 key, a password, a webhook URL) and the variable names it goes
by; a context writes a name and a value the way a file, a command, a log or a chat
does (a .env line, a Kubernetes `- name:`/`value:` pair, a markdown table, a sentence,
JSON escaped inside a string, a command's "Created token" output, a URL, a command
line, a credential file wrapped in base64).

Each context has several phrasings. The corpus comes in two parts that share no
phrasing and no seed: "tune" (the even phrasings, seed 1), which the filter may be
tuned against, and "held" (the odd phrasings, seed 2), which is measured and reported
but never read while tuning. benchmarks/secret_corpus.py prints both.

Ordinary texts are made the same way from kinds that only look like credentials: GPG key
ids and fingerprints, hashes, digests, UUIDs, public keys, settings whose values are not
secret, prose about passwords, and the same contexts holding references instead of values.
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
UPPER_ALNUM = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URL_SAFE = ALNUM + "_-"
SYMBOLS = "!@#$%^&*-_=+?~"

Rng = random.Random


def r(rng: Rng, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _mixed(rng: Rng, alphabet: str, n: int) -> str:
    """A run that has a digit, an upper- and a lower-case letter where the alphabet has them."""
    while True:
        made = r(rng, alphabet, n)
        kinds = [any(c.isdigit() for c in made)]
        if any(c.islower() for c in alphabet):
            kinds.append(any(c.islower() for c in made))
        if any(c.isupper() for c in alphabet):
            kinds.append(any(c.isupper() for c in made))
        if all(kinds):
            return made


def _uuid(rng: Rng) -> str:
    h = r(rng, HEX, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:]}"


_WORDS = ["river", "Falcon", "maple", "Orbit", "cactus", "Tango", "silver", "Harbor", "pepper", "Nimbus", "copper", "Violet"]


def _password(rng: Rng) -> str:
    """What people pick: a word, digits and a symbol, or a generator's mix."""
    style = rng.randrange(4)
    if style == 0:
        return rng.choice(_WORDS) + r(rng, string.digits, rng.randint(2, 4)) + rng.choice("!#$%&*?") + rng.choice(_WORDS)[:3]
    if style == 1:
        return _mixed(rng, ALNUM + "!#%&*?-", rng.randint(12, 20))
    if style == 2:
        return "-".join(rng.choice(_WORDS) for _ in range(3)) + r(rng, string.digits, 2)
    return rng.choice(_WORDS).capitalize() + rng.choice("@#!") + r(rng, string.digits, 4) + r(rng, string.ascii_lowercase, 3)


@dataclass(frozen=True)
class Format:
    name: str
    make: Callable[[Rng], str]
    names: tuple[str, ...]  # variable names it goes by
    kind: str = "token"  # token, password or url
    # What of the value must not show through: by default all but the prefix every value
    # of the format shares (its name may hold that prefix: github_pat: github_pat_...).
    part: Callable[[str], str] | None = None

    def secret(self, value: str) -> str:
        if self.part is not None:
            return self.part(value)
        samples = [self.make(random.Random(seed)) for seed in (11, 12, 13)]
        fixed = 0
        while all(len(s) > fixed and s[fixed] == samples[0][fixed] for s in samples):
            fixed += 1
        return value[fixed:]


def _f(name: str, make: Callable[[Rng], str], *names: str, kind: str = "token", part: Callable[[str], str] | None = None) -> Format:
    return Format(name, make, names, kind, part)


FORMATS: tuple[Format, ...] = (
    _f("GitHub classic token", lambda g: "ghp_" + _mixed(g, ALNUM, 36), "GITHUB_TOKEN", "GH_TOKEN", "github_token"),
    _f("GitHub fine-grained token", lambda g: "github_pat_11" + r(g, UPPER_ALNUM, 20) + "_" + _mixed(g, ALNUM, 59), "GITHUB_PAT", "gh_pat"),
    _f("GitHub app token", lambda g: "ghs_" + _mixed(g, ALNUM, 36), "GITHUB_APP_TOKEN", "installationToken"),
    _f("GitLab token", lambda g: "glpat-" + _mixed(g, URL_SAFE, 20), "GITLAB_TOKEN", "CI_JOB_TOKEN", "gitlab_token"),
    _f("Slack bot token", lambda g: f"xoxb-{r(g, string.digits, 12)}-{r(g, string.digits, 13)}-{_mixed(g, ALNUM, 24)}", "SLACK_BOT_TOKEN", "slackToken"),
    _f("Slack webhook", lambda g: f"https://hooks.slack.com/services/T{r(g, UPPER_ALNUM, 8)}/B{r(g, UPPER_ALNUM, 10)}/{_mixed(g, ALNUM, 24)}", "SLACK_WEBHOOK_URL", "slack_webhook", kind="url"),
    _f("Teams webhook", lambda g: f"https://{g.choice(['contoso', 'acme', 'fabrikam'])}.webhook.office.com/webhookb2/{_uuid(g)}@{_uuid(g)}/IncomingWebhook/{r(g, HEX, 32)}/{_uuid(g)}", "TEAMS_WEBHOOK_URL", "teams_webhook", kind="url"),
    _f("Teams workflow webhook", lambda g: f"https://prod-{g.randint(10, 99)}.westeurope.logic.azure.com:443/workflows/{r(g, HEX, 32)}/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig={_mixed(g, URL_SAFE, 43)}", "TEAMS_WORKFLOW_URL", kind="url", part=lambda v: v.split("sig=")[1]),
    _f("Discord webhook", lambda g: f"https://discord.com/api/webhooks/{r(g, string.digits, 18)}/{_mixed(g, URL_SAFE, 68)}", "DISCORD_WEBHOOK", kind="url"),
    _f("OpenAI key", lambda g: "sk-proj-" + _mixed(g, URL_SAFE, 48) + "T3BlbkFJ" + _mixed(g, URL_SAFE, 48), "OPENAI_API_KEY", "openaiKey"),
    _f("Anthropic key", lambda g: "sk-ant-api03-" + _mixed(g, URL_SAFE, 93) + "AA", "ANTHROPIC_API_KEY"),
    _f("Stripe secret key", lambda g: "sk_live_" + _mixed(g, ALNUM, 99), "STRIPE_SECRET_KEY", "stripe_key"),
    _f("Stripe restricted key", lambda g: "rk_live_" + _mixed(g, ALNUM, 99), "STRIPE_RESTRICTED_KEY"),
    _f("Stripe webhook secret", lambda g: "whsec_" + _mixed(g, ALNUM, 32), "STRIPE_WEBHOOK_SECRET"),
    _f("AWS access key id", lambda g: "AKIA" + r(g, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16), "AWS_ACCESS_KEY_ID", "aws_access_key_id"),
    _f("AWS secret key", lambda g: _mixed(g, B64, 40), "AWS_SECRET_ACCESS_KEY", "aws_secret_access_key", "secretAccessKey"),
    _f("Google API key", lambda g: "AIza" + _mixed(g, URL_SAFE, 35), "GOOGLE_API_KEY", "mapsApiKey"),
    _f("Google OAuth client secret", lambda g: "GOCSPX-" + _mixed(g, URL_SAFE, 28), "GOOGLE_CLIENT_SECRET", "client_secret"),
    _f("Google refresh token", lambda g: "1//0" + _mixed(g, URL_SAFE, 100), "GOOGLE_REFRESH_TOKEN", "refresh_token"),
    _f("SendGrid key", lambda g: f"SG.{_mixed(g, URL_SAFE, 22)}.{_mixed(g, URL_SAFE, 43)}", "SENDGRID_API_KEY"),
    _f("npm token", lambda g: "npm_" + _mixed(g, ALNUM, 36), "NPM_TOKEN", "NODE_AUTH_TOKEN"),
    _f("PyPI token", lambda g: "pypi-AgEIcHlwaS5vcmc" + _mixed(g, URL_SAFE, 140), "PYPI_TOKEN", "TWINE_PASSWORD"),
    _f("Hugging Face token", lambda g: "hf_" + _mixed(g, ALNUM, 34), "HF_TOKEN", "HUGGINGFACE_HUB_TOKEN"),
    _f("Twilio API key", lambda g: "SK" + _mixed(g, HEX, 32), "TWILIO_API_KEY"),
    _f("Twilio auth token", lambda g: _mixed(g, HEX, 32), "TWILIO_AUTH_TOKEN", "twilioAuthToken"),
    _f("Mailgun key", lambda g: "key-" + _mixed(g, HEX, 32), "MAILGUN_API_KEY"),
    _f("Telegram bot token", lambda g: f"{r(g, string.digits, 10)}:AA{_mixed(g, URL_SAFE, 33)}", "TELEGRAM_BOT_TOKEN"),
    _f("JWT", lambda g: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ" + _mixed(g, URL_SAFE, 60) + "." + _mixed(g, URL_SAFE, 43), "ACCESS_TOKEN", "id_token", "jwt"),
    _f("DigitalOcean token", lambda g: "dop_v1_" + _mixed(g, HEX, 64), "DIGITALOCEAN_TOKEN", "DO_TOKEN"),
    _f("Shopify token", lambda g: "shpat_" + _mixed(g, HEX, 32), "SHOPIFY_ACCESS_TOKEN"),
    _f("Databricks token", lambda g: "dapi" + _mixed(g, HEX, 32), "DATABRICKS_TOKEN"),
    _f("Vault token", lambda g: "hvs." + _mixed(g, URL_SAFE, 90), "VAULT_TOKEN"),
    _f("Doppler token", lambda g: "dp.st.prd." + _mixed(g, ALNUM, 40), "DOPPLER_TOKEN"),
    _f("Linear key", lambda g: "lin_api_" + _mixed(g, ALNUM, 40), "LINEAR_API_KEY"),
    _f("Figma token", lambda g: "figd_" + _mixed(g, URL_SAFE, 40), "FIGMA_TOKEN"),
    _f("Sentry token", lambda g: "sntrys_" + _mixed(g, ALNUM, 60), "SENTRY_AUTH_TOKEN"),
    _f("Grafana token", lambda g: "glsa_" + _mixed(g, ALNUM, 32) + "_" + r(g, HEX, 8), "GRAFANA_TOKEN"),
    _f("New Relic key", lambda g: "NRAK-" + _mixed(g, UPPER_ALNUM, 27), "NEW_RELIC_API_KEY"),
    _f("Postman key", lambda g: f"PMAK-{_mixed(g, HEX, 24)}-{_mixed(g, HEX, 34)}", "POSTMAN_API_KEY"),
    _f("age key", lambda g: "AGE-SECRET-KEY-1" + _mixed(g, UPPER_ALNUM, 58), "SOPS_AGE_KEY"),
    _f("Tailscale key", lambda g: f"tskey-auth-{_mixed(g, ALNUM, 12)}-{_mixed(g, ALNUM, 32)}", "TS_AUTHKEY"),
    _f("Netlify token", lambda g: "nfp_" + _mixed(g, ALNUM, 40), "NETLIFY_AUTH_TOKEN"),
    _f("SonarQube token", lambda g: "squ_" + _mixed(g, HEX, 40), "SONAR_TOKEN"),
    _f("Docker Hub token", lambda g: "dckr_pat_" + _mixed(g, URL_SAFE, 27), "DOCKERHUB_TOKEN", "DOCKER_PASSWORD"),
    _f("Terraform Cloud token", lambda g: _mixed(g, ALNUM, 14) + ".atlasv1." + _mixed(g, ALNUM, 67), "TF_TOKEN_app_terraform_io", "TFC_TOKEN"),
    _f("RubyGems key", lambda g: "rubygems_" + _mixed(g, HEX, 48), "GEM_HOST_API_KEY"),
    _f("Groq key", lambda g: "gsk_" + _mixed(g, ALNUM, 52), "GROQ_API_KEY"),
    _f("Replicate token", lambda g: "r8_" + _mixed(g, ALNUM, 37), "REPLICATE_API_TOKEN"),
    _f("Atlassian token", lambda g: "ATATT3xFfGF0" + _mixed(g, URL_SAFE, 170), "JIRA_API_TOKEN", "ATLASSIAN_TOKEN"),
    _f("JFrog token", lambda g: "AKCp8" + _mixed(g, ALNUM, 68), "ARTIFACTORY_API_KEY"),
    _f("Azure client secret", lambda g: _mixed(g, ALNUM, 3) + str(g.randint(0, 9)) + "Q~" + _mixed(g, ALNUM + "_~.-", 34), "AZURE_CLIENT_SECRET", "clientSecret"),
    _f("Azure storage key", lambda g: _mixed(g, B64, 86) + "==", "AZURE_STORAGE_KEY", "storageAccountKey"),
    _f("Heroku API key (UUID)", lambda g: _uuid(g), "HEROKU_API_KEY"),
    _f("Cloudflare API token", lambda g: _mixed(g, URL_SAFE, 40), "CLOUDFLARE_API_TOKEN", "CF_API_TOKEN"),
    _f("Datadog API key", lambda g: _mixed(g, HEX, 32), "DD_API_KEY", "DATADOG_API_KEY"),
    _f("Datadog app key", lambda g: _mixed(g, HEX, 40), "DD_APP_KEY"),
    _f("generic hex secret", lambda g: _mixed(g, HEX, 64), "SECRET_KEY", "JWT_SECRET", "SESSION_SECRET", "signing_secret"),
    _f("generic base64 secret", lambda g: _mixed(g, B64, 43) + "=", "ENCRYPTION_KEY", "APP_KEY", "MASTER_KEY"),
    _f("generic alnum api key", lambda g: _mixed(g, ALNUM, 32), "API_KEY", "apiKey", "X_API_KEY", "service_api_key"),
    _f("generic client secret", lambda g: _mixed(g, URL_SAFE, 40), "CLIENT_SECRET", "OAUTH_CLIENT_SECRET", "clientSecret"),
    _f("Django secret key", lambda g: "django-insecure-" + _mixed(g, LOWER_ALNUM + "!@#$%^&*(-_=+)", 50), "DJANGO_SECRET_KEY"),
    _f("Rails master key", lambda g: _mixed(g, HEX, 32), "RAILS_MASTER_KEY"),
    _f("database password", _password, "DB_PASSWORD", "POSTGRES_PASSWORD", "MYSQL_ROOT_PASSWORD", "db_pass", kind="password"),
    _f("service password", _password, "SMTP_PASSWORD", "REDIS_PASSWORD", "LDAP_BIND_PASSWORD", "admin_password", kind="password"),
    _f("user password", _password, "PASSWORD", "password", "passwd", kind="password"),
)

_USERS = ["deploy", "admin", "app_user", "ci-bot", "svc_shop", "reporting"]
_HOSTS = ["db.internal", "10.0.4.12", "shop-prod.cluster-abc.eu-west-1.rds.amazonaws.com", "pg.acme.io", "mysql-01.corp.local"]
_DOMAINS = ["acme.io", "example-shop.com", "contoso.com"]


@dataclass(frozen=True)
class Slots:
    name: str
    value: str
    user: str
    host: str
    domain: str
    word: str  # a lower-case word to name things: service, project


def _json_string(text: str) -> str:
    return json.dumps(text)[1:-1]


def _b64_wrapped(text: str, width: int = 76) -> str:
    encoded = base64.b64encode(text.encode()).decode()
    return "\n".join(encoded[i : i + width] for i in range(0, len(encoded), width))


def _b64_line(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _service_account(s: Slots, g: Rng) -> str:
    key = "\n".join(r(g, B64, 64) for _ in range(6))
    return json.dumps(
        {
            "type": "service_account",
            "project_id": f"{s.word}-prod-{g.randint(100, 999)}",
            "private_key_id": r(g, HEX, 40),
            "private_key": f"-----BEGIN PRIVATE KEY-----\n{key}\n-----END PRIVATE KEY-----\n",
            "client_email": f"{s.word}@{s.word}-prod.iam.gserviceaccount.com",
            "client_id": r(g, string.digits, 21),
        },
        indent=2,
    )


def _aws_file(s: Slots, g: Rng) -> str:
    return f"[default]\naws_access_key_id = AKIA{r(g, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}\naws_secret_access_key = {s.value}\nregion = eu-west-1\n"


def _netrc(s: Slots, g: Rng) -> str:
    return f"machine {s.host}\n  login {s.user}\n  password {s.value}\n"


def _dotenv(s: Slots, g: Rng) -> str:
    return f"APP_ENV=production\n{s.name}={s.value}\nLOG_LEVEL=info\n"


def _docker_config(s: Slots, g: Rng) -> str:
    auth = _b64_line(f"{s.user}:{s.value}")
    return json.dumps({"auths": {"registry.example.com": {"auth": auth}}})


# A context: how a name and a value are written; `takes` says which value kinds fit.
# {name} {value} {user} {host} {domain} {word}; a callable gets the slots and the rng.
Writer = str | Callable[[Slots, Rng], str]


@dataclass(frozen=True)
class Context:
    name: str
    phrasings: tuple[Writer, ...]
    takes: frozenset[str] = frozenset({"token", "password", "url"})


def _c(name: str, *phrasings: Writer, takes: str = "token password url") -> Context:
    return Context(name, phrasings, frozenset(takes.split()))


NO_URL = "token password"

CONTEXTS: tuple[Context, ...] = (
    _c("dotenv line", "{name}={value}", "# production\n{name}='{value}'\n", "{name}=\"{value}\"  # rotated in March", "APP_NAME={word}\n{name}={value}\nDEBUG=false"),
    _c("shell export", "export {name}={value}", "export {name}=\"{value}\" && ./deploy.sh", "set -x {name} '{value}'", "$ {name}={value} npm run release"),
    _c("YAML mapping", "{word}:\n  {name_lower}: {value}\n", "{name_lower}: \"{value}\"", "settings:\n  {word}:\n    {name_lower}: '{value}'\n    timeout: 30", "- {name_lower}: {value}"),
    _c("JSON object", '{{"{name_camel}": "{value}"}}', '{{\n  "service": "{word}",\n  "{name_camel}": "{value}",\n  "retries": 3\n}}', '"{name}": "{value}",', '[{{"id": 1, "{name_camel}": "{value}"}}]'),
    _c("TOML or INI", "[{word}]\n{name_lower} = \"{value}\"\n", "{name_lower}={value}", "[{word}]\n{name_lower} = {value}\nport = 5432", "{name_lower} : {value}"),
    _c("source code", "{name} = \"{value}\"", "const {name_camel} = '{value}';", "client = Client(api_key=\"{value}\")", "private static final String {name} = \"{value}\";",
       "os.environ[\"{name}\"] = \"{value}\"", "let {name_camel}: &str = \"{value}\";", "config.set('{name_lower}', '{value}')", "$config['{name_lower}'] = '{value}';"),
    _c("docker compose environment", "environment:\n  - {name}={value}\n", "    environment:\n      {name}: {value}\n", "docker run -e {name}={value} {word}:latest", "environment:\n  {name}: \"{value}\""),
    _c("Kubernetes env name/value pair", "env:\n  - name: {name}\n    value: \"{value}\"\n", "        - name: {name}\n          value: {value}\n", "env:\n- name: LOG_LEVEL\n  value: info\n- name: {name}\n  value: '{value}'\n", "  - name: \"{name}\"\n    value: \"{value}\""),
    _c("CI variable name/value pair", "variables:\n  - key: {name}\n    value: {value}\n", "- name: {name}\n  value: {value}", "      - name: {name}\n        value: \"{value}\"\n        masked: false", "[[env]]\nname = \"{name}\"\nvalue = \"{value}\""),
    _c("JSON name/value objects", '"environment": [\n  {{\n    "name": "{name}",\n    "value": "{value}"\n  }}\n]', '{{"name": "{name}", "value": "{value}"}}', '[\n  {{"Name": "{name}",\n   "Value": "{value}"}}\n]', '"ParameterKey": "{name}",\n"ParameterValue": "{value}"'),
    _c("XML name/value", "<property>\n  <name>{word}.{name_lower}</name>\n  <value>{value}</value>\n</property>", "<add key=\"{name}\" value=\"{value}\" />", "<entry>\n  <key>{name}</key>\n  <string>{value}</string>\n</entry>", "<{name_camel}>{value}</{name_camel}>"),
    _c("markdown table, name in a row", "| Variable | Value |\n|---|---|\n| {name} | {value} |\n", "| Name | Value | Notes |\n| --- | --- | --- |\n| LOG_LEVEL | info | |\n| {name} | `{value}` | prod |\n",
       "Setting | Value\n------- | -----\n{name} | {value}\n", "| key | value |\n|:----|:------|\n| {name_lower} | {value} |"),
    _c("markdown table, secret column", "| Service | User | Password |\n|---|---|---|\n| {word} | {user} | {value} |\n", "| Environment | Token |\n| --- | --- |\n| staging | {value} |\n",
       "| host | login | secret |\n|------|-------|--------|\n| {host} | {user} | `{value}` |", "| Name | API key |\n|:--|:--|\n| {word} | {value} |", takes=NO_URL),
    _c("chat prose", "my {label} is {value}", "hey, the {label} for staging is {value}, can you try again?", "use {value} as the {label}", "here's the {label}: {value}",
       "I set the {label} to {value} yesterday", "{label} for {word} -> {value}", "try logging in with {user} and {value}", "the new {label}? it's {value} (don't share it)",
       "ok so the {label} is \"{value}\" now", "fyi {label}={value}"),
    _c("JSON escaped in a string", '{{"config": "{{\\"{name_camel}\\": \\"{value}\\"}}"}}', 'payload="{{\\"{name_lower}\\":\\"{value}\\",\\"region\\":\\"eu\\"}}"',
       'log.info("{{\\"event\\": \\"login\\", \\"{name_lower}\\": \\"{value}\\"}}")', '"body": "{{\\n  \\"{name_camel}\\": \\"{value}\\"\\n}}"'),
    _c("command output: token created", "Created token {value}", "$ {word} tokens create --name ci\nToken created: {value}\nStore it now; it will not be shown again.",
       "Successfully created API token.\n\n    {value}\n", "✓ Created personal access token \"ci\"\n{value}",
       "New token generated:\n{value}", "Your new API key is {value}", "$ {word} auth token\n{value}", "Key                  Value\n---                  -----\ntoken                {value}\ntoken_duration       768h",
       takes=NO_URL),
    _c("URL with credentials", "postgres://{user}:{value}@{host}:5432/{word}", "DATABASE_URL=mysql://{user}:{value}@{host}/{word}", "redis://:{value}@{host}:6379/0",
       "git clone https://{user}:{value}@github.com/acme/{word}.git", "amqp://{user}:{value}@{host}:5672/", "mongodb+srv://{user}:{value}@cluster0.{domain}/{word}", takes=NO_URL),
    _c("SMTP URL with an e-mail user", "smtp://{user}@{domain}:{value}@smtp.{domain}:587", "EMAIL_URL=smtp+tls://{user}@{domain}:{value}@mail.{domain}:465",
       "MAILER_DSN=smtp://{user}%40{domain}:{value}@smtp.office365.com:587", "smtps://noreply@{domain}:{value}@smtp.gmail.com:465", takes="password"),
    _c("database command line", "sqlplus {user}/{value}@{host}:1521/ORCL", "sqlplus -s {user}/{value}@//{host}:1521/{word}", "mysql -u {user} -p{value} -h {host} {word}",
       "expdp {user}/{value}@PROD schemas={word}", "PGPASSWORD={value} psql -h {host} -U {user} {word}", "rman target sys/{value}@{word}", takes="password"),
    _c("LDAP command line", "ldapsearch -x -H ldap://{host} -D \"cn=admin,dc=acme,dc=io\" -w {value} -b dc=acme,dc=io", "ldapmodify -D cn=admin,dc=example,dc=com -w '{value}' -f change.ldif",
       "ldapadd -x -D \"cn=Manager,dc={word},dc=com\" -w {value} -f users.ldif", "ldapwhoami -x -D uid={user},ou=people,dc=acme,dc=io -w \"{value}\"", takes="password"),
    _c("other command line", "curl -H \"Authorization: Bearer {value}\" https://api.{domain}/v1/me", "curl -u {user}:{value} https://{host}/api", "docker login -u {user} -p {value} registry.{domain}",
       "redis-cli -h {host} -a {value} ping", "{word} login --token {value}", "gh secret set {name} --body \"{value}\"", "az login --service-principal -u {user} -p {value} --tenant acme",
       "http POST api.{domain}/deploy \"X-API-Key:{value}\"", takes=NO_URL),
    _c("HTTP headers", "Authorization: Bearer {value}", "X-API-Key: {value}", "GET /v1/orders HTTP/1.1\nHost: api.{domain}\nAuthorization: token {value}\n", "headers = {{'X-Auth-Token': '{value}'}}",
       "api-key: {value}", "PRIVATE-TOKEN: {value}", takes=NO_URL),
    _c("connection string", "Server={host};Database={word};User Id={user};Password={value};", "jdbc:postgresql://{host}:5432/{word}?user={user}&password={value}",
       "Host={host};Username={user};Password={value}", "Data Source={host};Initial Catalog={word};uid={user};pwd={value}", takes="password"),
    _c("log line", "2026-03-02T10:14:03Z DEBUG request headers={{'Authorization': 'Bearer {value}'}}", "ERROR auth failed for key={value} (401)", "INFO connecting with {name_lower}={value}",
       "WARN Invalid API key provided: {value}", "[debug] POST /login {{\"username\": \"{user}\", \"password\": \"{value}\"}}", "GET /callback?code=ok&access_token={value}&state=x 200", takes=NO_URL),
    _c("credential file", lambda s, g: _netrc(s, g), "[{word}]\nusername = {user}\npassword = {value}\n", "//registry.npmjs.org/:_authToken={value}", "{host}:5432:{word}:{user}:{value}",
       "[default]\naws_access_key_id = {akia}\naws_secret_access_key = {value}\n", "https://{user}:{value}@github.com", takes=NO_URL),
    _c("comment in code", "# TODO remove before merge: {name_lower} {value}", "// temporary {label}: {value}", "/* {label} = {value} */", "-- {label} for the {word} db: {value}", takes=NO_URL),
    _c("Terraform or Ansible", "resource \"x\" \"y\" {{\n  {name_lower} = \"{value}\"\n}}", "{name_lower}: !unsafe '{value}'", "variable \"{name_lower}\" {{\n  default = \"{value}\"\n}}", "ansible-playbook site.yml -e {name_lower}={value}"),
    _c("base64 credential file", lambda s, g: "apiVersion: v1\nkind: Secret\ndata:\n  credentials.json: " + _b64_line(_service_account(s, g)),
       lambda s, g: "echo '" + _b64_line(_aws_file(s, g)) + "' | base64 -d > ~/.aws/credentials",
       lambda s, g: "data:\n  .netrc: |\n    " + _b64_wrapped(_netrc(s, g)).replace("\n", "\n    "),
       lambda s, g: '{"kind": "Secret", "data": {"env": "' + _b64_line(_dotenv(s, g)) + '"}}',
       lambda s, g: "GOOGLE_CREDENTIALS_B64=" + _b64_line(_service_account(s, g)),
       lambda s, g: "NETRC_B64: " + _b64_line(_netrc(s, g)),
       lambda s, g: _b64_wrapped(_aws_file(s, g), 64),
       lambda s, g: "data:\n  .dockerconfigjson: " + _b64_line(_docker_config(s, g)),
       takes="token password"),
)


def _label(f: Format, g: Rng) -> str:
    if f.kind == "password":
        return g.choice(["password", "pw", "passwd", "db password", "root password", "admin pass"])
    return g.choice(["api key", "token", "key", "secret", "access token", "API token", "auth token"])


def _camel(name: str) -> str:
    parts = name.lower().split("_")
    return parts[0] + "".join(p.capitalize() for p in parts[1:])


@dataclass(frozen=True)
class Case:
    kind: str  # format x context
    text: str
    secrets: tuple[str, ...]  # parts of the text none of which may show through


def _secrets_in(text: str, value: str, context: Context) -> tuple[str, ...]:
    if value in text:
        return (value,)
    # Wrapped in base64: every line of it counts (a line holds part of the value).
    return tuple(line.strip().strip("'\"{},") for line in text.splitlines() if len(line.strip()) >= 16)


def _write(context: Context, phrasing: Writer, f: Format, g: Rng) -> Case:
    value = f.make(g)
    name = g.choice(f.names)
    slots = Slots(name, value, g.choice(_USERS), g.choice(_HOSTS), g.choice(_DOMAINS), g.choice(["shop", "billing", "search", "ledger"]))
    if callable(phrasing):
        text = phrasing(slots, g)
        secrets = _base64_secrets(text)
    else:
        text = phrasing.format(
            name=name, name_lower=name.lower(), name_camel=_camel(name), value=value, user=slots.user, host=slots.host,
            domain=slots.domain, word=slots.word, label=_label(f, g), akia="AKIA" + r(g, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16),
        )
        secrets = (f.secret(value),)
    return Case(f"{f.name} x {context.name}", text, secrets)


def _base64_secrets(text: str) -> tuple[str, ...]:
    """The base64 runs of a wrapped file: each must be masked, whole or in part."""
    import re

    return tuple(m.group() for m in re.finditer(r"[A-Za-z0-9+/]{24,}={0,2}", text))


PARTS = {"tune": (0, 1), "held": (1, 2)}


def credentials(part: str, per_context: int = 20) -> list[Case]:
    """`per_context` texts for each context, formats drawn to fit, phrasings of the part only."""
    parity, seed = PARTS[part]
    g = random.Random(seed * 7919)
    cases: list[Case] = []
    for context in CONTEXTS:
        phrasings = context.phrasings[parity::2]
        fitting = [f for f in FORMATS if f.kind in context.takes]
        for i in range(per_context):
            phrasing = phrasings[i % len(phrasings)]
            cases.append(_write(context, phrasing, g.choice(fitting), g))
    return cases


# -- ordinary texts: what only looks like a credential -------------------------------------


def _ordinary_slots(g: Rng) -> dict[str, str]:
    fpr = r(g, "0123456789ABCDEF", 40)
    sha = r(g, HEX, 40)
    return {
        "keyid": fpr[-16:], "keyid8": fpr[-8:], "fpr": fpr, "fpr_spaced": " ".join(fpr[i : i + 4] for i in range(0, 40, 4)),
        "sha": sha, "sha7": sha[:7], "hex32": r(g, HEX, 32), "hex64": r(g, HEX, 64), "uuid": _uuid(g),
        "b64_88": r(g, B64, 86) + "==", "b64_43": r(g, B64, 43), "user": g.choice(_USERS), "host": g.choice(_HOSTS),
        "domain": g.choice(_DOMAINS), "word": g.choice(["shop", "billing", "search", "ledger"]),
        "name": g.choice(["DB_PASSWORD", "API_TOKEN", "STRIPE_SECRET_KEY", "SMTP_PASSWORD", "GITHUB_TOKEN"]),
        "number": str(g.randint(2, 9999)), "port": g.choice(["5432", "3306", "6379", "587"]),
    }


def _config_b64(s: dict[str, str], g: Rng) -> str:
    return "data:\n  config.yaml: " + _b64_line(f"log_level: info\nregion: eu-west-1\nservice: {s['word']}\nreplicas: 3\n")


def _public_cert(s: dict[str, str], g: Rng) -> str:
    body = "\n".join(r(g, B64, 64) for _ in range(8))
    return f"-----BEGIN CERTIFICATE-----\n{body}\n-----END CERTIFICATE-----"


ORDINARY: tuple[tuple[str, tuple[Writer, ...]], ...] = (
    ("GPG key id", (
        "gpg --recv-keys {keyid}", "git config --global user.signingkey {keyid}", "signing key: {keyid}", "GPG_KEY_ID={keyid}",
        "pub   rsa4096/{keyid} 2024-01-15 [SC] [expires: 2027-01-15]", "The release tags are signed with {keyid}; import it first.",
        "| Maintainer | GPG key |\n|---|---|\n| alice | {keyid} |\n| bob | {keyid8} |", "gpg_key_id: \"{keyid}\"", "sec   ed25519/0x{keyid} 2025-02-01 [SC]",
        "Signing subkey {keyid} expires in June; rotate it.", "gpg --armor --export {keyid} > release.asc", "keyid {keyid8}, fingerprint {fpr}",
    )),
    ("GPG fingerprint", (
        "Key fingerprint = {fpr_spaced}", "      {fpr}\nuid           [ultimate] Release Bot <release@{domain}>", "fingerprint: {fpr}", "gpg --lsign-key {fpr}",
        "signing_key_fingerprint = \"{fpr}\"", "Verify with gpg --verify; the key is {fpr_spaced}.",
    )),
    ("hashes and digests", (
        "commit {sha}\nAuthor: Jo <jo@{domain}>", "Fixed in {sha7}; see the revert in {sha}.", "image: ghcr.io/acme/{word}@sha256:{hex64}", "\"integrity\": \"sha512-{b64_88}\"",
        "github.com/pkg/errors v0.9.1 h1:{b64_43}=", "ETag: \"{hex32}\"", "md5sum: {hex32}  {word}.tar.gz", "checksum = \"sha256:{hex64}\"", "trace_id={hex32} span_id={keyid}",
        "request_id: {uuid}", "build_id = \"{uuid}\"", "[{sha7}] merge branch 'fix/{word}'",
    )),
    ("settings that are not secret, name on another line", (
        "env:\n  - name: LOG_LEVEL\n    value: debug\n", "- name: DB_PASSWORD_FILE\n  value: /run/secrets/db_password", "env:\n- name: {name}\n  valueFrom:\n    secretKeyRef:\n      name: {word}\n      key: password\n",
        "- name: {name}\n  value: ${{{{ secrets.{name} }}}}", "{{\"name\": \"{name}\", \"valueFrom\": \"arn:aws:ssm:eu-west-1:123456789012:parameter/{word}/{name}\"}}",
        "<property>\n  <name>{word}.password.file</name>\n  <value>/etc/{word}/password</value>\n</property>", "variables:\n  - key: {name}\n    value: $VAULT_{name}\n", "- name: TOKEN_TTL\n  value: \"3600\"",
    )),
    ("tables without a secret", (
        "| Variable | Value |\n|---|---|\n| {name} | (in 1Password) |\n| LOG_LEVEL | info |", "| Name | Where |\n| --- | --- |\n| {name} | Vault: secret/{word} |", "| Token | Scopes | Expires |\n|---|---|---|\n| ci-deploy | repo, workflow | 2026-12-01 |",
        "| Service | User | Password |\n|---|---|---|\n| {word} | {user} | see vault |", "| key | value |\n|---|---|\n| api_key | `${{API_KEY}}` |", "| Host | Port |\n|---|---|\n| {host} | {port} |",
    )),
    ("prose about passwords and tokens", (
        "my password expired again, resetting it now", "the api key for staging is in the vault, ask Sam", "use the token from 1Password, not the old one", "I set the password policy to 90 days",
        "here's the key point: tokens expire after an hour", "try logging in with SSO instead of a password", "the new token? it's in Doppler under {word}", "ok so the password reset link works now",
        "fyi the token endpoint moved to /oauth2/v2/token", "password for the {word} db is rotated monthly", "my password manager is 1Password", "the secret is to run migrations first",
    )),
    ("escaped JSON without a secret", (
        "{{\"config\": \"{{\\\"region\\\": \\\"eu-west-1\\\", \\\"retries\\\": 3}}\"}}", "\"body\": \"{{\\\"token_type\\\": \\\"bearer\\\", \\\"expires_in\\\": 3600}}\"",
        "log.info(\"{{\\\"event\\\": \\\"login\\\", \\\"user\\\": \\\"{user}\\\"}}\")", "payload=\"{{\\\"password\\\":\\\"${{DB_PASSWORD}}\\\"}}\"",
    )),
    ("command output without a secret", (
        "Created token 'ci-deploy' (id {number}) with scopes repo, workflow", "Token created. Copy it from the web UI; it is not printed here.", "Created token ci-release-2026", "Deleted token {number} (ci-old).",
        "$ {word} tokens list\nID    NAME        CREATED\n{number}    ci-deploy   2026-01-04", "Successfully rotated API token for {word}.", "Key                 Value\n---                 -----\ntoken_accessor      (hidden)\ntoken_duration      768h",
        "New token generated. Run `{word} auth status` to see it.",
    )),
    ("URLs and commands without a secret", (
        "smtp://smtp.{domain}:587", "EMAIL_URL=smtp://{user}@{domain}@smtp.{domain}:587", "postgres://{user}@{host}:{port}/{word}", "DATABASE_URL=postgres://{user}:${{DB_PASSWORD}}@{host}/{word}",
        "https://teams.microsoft.com/l/channel/19%3a{hex32}%40thread.tacv2/General?groupId={uuid}&tenantId={uuid}", "sqlplus /nolog", "sqlplus / as sysdba", "sqlplus {user}@{host}:1521/ORCL",
        "ldapsearch -x -W -D cn=admin,dc=acme,dc=io -b dc=acme,dc=io", "ldapsearch -x -H ldap://{host} -b dc=acme,dc=io '(uid=jdoe)'", "ldapsearch -Y EXTERNAL -H ldapi:/// -b cn=config",
        "mysql -u {user} -p -h {host} {word}", "curl -u {user} https://{host}/api", "docker login -u {user} --password-stdin registry.{domain}", "ldapwhoami -x -D uid={user},ou=people,dc=acme,dc=io -W",
        "https://{domain}.webhook.office.com/ is where Teams posts go; the URL itself is in Vault.",
    )),
    ("base64 and keys that are public", (
        _config_b64, lambda s, g: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + r(g, B64, 43) + f" {s['user']}@{s['host']}", _public_cert,
        lambda s, g: f"{s['host']} ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB" + r(g, B64, 88) + "=",
        lambda s, g: "echo '" + _b64_line(f"hello from {s['word']}\n") + "' | base64 -d", lambda s, g: "icon: data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQ" + r(g, B64, 60) + "==",
        lambda s, g: "binaryData:\n  settings.json: " + _b64_line(json.dumps({"theme": "dark", "retries": 3, "service": s["word"]})),
        lambda s, g: "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ" + r(g, B64, 300) + f" deploy@{s['host']}",
    )),
    ("identifiers and paths", (
        "node_modules/.cache/babel-loader/{hex32}.json", "dist/assets/main.{keyid}.js", "getAllActiveSubscriptionsForAccountHolderAsync", "Use TokenRefreshHandlerFactory for retries.",
        "PasswordHasherOptionsValidator rejected the config", "/var/lib/docker/overlay2/{hex64}/diff", "tests/snapshots/test_{word}_{sha7}.png", "s3://acme-{word}-artifacts/builds/{uuid}/app.zip",
    )),
)


def ordinary(part: str, per_kind: int = 20) -> list[str]:
    parity, seed = PARTS[part]
    g = random.Random(seed * 104729)
    texts: list[str] = []
    for _, phrasings in ORDINARY:
        mine = phrasings[parity::2]
        for i in range(per_kind):
            phrasing = mine[i % len(mine)]
            slots = _ordinary_slots(g)
            texts.append(phrasing(slots, g) if callable(phrasing) else phrasing.format(**slots))
    return texts


# -- measuring ------------------------------------------------------------------------------


@dataclass
class Measured:
    credentials: int = 0
    refused_and_masked: int = 0
    notes: int = 0
    notes_refused: int = 0

    @property
    def caught(self) -> float:
        return 100.0 * self.refused_and_masked / self.credentials

    @property
    def false_refusals(self) -> float:
        return 100.0 * self.notes_refused / self.notes


def measure(folder: Path, part: str, misses: list[str] | None = None) -> Measured:
    """Each credential text written to memory by create (it must be refused) and read back
    from a file in a repository by read_file (it must show masked); each ordinary text
    created (it must be written). `misses` collects what got through, for tuning only:
    the held-back part is measured, never read."""
    from agent.tools.base import ToolContext
    from agent.tools.files import ReadFileTool
    from memory.store import MemoryStore
    from tests.memory.secret_corpus import leaked

    store = MemoryStore(folder / "memories", max_file_chars=10**6, max_total_chars=10**8)
    repo = folder / "repo"
    repo.mkdir(parents=True, exist_ok=True)
    figures = Measured()
    for case in credentials(part):
        figures.credentials += 1
        result, is_error = store.run({"command": "create", "path": "/memories/setup.md", "file_text": case.text})
        refused = is_error and "credential" in result
        if not is_error:
            store.run({"command": "delete", "path": "/memories/setup.md"})
        (repo / "notes.txt").write_text(case.text, encoding="utf-8")
        shown = ReadFileTool().run({"path": "notes.txt"}, ToolContext(repo=repo)).text
        masked = not any(leaked(secret, shown) for secret in case.secrets)
        figures.refused_and_masked += refused and masked
        if misses is not None and not (refused and masked):
            misses.append(f"{case.kind}: {case.text[:200]!r}")
    for text in ordinary(part):
        figures.notes += 1
        result, is_error = store.run({"command": "create", "path": "/memories/note.md", "file_text": text})
        if is_error:
            figures.notes_refused += 1
            if misses is not None:
                misses.append(f"false refusal: {text[:200]!r}")
        else:
            store.run({"command": "delete", "path": "/memories/note.md"})
    return figures
