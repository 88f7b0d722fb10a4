"""The app registry: every Application and AppProject Sluice reconciles, for fast reads.

The watcher is the only writer: it mirrors the Application and AppProject resources of
the control-plane namespaces into Redis; every other stage reads from here instead of
asking the API server. `put` tells the watcher whether the spec changed (a `force`
refresh follows) in the same atomic step that stores it.

Status is not stored here (the status store owns it): the registry holds what the user
wrote: metadata and spec, plus a pending `operation` if one was set on the resource.
"""

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from app import log
from app.model.application import Application
from app.model.identity import AppRef
from app.model.project import AppProject
from app.store import keys
from app.store.connection import Redis
from app.store.values import as_bytes, dumps, load_model

logger = log.get("store")

MAX_APP_BYTES = 1 << 20
"""Largest Application or AppProject stored (the API server's own limit is 1.5 MiB)."""

_PUT = """
local previous = redis.call('HGET', KEYS[1], 'spec')
redis.call('HSET', KEYS[1], 'doc', ARGV[1], 'spec', ARGV[2])
redis.call('HDEL', KEYS[1], 'invalid')
redis.call('SADD', KEYS[2], ARGV[3])
if not previous then
  return 2
end
if previous ~= ARGV[2] then
  return 1
end
return 0
"""


_MARK_INVALID = """
if redis.call('HEXISTS', KEYS[1], 'doc') == 0 then
  return 0
end
redis.call('HSET', KEYS[1], 'invalid', ARGV[1])
return 1
"""

MAX_PROBLEM = 4096
"""Longest InvalidSpecError message kept."""


@dataclass(frozen=True, slots=True)
class Registered:
    """A registered Application and, if its resource no longer parses, why."""

    app: Application
    """The last version that parsed."""
    invalid: str
    """Empty, or the InvalidSpecError message of the version now on the cluster."""


@dataclass(frozen=True, slots=True)
class AppChange:
    """What `put` found."""

    created: bool
    """The app was not registered before."""
    spec_changed: bool
    """The spec differs from the stored one (always true when created)."""


def _canonical(doc: Any) -> str:
    return json.dumps(doc, sort_keys=True, separators=(",", ":"))


def _stored(app: Application) -> dict[str, Any]:
    doc = app.to_dict()
    doc.pop("status", None)
    meta = doc.get("metadata") or {}
    for volatile in ("resourceVersion", "managedFields"):
        meta.pop(volatile, None)
    return doc


class AppRegistry:
    def __init__(self, redis: Redis) -> None:
        self._redis = redis
        self._put = redis.register_script(_PUT)
        self._mark_invalid = redis.register_script(_MARK_INVALID)

    async def put(self, app: Application) -> AppChange:
        """Store an Application; whether it is new and whether its spec changed."""
        doc = _stored(app)
        name = f"{app.namespace}/{app.name}"
        data = dumps(doc, what=f"Application {name}", limit=MAX_APP_BYTES)
        spec_hash = hashlib.sha256(_canonical(doc["spec"]).encode()).hexdigest()
        outcome = int(
            await self._put(keys=[keys.app(app.ref), keys.APPS], args=[data, spec_hash, name])
        )
        return AppChange(created=outcome == 2, spec_changed=outcome >= 1)

    async def get(self, ref: AppRef) -> Application | None:
        data = as_bytes(await self._redis.hget(keys.app(ref), "doc"))
        return load_model(Application, data, what=f"Application {ref.namespace}/{ref.name}")

    async def lookup(self, ref: AppRef) -> Registered | None:
        """The app with its validity, in one round trip; None if not registered."""
        doc, invalid = await self._redis.hmget(keys.app(ref), ["doc", "invalid"])
        app = load_model(Application, as_bytes(doc), what=f"Application {ref.namespace}/{ref.name}")
        if app is None:
            return None
        return Registered(app, (as_bytes(invalid) or b"").decode())

    async def mark_invalid(self, ref: AppRef, problem: str) -> bool:
        """Record that the Application's resource stopped parsing (the last valid version
        stays); False if it was never registered, so there is nothing to mark."""
        marked = await self._mark_invalid(keys=[keys.app(ref)], args=[problem[:MAX_PROBLEM]])
        return bool(marked)

    async def delete(self, ref: AppRef) -> bool:
        """Forget an Application; False if it was not registered."""
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.delete(keys.app(ref))
            pipe.srem(keys.APPS, f"{ref.namespace}/{ref.name}")
            removed, _ = await pipe.execute()
        return bool(removed)

    async def names(self) -> list[tuple[str, str]]:
        """(namespace, name) of every registered Application, sorted."""
        members = await self._redis.smembers(keys.APPS)
        out = []
        for member in members:
            text = member.decode() if isinstance(member, bytes) else str(member)
            namespace, _, name = text.partition("/")
            out.append((namespace, name))
        return sorted(out)

    async def all(self) -> list[Application]:
        """Every registered Application that can be read (unreadable ones are logged)."""
        apps = []
        for ref, data in await self.all_raw():
            app = decode_app(ref, data)
            if app is not None:
                apps.append(app)
        return apps

    async def all_raw(self) -> list[tuple[AppRef, bytes]]:
        """Every registered Application's stored document, sorted (`decode_app` reads
        one): for a caller that keeps what it decoded by the stored bytes."""
        names = await self.names()
        if not names:
            return []
        refs = [AppRef(namespace, name) for namespace, name in names]
        async with self._redis.pipeline(transaction=False) as pipe:
            for ref in refs:
                pipe.hget(keys.app(ref), "doc")
            values = await pipe.execute()
        return [
            (ref, data)
            for ref, value in zip(refs, values, strict=True)
            if (data := as_bytes(value)) is not None
        ]

    async def put_project(self, project: AppProject) -> None:
        doc = project.to_dict()
        doc.pop("status", None)
        name = f"{project.metadata.namespace}/{project.name}"
        data = dumps(doc, what=f"AppProject {name}", limit=MAX_APP_BYTES)
        await self._redis.set(keys.project(project.metadata.namespace, project.name), data)

    async def get_project(self, namespace: str, name: str) -> AppProject | None:
        """The stored project; Argo CD's permissive `default` when `default` is not stored."""
        data = as_bytes(await self._redis.get(keys.project(namespace, name)))
        project = load_model(AppProject, data, what=f"AppProject {namespace}/{name}")
        if project is None and name == "default" and data is None:
            return AppProject.default()
        return project

    async def delete_project(self, namespace: str, name: str) -> None:
        await self._redis.delete(keys.project(namespace, name))


def decode_app(ref: AppRef, data: bytes) -> Application | None:
    """A stored Application document; None (and a warning) if it cannot be read."""
    return load_model(Application, data, what=f"Application {ref.namespace}/{ref.name}")
