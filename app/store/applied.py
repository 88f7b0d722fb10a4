"""Objects the sync worker applied, put into the live cache only when they are newer.

The watcher keeps the live cache (`livecache.py`); the sync worker also writes what each
apply returned, so the comparison that follows an operation sees the result without
waiting for the watch event. The watch event may have come first, with a newer version
of the object (a controller wrote its status meanwhile): an older copy must never replace
it. So each object is written in one Lua step only if the cache has no copy of it, or
its copy has a lower resourceVersion. resourceVersions are compared as integers (etcd
revisions, and the local cluster's counter, are); a copy whose version is not a number
is left alone, since the watcher's copy is the authority.
"""

from collections.abc import Sequence

from app.model.identity import AppRef
from app.model.resource import KubeObject, ResourceKey, metadata
from app.store import keys
from app.store.connection import Redis
from app.store.livecache import MAX_OBJECT_BYTES
from app.store.values import dumps

_PUT_NEWER = """
local written = 0
for i = 1, #ARGV, 3 do
  local current = redis.call('HGET', KEYS[1], ARGV[i])
  local newer = true
  if current then
    local ok, doc = pcall(cjson.decode, current)
    local stored = nil
    if ok and type(doc) == 'table' and type(doc.metadata) == 'table' then
      stored = tonumber(doc.metadata.resourceVersion)
    end
    local ours = tonumber(ARGV[i + 2])
    newer = stored ~= nil and ours ~= nil and ours > stored
  end
  if newer then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
    written = written + 1
  end
end
return written
"""


class AppliedObjects:
    """Writes applied objects into an app's live cache unless the cache holds a newer copy."""

    def __init__(self, redis: Redis) -> None:
        self._put = redis.register_script(_PUT_NEWER)

    async def put_newer(self, app: AppRef, objects: Sequence[KubeObject]) -> int:
        """Write each object that is newer than the cached copy; how many were written.

        StoreError if an object is over the live cache's size limit (nothing is written).
        """
        args: list[str | bytes] = []
        for obj in objects:
            key = ResourceKey.of(obj)
            what = f"live object {key} of {app.namespace}/{app.name}"
            version = str(metadata(obj).get("resourceVersion") or "")
            # The field is the live cache's: the key as `group/Kind:namespace/name`.
            args += [str(key), dumps(obj, what=what, limit=MAX_OBJECT_BYTES), version]
        if not args:
            return 0
        return int(await self._put(keys=[keys.live(app)], args=args))
