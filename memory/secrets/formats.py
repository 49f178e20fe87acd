"""Credentials known by their own shape: a provider's prefix, length and alphabet.

Every pattern here runs in time linear in the text, because Python's `re` backtracks:
- a pattern starts with a literal (found by a fast search) or a single character class,
  and asserts right after it that no letter or digit comes before, so it can start only at
  the front of a run, never at each character inside one;
- every repetition is possessive (`++`, `{m,n}+`): once a run is read it is never re-read;
- an unbounded repetition is the last thing in its pattern, so nothing after it can fail
  and send the engine back over the run. What must follow a run has a bound instead.
A `_` or `-` before the prefix does not hide a key: `creds_ghp_...` is a name holding one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from memory.secrets.values import has_digit_and_letter, mixed_case_and_digit, random_letters


@dataclass(frozen=True)
class Rule:
    kind: str
    pattern: re.Pattern[str]
    # Which groups hold the secret itself (the first that took part is used); the rest of
    # the match is context, kept when masking so "AccountKey=" stays readable.
    groups: tuple[int, ...] = (0,)
    check: Callable[[str], bool] | None = None
    # Lower-case substrings one of which every match contains: a rule runs only on text
    # that has one, which a C-level `in` decides far faster than the regex would.
    triggers: tuple[str, ...] = ()
    # Run on the lower-cased text, with a lower-case pattern: `re`'s own case folding
    # costs ten times as much and disables its fast search for a literal prefix.
    lowered: bool = False
    # The secret starts this many characters before the match: the pattern starts at a
    # rare literal in the middle of the key and looks behind for the rest.
    lead: int = 0


def _prefix(literal: str) -> str:
    """The literal, then the assertion that it does not continue a word."""
    escaped = re.escape(literal)
    return escaped + r"(?<![A-Za-z0-9]" + escaped + ")"


_END = r"(?![A-Za-z0-9_\-])"


def _rule(
    kind: str,
    pattern: str,
    *triggers: str,
    check: Callable[[str], bool] | None = None,
    groups: tuple[int, ...] = (0,),
    lowered: bool = False,
    lead: int = 0,
) -> Rule:
    return Rule(kind, re.compile(pattern), groups, check, triggers, lowered, lead)


def _openai(token: str) -> bool:
    body = re.sub(r"^sk-(?:proj-|svcacct-|admin-|None-)?", "", token)
    return not token.startswith("sk-ant-") and (has_digit_and_letter(body) or random_letters(body))


def _hex_key(token: str) -> bool:
    return has_digit_and_letter(token)


FORMATS: tuple[Rule, ...] = (
    _rule("Anthropic API key", _prefix("sk-ant-") + r"[A-Za-z0-9]{2,10}+-[A-Za-z0-9_\-]{20,}+", "sk-ant-"),
    _rule(
        "OpenAI API key",
        _prefix("sk-") + r"(?:(?:proj|svcacct|admin|None)-)?+[A-Za-z0-9_\-]{20,}+",
        "sk-",
        check=_openai,
    ),
    _rule(
        "AWS access key ID",
        r"A(?<![A-Z0-9]A)(?:KIA|SIA|BIA|CCA|GPA|IDA|IPA|NPA|NVA|PKA|ROA)[A-Z0-9]{16}(?![A-Z0-9])",
        "akia", "asia", "abia", "acca", "agpa", "aida", "aipa", "anpa", "anva", "apka", "aroa",
    ),
    _rule(
        "AWS secret access key",
        r"aws_?secret(?:_?access)?+_?key[\"']?[ \t]{0,16}+[:=][ \t]{0,16}+[\"']?([a-z0-9/+]{40})(?![a-z0-9/+])",
        "aws",
        groups=(1,),
        lowered=True,
    ),
    _rule(
        "AWS secret access key",
        r"secret_?access_?key[\"']?[ \t]{0,16}+[:=][ \t]{0,16}+[\"']?([a-z0-9/+]{40})(?![a-z0-9/+])",
        "secret",
        groups=(1,),
        lowered=True,
    ),
    _rule("GitHub token", r"gh(?<![A-Za-z0-9]gh)[pousr]_[A-Za-z0-9]{30,}+", "ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    _rule("GitHub token", _prefix("github_pat_") + r"[A-Za-z0-9_]{22,}+", "github_pat_"),
    _rule("GitLab token", r"gl(?<![A-Za-z0-9]gl)(?:pat|dt|ptt|rt|cbt|oas|ft|imt|agent|soat|ffct)-[A-Za-z0-9_\-]{20,}+", "gl"),
    _rule("Slack token", _prefix("xox") + r"[abposre]-[A-Za-z0-9\-]{10,}+", "xox"),
    _rule("Slack token", _prefix("xapp-") + r"\d-[A-Za-z0-9\-]{10,}+", "xapp-"),
    _rule("Slack webhook URL", r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/\-]{20,}+", "hooks.slack.com"),
    _rule("Google API key", _prefix("AIza") + r"[0-9A-Za-z_\-]{35}" + _END, "aiza"),
    _rule("Google OAuth secret", _prefix("GOCSPX-") + r"[A-Za-z0-9_\-]{20,}+", "gocspx-"),
    _rule("Google OAuth token", _prefix("ya29.") + r"[A-Za-z0-9_\-]{20,}+", "ya29."),
    _rule("Stripe key", _prefix("sk_") + r"(?:live|test)_[A-Za-z0-9]{16,}+", "sk_live_", "sk_test_"),
    _rule("Stripe key", _prefix("rk_") + r"(?:live|test)_[A-Za-z0-9]{16,}+", "rk_live_", "rk_test_"),
    _rule("Stripe key", _prefix("whsec_") + r"[A-Za-z0-9]{24,}+", "whsec_"),
    _rule("npm token", _prefix("npm_") + r"[A-Za-z0-9]{36,}+", "npm_"),
    _rule("PyPI token", _prefix("pypi-AgE") + r"[A-Za-z0-9_\-]{50,}+", "pypi-age"),
    _rule("Hugging Face token", _prefix("hf_") + r"[A-Za-z0-9]{30,}+", "hf_", check=mixed_case_and_digit),
    _rule("SendGrid API key", _prefix("SG.") + r"[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}" + _END, "sg."),
    _rule("DigitalOcean token", r"do(?<![A-Za-z0-9]do)[opr]_v1_[a-f0-9]{64}" + _END, "_v1_"),
    _rule("Shopify token", r"shp(?<![A-Za-z0-9]shp)(?:at|ca|pa|ss)_[a-fA-F0-9]{32}" + _END, "shp"),
    _rule("Azure storage key", r"accountkey[ \t]{0,8}+=[ \t]{0,8}+([a-z0-9/+]{20,}+={0,2}+)", "accountkey", groups=(1,), lowered=True),
    _rule(
        "Azure storage key",
        r"sharedaccesskey[ \t]{0,8}+=[ \t]{0,8}+([a-z0-9/+]{20,}+={0,2}+)",
        "sharedaccesskey",
        groups=(1,),
        lowered=True,
    ),
    # A Logic Apps or Power Automate trigger URL (a Teams workflow webhook) signs with sig= too,
    # in the URL-safe alphabet.
    _rule("Azure SAS signature", r"sig=(?<=[?&;]sig=)([A-Za-z0-9%+/_\-]{16,}+={0,2}+)", "sig=", groups=(1,)),
    _rule(
        "Microsoft Teams webhook URL",
        r"https://[a-z0-9\-]{1,63}+\.webhook\.office\.com/webhook(?:b2)?+/[A-Za-z0-9@/\-]{40,}+",
        "webhook.office.com",
    ),
    _rule(
        "Azure client secret",
        r"Q~(?<=(?<![A-Za-z0-9_~.\-])[A-Za-z0-9_~.\-]{3}[0-9]Q~)[A-Za-z0-9_~.\-]{31,34}+(?![A-Za-z0-9_~.\-])",
        "q~",
        lead=4,
    ),
    _rule("Twilio key", _prefix("AC") + r"[a-f0-9]{32}(?![A-Za-z0-9])", "ac", check=lambda t: has_digit_and_letter(t[2:])),
    _rule("Twilio key", _prefix("SK") + r"[a-f0-9]{32}(?![A-Za-z0-9])", "sk", check=lambda t: has_digit_and_letter(t[2:])),
    # No rare literal starts a Discord token: the search starts at its first dot, where
    # Discord is named, and looks behind for the 23 to 28 characters of the user's id.
    _rule(
        "Discord bot token",
        r"\.(?<=(?<![A-Za-z0-9_\-.])[MNO][A-Za-z0-9_\-]{23}\.)[A-Za-z0-9_\-]{6,7}+\.[A-Za-z0-9_\-]{27,40}+(?![A-Za-z0-9_\-.])",
        "discord",
        check=lambda t: mixed_case_and_digit(t.split(".")[0]),
        lead=24,
    ),
    _rule(
        "Discord bot token",
        r"\.(?<=(?<![A-Za-z0-9_\-.])[MNO][A-Za-z0-9_\-]{25}\.)[A-Za-z0-9_\-]{6,7}+\.[A-Za-z0-9_\-]{27,40}+(?![A-Za-z0-9_\-.])",
        "discord",
        check=lambda t: mixed_case_and_digit(t.split(".")[0]),
        lead=26,
    ),
    _rule(
        "Discord webhook URL",
        r"https://(?:(?:ptb|canary)\.)?discord(?:app)?\.com/api/webhooks/[0-9]{5,30}+/[A-Za-z0-9_\-]{30,}+",
        "/api/webhooks/",
    ),
    _rule("Mailgun key", _prefix("key-") + r"[0-9a-zA-Z]{32}" + _END, "key-", check=has_digit_and_letter),
    _rule(
        "Mailgun key",
        r"-(?<=(?<![A-Za-z0-9])[0-9a-f]{32}-)[0-9a-f]{8}-[0-9a-f]{8}" + _END,
        "mailgun",
        check=lambda t: has_digit_and_letter(t[:32]),
        lead=32,
    ),
    _rule(
        "Mailchimp key",
        r"-us(?<=(?<![A-Za-z0-9])[0-9a-f]{32}-us)[0-9]{1,2}+" + _END,
        "-us",
        check=lambda t: has_digit_and_letter(t[:32]),
        lead=32,
    ),
    _rule("Telegram bot token", r":AA(?<=(?<![0-9])[0-9]{8}:AA)[A-Za-z0-9_\-]{30,}+", ":aa", lead=8),
    _rule("Telegram bot token", r":AA(?<=(?<![0-9])[0-9]{9}:AA)[A-Za-z0-9_\-]{30,}+", ":aa", lead=9),
    _rule("Telegram bot token", r":AA(?<=(?<![0-9])[0-9]{10}:AA)[A-Za-z0-9_\-]{30,}+", ":aa", lead=10),
    _rule("Atlassian API token", r"AT(?<![A-Za-z0-9]AT)[AC]TT3[A-Za-z0-9_\-=]{50,}+", "atatt3", "atctt3"),
    _rule("Databricks token", _prefix("dapi") + r"[0-9a-f]{32}(?:-[0-9]{1,2})?+" + _END, "dapi", check=_hex_key),
    _rule("Vault token", r"hv(?<![A-Za-z0-9]hv)[sbr]\.[A-Za-z0-9_\-]{24,}+", "hvs.", "hvb.", "hvr."),
    _rule("Doppler token", _prefix("dp.") + r"(?:st|ct|sa|scim|audit|pt)\.[A-Za-z0-9_\-.]{20,}+", "dp."),
    _rule("Linear API key", _prefix("lin_api_") + r"[A-Za-z0-9]{32,}+", "lin_api_"),
    _rule("Notion token", _prefix("ntn_") + r"[A-Za-z0-9]{40,}+", "ntn_"),
    _rule("Notion token", _prefix("secret_") + r"[A-Za-z0-9]{43}" + _END, "secret_", check=mixed_case_and_digit),
    _rule("Figma token", _prefix("figd_") + r"[A-Za-z0-9_\-]{30,}+", "figd_"),
    _rule("Sentry token", _prefix("sntry") + r"[us]_[A-Za-z0-9_=+/\-]{30,}+", "sntrys_", "sntryu_"),
    _rule("Grafana token", _prefix("gl") + r"(?:sa|c)_[A-Za-z0-9_+/=]{32,}+", "glsa_", "glc_"),
    _rule("New Relic key", r"NR(?<![A-Za-z0-9]NR)(?:AK|II|JS|RA)-[A-Z0-9]{27,}+", "nrak-", "nrii-", "nrjs-", "nrra-"),
    _rule("Postman key", _prefix("PMAK-") + r"[a-f0-9]{24}-[a-f0-9]{34}" + _END, "pmak-"),
    _rule("Pulumi token", _prefix("pul-") + r"[a-f0-9]{40}" + _END, "pul-"),
    _rule("Supabase token", _prefix("sbp_") + r"[a-f0-9]{40,}+", "sbp_"),
    _rule("age secret key", _prefix("AGE-SECRET-KEY-1") + r"[0-9A-Z]{50,}+", "age-secret-key-1"),
    _rule("Square token", _prefix("sq0") + r"(?:atp|csp)-[A-Za-z0-9_\-]{22,}+", "sq0"),
    _rule("Square token", _prefix("EAAA") + r"[A-Za-z0-9_\-]{56,}+", "eaaa", check=mixed_case_and_digit),
    _rule("Tailscale key", _prefix("tskey-") + r"[a-z]{3,8}+-[A-Za-z0-9]{6,}+-[A-Za-z0-9]{16,}+", "tskey-"),
    _rule("Netlify token", _prefix("nfp_") + r"[A-Za-z0-9]{36,}+", "nfp_"),
    _rule("SonarQube token", r"sq(?<![A-Za-z0-9]sq)[uap]_[a-f0-9]{40}" + _END, "squ_", "sqa_", "sqp_"),
    _rule("Heroku API key", _prefix("HRKU-") + r"[A-Za-z0-9_\-]{30,}+", "hrku-"),
    _rule("Mapbox secret token", _prefix("sk.eyJ") + r"[A-Za-z0-9_\-.]{40,}+", "sk.eyj"),
    _rule("Alibaba Cloud key", _prefix("LTAI") + r"[A-Za-z0-9]{12,20}+" + _END, "ltai", check=mixed_case_and_digit),
    # Providers an outside probe found without a rule (issue 24), by their documented shapes.
    _rule("Docker access token", _prefix("dckr_") + r"(?:pat|oat)_[A-Za-z0-9_\-]{20,}+", "dckr_pat_", "dckr_oat_"),
    _rule("Terraform Cloud token", r"\.atlasv1\.(?<=(?<![A-Za-z0-9])[A-Za-z0-9]{14}\.atlasv1\.)[A-Za-z0-9_\-=]{60,}+", ".atlasv1.", lead=14),
    _rule("Airtable token", _prefix("pat") + r"[A-Za-z0-9]{14}\.[a-f0-9]{64}" + _END, "pat", check=lambda t: has_digit_and_letter(t[3:17])),
    _rule("PlanetScale token", _prefix("pscale_") + r"(?:tkn|pw|oauth)_[A-Za-z0-9_\-.=]{32,}+", "pscale_"),
    _rule("RubyGems API key", _prefix("rubygems_") + r"[a-f0-9]{48}" + _END, "rubygems_"),
    _rule("Groq API key", _prefix("gsk_") + r"[A-Za-z0-9]{48,}+", "gsk_"),
    _rule("Replicate API token", _prefix("r8_") + r"[A-Za-z0-9]{37,}+", "r8_", check=lambda t: has_digit_and_letter(t[3:])),
    _rule("Perplexity API key", _prefix("pplx-") + r"[A-Za-z0-9]{40,}+", "pplx-"),
    _rule("xAI API key", _prefix("xai-") + r"[A-Za-z0-9]{60,}+", "xai-"),
    _rule("Pinecone API key", _prefix("pcsk_") + r"[A-Za-z0-9]{4,8}+_[A-Za-z0-9]{40,}+", "pcsk_"),
    _rule("LangSmith key", _prefix("lsv2_") + r"(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}" + _END, "lsv2_"),
    _rule("Bitbucket app password", _prefix("ATBB") + r"[A-Za-z0-9]{28,}+", "atbb", check=mixed_case_and_digit),
    _rule("Dynatrace token", _prefix("dt0c01.") + r"[A-Z0-9]{24}\.[A-Z0-9]{64}" + _END, "dt0c01."),
    _rule("JFrog token", _prefix("AKCp") + r"[A-Za-z0-9]{60,}+", "akcp", check=mixed_case_and_digit),
    _rule("JFrog token", _prefix("cmVmdGtuOjAxOj") + r"[A-Za-z0-9]{30,}+", "cmvmdgtuojaxoj"),
    _rule("Cloudflare Origin CA key", _prefix("v1.0-") + r"[a-f0-9]{24}-[a-f0-9]{100,}+", "v1.0-"),
    _rule("Google OAuth refresh token", r"1//0(?<![A-Za-z0-9]1//0)[A-Za-z0-9_\-]{40,}+", "1//0"),
    _rule(
        "Azure DevOps token",
        r"https://([a-z2-7]{52})@(?:dev\.azure\.com|[a-z0-9\-]{1,64}+\.visualstudio\.com)",
        "dev.azure.com", "visualstudio.com",
        groups=(1,),
        lowered=True,
    ),
    _rule(
        "Azure Functions key",
        r"code=(?<=[?&]code=)([A-Za-z0-9_\-]{40,}+={0,2}+)",
        "code=",
        groups=(1,),
        check=lambda t: has_digit_and_letter(t),
    ),
    _rule(
        "JSON Web Key private part",
        r"\"(?:d|p|q|dp|dq|qi|k)\"[ \t]{0,8}+:[ \t]{0,8}+\"([A-Za-z0-9_\-]{16,}+)\"",
        "\"kty\"",
        groups=(1,),
    ),
    _rule(
        "PuTTY private key",
        r"private-lines:[ \t]{0,8}+[0-9]{1,3}+[ \t]*+\r?\n((?:[ \t]*+[a-z0-9+/]{4,}+={0,2}+[ \t]*+(?:\r?\n|\Z))++)",
        "private-lines:",
        groups=(1,),
        lowered=True,
    ),
    _rule(
        "recovery phrase",
        r"(?:mnemonic|seed[ _\-]?phrase|recovery[ _\-]?phrase|seed[ _\-]?words)[\"']?[ \t]{0,8}+[:=][ \t]{0,8}+[\"']?"
        r"((?:[a-z]{3,8}+[ \t]{1,4}+){11,23}+[a-z]{3,8}+)",
        "mnemonic", "seed", "recovery",
        groups=(1,),
        lowered=True,
    ),
    # Django's startproject writes it so; the body may hold any of !@#$%^&*(-_=+).
    _rule("Django secret key", _prefix("django-insecure-") + r"[a-z0-9!@#$%^&*(\-_=+)]{40,}+", "django-insecure-"),
    _rule("Fly.io token", _prefix("fo1_") + r"[A-Za-z0-9_\-]{40,}+", "fo1_"),
    _rule("Fly.io token", _prefix("fm") + r"[12]_[A-Za-z0-9_\-+/=]{40,}+", "fm1_", "fm2_"),
    _rule(
        "JSON Web Token",
        _prefix("eyJ") + r"[A-Za-z0-9_\-]{8,}+\.eyJ[A-Za-z0-9_\-]{8,}+\.[A-Za-z0-9_\-]{8,}+",
        "eyj",
    ),
)
