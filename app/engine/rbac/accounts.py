"""Local accounts, as Argo CD keeps them.

In `argocd-cm`: `accounts.<name>: apiKey, login` declares an account and its
capabilities (`apiKey`: it may have API tokens; `login`: it may sign in with a
password), `accounts.<name>.enabled: "false"` disables it. `admin` is built in (capability
`login`; `admin.enabled: "false"` disables it). In `argocd-secret`:
`accounts.<name>.tokens` is the JSON list of the account's tokens (`id`, `iat`, `exp`);
a token whose `id` is not listed is revoked. `server.secretkey` signs every token.
"""

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

API_KEY = "apiKey"
LOGIN = "login"
CAPABILITIES = (API_KEY, LOGIN)
ADMIN = "admin"
PREFIX = "accounts."
SECRET_KEY = "server.secretkey"  # noqa: S105 - the name of a Secret key
MAX_TOKENS = 1000
"""Tokens one account may have listed."""


@dataclass(frozen=True, slots=True)
class AccountToken:
    id: str
    issued_at: int
    expires_at: int = 0
    """Unix seconds; 0 for a token that does not expire."""

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"id": self.id, "iat": self.issued_at}
        if self.expires_at:
            doc["exp"] = self.expires_at
        return doc


@dataclass(frozen=True, slots=True)
class Account:
    name: str
    capabilities: tuple[str, ...]
    enabled: bool = True
    tokens: tuple[AccountToken, ...] = ()

    def token(self, token_id: str) -> AccountToken | None:
        return next((t for t in self.tokens if t.id == token_id), None)


@dataclass(frozen=True, slots=True)
class Accounts:
    """Every account, and the problems of the keys that could not be read (each account
    whose keys are bad is left out: it cannot be used until fixed)."""

    by_name: Mapping[str, Account] = field(default_factory=dict)
    problems: tuple[str, ...] = ()

    def get(self, name: str) -> Account | None:
        return self.by_name.get(name)


def _capabilities(value: Any, where: str, problems: list[str]) -> tuple[str, ...] | None:
    if not isinstance(value, str):
        problems.append(f"{where}: expected a comma-separated list of capabilities")
        return None
    found = tuple(c.strip() for c in value.split(",") if c.strip())
    unknown = [c for c in found if c not in CAPABILITIES]
    if unknown:
        problems.append(
            f"{where}: unknown capability {unknown[0]!r} (expected {' or '.join(CAPABILITIES)})"
        )
        return None
    return found


def _tokens(text: str, where: str, problems: list[str]) -> tuple[AccountToken, ...]:
    try:
        doc = json.loads(text) if text.strip() else []
    except ValueError:
        doc = None
    if not isinstance(doc, list) or len(doc) > MAX_TOKENS:
        problems.append(f"{where}: expected a JSON list of at most {MAX_TOKENS} tokens")
        return ()
    found = []
    for item in doc:
        if not (
            isinstance(item, dict)
            and isinstance(item.get("id"), str)
            and isinstance(item.get("iat"), int)
        ):
            problems.append(f"{where}: every token needs a string id and an integer iat")
            return ()
        exp = item.get("exp", 0)
        found.append(AccountToken(item["id"], item["iat"], exp if isinstance(exp, int) else 0))
    return tuple(found)


def parse_accounts(config: Mapping[str, Any], secret: Mapping[str, str]) -> Accounts:
    """Accounts from argocd-cm's `data` and argocd-secret's decoded `data`."""
    problems: list[str] = []
    declared: dict[str, tuple[str, ...]] = {ADMIN: (LOGIN,)}
    for key, value in config.items():
        if not key.startswith(PREFIX) or key.endswith(".enabled"):
            continue
        name = key[len(PREFIX) :]
        if not name or "." in name:
            problems.append(f"argocd-cm {key}: not an account key (accounts.<name>)")
            continue
        capabilities = _capabilities(value, f"argocd-cm {key}", problems)
        if capabilities is not None:
            declared[name] = capabilities
    found: dict[str, Account] = {}
    for name, capabilities in declared.items():
        enabled_key = "admin.enabled" if name == ADMIN else f"{PREFIX}{name}.enabled"
        enabled = str(config.get(enabled_key, "true")).strip().lower() != "false"
        tokens_key = f"{PREFIX}{name}.tokens"
        tokens = _tokens(secret.get(tokens_key, ""), f"argocd-secret {tokens_key}", problems)
        found[name] = Account(name, capabilities, enabled, tokens)
    return Accounts(dict(sorted(found.items())), tuple(problems))
