"""When repository credentials or trust change: refresh the apps waiting on them.

Every process follows the repository Secrets and trust ConfigMaps (repo_secrets.py) and
hands each change here. One process per state of those objects acts (a Redis claim keyed
by their resourceVersions, so N processes seeing the same edit refresh once): for every
registered app, the sources whose repository is reached differently now
(`CredentialView.fingerprint` before and after), and whether the app is in a repository
error (its stored status and compare marks); the engine (`app.engine.credential_refresh`)
says whether that calls for a refresh and words the reason. The claiming process also
empties the cached connection states (`app.store.connection_states`): the next list
measures them with what is in force now.
"""

from dataclasses import dataclass

from app import log
from app.bus.connection import Bus
from app.bus.messages import REFRESH, RefreshRequest
from app.bus.publish import publish
from app.engine.credential_refresh import credential_refresh, in_repository_error
from app.engine.redact import redact_text
from app.model.identity import AppRef
from app.repo.credential_view import CredentialView
from app.store import keys
from app.store.apps import AppRegistry
from app.store.compare_marks import CompareMarksStore
from app.store.connection import Redis
from app.store.connection_states import ConnectionStates
from app.store.status import StatusStore

logger = log.get("repositories", stage="credentials")

CLAIM_SECONDS = 600
"""How long a claimed state stays claimed (longer than any process takes to see it)."""


@dataclass(frozen=True, slots=True)
class CredentialRefresher:
    """The `on_change` of a process's RepositorySecretsSource."""

    redis: Redis
    bus: Bus
    apps: AppRegistry
    status: StatusStore

    async def __call__(self, before: CredentialView, after: CredentialView) -> int:
        """Refresh the apps in a repository error whose repositories `after` reaches
        differently from `before`; returns how many were refreshed (0 when another
        process claimed this state)."""
        key = keys.repo_change(after.version)
        if not await self.redis.set(key, b"1", nx=True, ex=CLAIM_SECONDS):
            return 0
        await ConnectionStates(self.redis).clear()
        marks = CompareMarksStore(self.redis)
        refreshed = 0
        for app in await self.apps.all():
            project = app.spec.project
            changed = [
                redact_text(source.repo_url)
                for source in app.spec.all_sources
                if before.fingerprint(source.repo_url, project)
                != after.fingerprint(source.repo_url, project)
            ]
            if not changed:
                continue
            ref = AppRef(app.namespace, app.name)
            stored = await self.status.read_status(ref)
            conditions = [c.type for c in stored.status.conditions] if stored else []
            since = (await marks.read(ref)).repo_error_since
            ask = credential_refresh(in_repository_error(conditions, since), changed)
            if ask is None:
                continue
            await publish(self.bus, REFRESH, RefreshRequest(ref, ask.level, ask.reason))
            refreshed += 1
            logger.info("repositories.app_refreshed", app=str(ref), reason=ask.reason)
        return refreshed
