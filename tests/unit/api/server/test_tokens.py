"""Token configuration and authentication rules."""

import datetime as dt
import hashlib
from pathlib import Path

import pytest

from app.api import tokens
from app.api.tokens import Refused, TokenConfigError
from app.engine.rbac.enforcer import Caller, Enforcer
from app.engine.rbac.policy import RbacConfig

GOOD = "0123456789abcdef0123"


@pytest.mark.parametrize(
    ("env", "names"),
    [
        pytest.param({"SLUICE_API_TOKENS": GOOD}, ["token-1"], id="plain token named by position"),
        pytest.param({"SLUICE_API_TOKENS": f"ci={GOOD}, ,"}, ["ci"], id="named, blanks skipped"),
        pytest.param({}, [], id="nothing configured"),
    ],
)
def test_env_tokens(env: dict[str, str], names: list[str]) -> None:
    loaded = tokens.load(env)
    assert [t.principal.name for t in loaded.tokens] == names


def test_no_tokens_refuses_everyone() -> None:
    with pytest.raises(Refused, match="no API tokens are configured"):
        tokens.load({}).authenticate(GOOD)


def test_short_tokens_are_refused_at_start() -> None:
    with pytest.raises(TokenConfigError, match="SLUICE_API_TOKENS entry 1"):
        tokens.load({"SLUICE_API_TOKENS": "short"})


def test_file_tokens_scope_and_expiry(tmp_path: Path) -> None:
    file = tmp_path / "tokens.yaml"
    file.write_text(
        "tokens:\n"
        f"  - {{name: ci, sha256: {hashlib.sha256(GOOD.encode()).hexdigest()}, "
        "projects: [team-a-*], readOnly: true, expiresAt: '2030-01-01T00:00:00Z'}\n"
    )
    loaded = tokens.load({"SLUICE_API_TOKEN_FILE": str(file)})
    principal = loaded.authenticate(GOOD, now=dt.datetime(2029, 1, 1, tzinfo=dt.UTC))
    assert principal.read_only and principal.projects == ("team-a-*",)
    enforcer = Enforcer(RbacConfig(), loaded.rules())
    ci = Caller("ci")
    assert enforcer.allows(ci, "applications", "get", "team-a-shop/web")
    assert not enforcer.allows(ci, "applications", "sync", "team-a-shop/web")
    assert not enforcer.allows(ci, "applications", "get", "b/web")
    with pytest.raises(Refused, match="expired"):
        loaded.authenticate(GOOD, now=dt.datetime(2030, 1, 2, tzinfo=dt.UTC))
    with pytest.raises(Refused, match="invalid bearer token"):
        loaded.authenticate(GOOD + "x")


@pytest.mark.parametrize(
    ("text", "says"),
    [
        pytest.param("tokens: [{name: a}]", "exactly one of token and sha256", id="no secret"),
        pytest.param("tokens: [{name: a, sha256: zz}]", "64 hex digits", id="bad digest"),
        pytest.param(
            f"tokens: [{{name: a, token: {GOOD}, projects: []}}]", "projects", id="no projects"
        ),
        pytest.param(
            f"tokens: [{{name: a, token: {GOOD}, admin: true}}]", "unknown field", id="typo"
        ),
        pytest.param("[1, 2]", "`tokens` list", id="not a mapping"),
        pytest.param(
            f"tokens: [{{name: a, token: {GOOD}, projects: ['!prod']}}]", "deny", id="negation"
        ),
        pytest.param(
            f"tokens: [{{name: a, token: {GOOD}, expiresAt: soon}}]", "RFC 3339", id="bad time"
        ),
    ],
)
def test_bad_token_files_name_the_entry(tmp_path: Path, text: str, says: str) -> None:
    file = tmp_path / "tokens.yaml"
    file.write_text(text)
    with pytest.raises(TokenConfigError, match=says) as raised:
        tokens.load({"SLUICE_API_TOKEN_FILE": str(file)})
    assert GOOD not in str(raised.value)


def test_duplicate_names_are_refused() -> None:
    with pytest.raises(TokenConfigError, match="repeated: ci"):
        tokens.load({"SLUICE_API_TOKENS": f"ci={GOOD},ci={GOOD}x"})


def test_local_token_is_created_private_and_kept(tmp_path: Path) -> None:
    first = tokens.ensure_local_token(tmp_path)
    assert (tmp_path / "api-token").stat().st_mode & 0o777 == 0o600
    assert tokens.ensure_local_token(tmp_path) == first and len(first) == 64
