"""Who a request speaks for, once its token is checked (`authn.py`).

An `Identity` is an RBAC subject with the claims of its token. Groups are read from the
claims the RBAC `scopes` name at each decision, so a token that carries groups (an OIDC
ID token, when SSO comes; a token-file entry's `groups` today) needs nothing more.
"""

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.engine.rbac.enforcer import Caller


class IdentityKind(enum.Enum):
    TOKEN = "token"  # noqa: S105 - a kind of identity
    """A configured token (`SLUICE_API_TOKENS`, the token file)."""
    ACCOUNT = "account"
    """A local account's API token."""
    PROJECT_ROLE = "project role"
    """A project role's token."""


@dataclass(frozen=True, slots=True)
class Identity:
    name: str
    """The RBAC subject: a token or account name, or `proj:<project>:<role>`."""
    kind: IdentityKind
    claims: Mapping[str, Any] = field(default_factory=dict)
    token_id: str = ""
    """The token's `jti` (signed tokens)."""

    @property
    def caller(self) -> Caller:
        return Caller(self.name, self.claims)


NOBODY = Identity("anonymous", IdentityKind.TOKEN)
"""The identity of a public route's request: RBAC is not asked for those."""
