"""Shapes of the account, session, project-role token and cluster routes."""

from dataclasses import dataclass, field

MAX_EXPIRY = 10 * 365 * 24 * 3600
"""Longest token life asked for, in seconds (ten years)."""
TOKEN_ID_MAX = 128


@dataclass
class TokenRequest:
    """A token to issue: how long it lives and, optionally, its id (the `jti`)."""

    expires_in: int = field(
        default=0,
        metadata={"doc": "seconds until it expires; 0: never", "minimum": 0, "maximum": MAX_EXPIRY},
    )
    id: str = field(
        default="",
        metadata={
            "doc": "the token's id (jti); default a random UUID",
            "max_length": TOKEN_ID_MAX,
            "pattern": r"^[A-Za-z0-9._:-]*$",
        },
    )


@dataclass
class TokenIdQuery:
    id: str = field(
        default="",
        metadata={
            "doc": "the token's id (jti); when given, it picks the token instead of iat",
            "max_length": TOKEN_ID_MAX,
        },
    )


@dataclass
class TokenResponse:
    token: str = field(metadata={"doc": "the signed token (shown once; not stored)"})
    id: str
    issued_at: int
    expires_at: int


@dataclass
class TokenInfo:
    id: str
    issued_at: int
    expires_at: int = field(metadata={"doc": "Unix seconds; 0 if it never expires"})


@dataclass
class AccountInfo:
    name: str
    enabled: bool
    capabilities: list[str]
    tokens: list[TokenInfo]


@dataclass
class AccountList:
    items: list[AccountInfo]


@dataclass
class CanIResponse:
    value: str = field(metadata={"doc": "`yes` or `no`"})


@dataclass
class UserInfo:
    """Who the token speaks for (Argo CD's `session/userinfo`)."""

    logged_in: bool
    username: str
    iss: str
    groups: list[str]
    kind: str = field(metadata={"doc": "token, account or project role"})


@dataclass
class ClusterQuery:
    """How the path names the cluster: its server URL (default) or its name."""

    type: str = field(
        default="server",
        metadata={"doc": "`server` or `name`", "pattern": "^(server|name)$", "max_length": 6},
    )


@dataclass
class ClusterInfo:
    server: str
    name: str
    namespaces: list[str]
    cluster_resources: bool
    project: str
    secret: str = field(metadata={"doc": "the cluster Secret; empty for in-cluster"})
    credentials: str = field(metadata={"doc": "the kind of credentials (never their values)"})


@dataclass
class ClusterList:
    items: list[ClusterInfo]
