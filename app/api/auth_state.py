"""What the API decides access from, followed live: argocd-rbac-cm, argocd-cm's accounts
and argocd-secret.

- `argocd-rbac-cm` (`ApiSettings.rbac_configmap`): the policy in force (`enforcer`), a
  new `Enforcer` per version. A version that does not parse is refused whole (logged
  naming every bad line; the policy in force stays); at start it stops the API, which
  would otherwise run without the deny lines the operator wrote. No ConfigMap: the
  built-in roles only.
- `argocd-cm` (the settings ConfigMap): local accounts; `argocd-secret`
  (`ApiSettings.secret_name`): their tokens and `server.secretkey`, the key that signs
  every token. Without a key, the API writes one (32 random bytes) into the Secret,
  creating it if needed, as Argo CD's server does at start; every API replica then reads
  the same key.
- The token file and `SLUICE_API_TOKENS` become policy lines of their own
  (`TokenSet.rules`), so every caller goes through the same decision.
"""

import base64
import json
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from aiohttp import web

from app import log
from app.api.settings import ApiSettings
from app.cluster import Cluster
from app.cluster.errors import ClusterError
from app.cluster.errors import Conflict as ClusterConflict
from app.cluster.errors import NotFound as ClusterNotFound
from app.engine.rbac.accounts import SECRET_KEY, Accounts, AccountToken, parse_accounts
from app.engine.rbac.enforcer import Enforcer
from app.engine.rbac.policy import RbacConfig, RbacConfigError, Rule, parse_rbac_config
from app.engine.rbac.project_roles import ProjectPolicy
from app.runtime.followed import FollowedObject, Refused, decoded

logger = log.get("api")

KEY_BYTES = 32
REPORTED = 1024
"""Project policy versions whose problems were logged (each is logged once)."""


class AuthState:
    """The policy, accounts and signing key in force in this API process."""

    def __init__(
        self,
        cluster: Cluster,
        namespace: str,
        settings_configmap: str,
        settings: ApiSettings,
        generated: Sequence[Rule],
    ) -> None:
        self._cluster = cluster
        self._namespace = namespace
        self._generated = tuple(generated)
        self.enforcer = Enforcer(RbacConfig(), self._generated)
        self.accounts = Accounts()
        self.signing_key = b""
        self._secret: dict[str, str] = {}
        self._reported: set[str] = set()
        self._config: Mapping[str, Any] = {}
        self._rbac = FollowedObject(
            cluster, "ConfigMap", namespace, settings.rbac_configmap, self._take_rbac
        )
        self._cm = FollowedObject(
            cluster, "ConfigMap", namespace, settings_configmap, self._take_config
        )
        self.secret = FollowedObject(
            cluster, "Secret", namespace, settings.secret_name, self._take_secret
        )

    async def start(self) -> None:
        for followed in (self._rbac, self._cm, self.secret):
            try:
                await followed.start()
            except Refused as e:
                await self.stop()
                raise RuntimeError(f"{e}. Fix it (kubectl edit) and start the API again") from None
        if self.secret.ready and not self.signing_key:
            try:
                await self._make_key()
            except ClusterError as e:
                logger.warning(
                    "api.signing_key_missing",
                    secret=self.secret.origin,
                    reason=f"cannot write it yet ({e}); it is written when a token is first "
                    "issued, and signed tokens are refused until then",
                )

    async def stop(self) -> None:
        for followed in (self._rbac, self._cm, self.secret):
            await followed.stop()

    async def _take_rbac(self, data: Mapping[str, Any], version: str) -> None:
        origin = self._rbac.origin
        try:
            config = parse_rbac_config(data, origin=origin)
        except RbacConfigError as e:
            raise Refused(str(e)) from None
        self.enforcer = Enforcer(config, self._generated)
        logger.info(
            "api.rbac_loaded",
            configmap=origin,
            resource_version=version or "none (built-in roles only)",
            lines=len(config.rules),
            default_role=config.default_role or "none",
            match_mode=config.match_mode.value,
            scopes=list(config.scopes),
        )

    def _accounts(self) -> None:
        self.accounts = parse_accounts(self._config, self._secret)
        for problem in self.accounts.problems:
            logger.error("api.account_unreadable", problem=problem, action="account left out")

    async def _take_config(self, data: Mapping[str, Any], _version: str) -> None:
        self._config = data
        self._accounts()

    async def _take_secret(self, data: Mapping[str, Any], _version: str) -> None:
        self._secret = decoded(data)
        self.signing_key = self._secret.get(SECRET_KEY, "").encode()
        self._accounts()

    async def key(self) -> bytes:
        """The signing key, written into the Secret first if there is none yet."""
        if not self.signing_key:
            await self._make_key()
        return self.signing_key

    async def _make_key(self) -> None:
        key = base64.b64encode(secrets.token_bytes(KEY_BYTES)).decode()
        await self.write_secret({SECRET_KEY: key}, create=True)
        if not self.signing_key:
            self.signing_key = key.encode()
        logger.info("api.signing_key_created", secret=self.secret.origin)

    async def write_secret(self, values: Mapping[str, str], *, create: bool = False) -> None:
        """Set keys of argocd-secret (creating the Secret when `create` and it is absent);
        the values in force here follow at once, other replicas by their watch."""
        encoded = {k: base64.b64encode(v.encode()).decode() for k, v in values.items()}
        name = self.secret.name
        try:
            await self._cluster.patch(
                "v1", "Secret", name, {"data": encoded}, namespace=self._namespace
            )
        except ClusterNotFound:
            if not create:
                raise
            doc = {
                "apiVersion": "v1",
                "kind": "Secret",
                "type": "Opaque",
                "metadata": {"name": name, "namespace": self._namespace},
                "data": encoded,
            }
            try:
                await self._cluster.create(doc)
            except ClusterConflict:
                await self._cluster.patch(
                    "v1", "Secret", name, {"data": encoded}, namespace=self._namespace
                )
        self._secret.update(values)
        self.signing_key = self._secret.get(SECRET_KEY, "").encode()
        self._accounts()

    def report(self, policy: ProjectPolicy) -> None:
        """Log the lines a project's roles hold that were ignored (once per version)."""
        version = policy.key + "\n".join(policy.problems)
        if not policy.problems or version in self._reported:
            return
        if len(self._reported) >= REPORTED:
            self._reported.clear()
        self._reported.add(version)
        for problem in policy.problems:
            logger.warning("api.project_role_line_ignored", project=policy.project, problem=problem)

    async def set_account_tokens(self, account: str, tokens: Sequence[AccountToken]) -> None:
        key = f"accounts.{account}.tokens"
        await self.write_secret({key: json.dumps([t.to_json() for t in tokens])})


AUTH = web.AppKey("auth", AuthState)
"""App key of the `AuthState` of an API server."""
