"""Redis: the state the pipeline shares, cached for fast reads and atomic decisions.

Redis is a cache and a coordinator, never the truth: losing it costs a rebuild (from
Git, the cluster and the Application resources), never a wrong decision. So every
reader can tell "absent or unreadable" from "known", and every rule that must hold
across replicas is one atomic step (a Lua script or a MULTI), never a read-then-write:

- `keys.py`: every key, on one screen.
- `apps.py`: the app registry (Applications and AppProjects as the watcher mirrors them,
  and why an Application that stopped parsing is invalid).
- `status.py`: comparison results, written only forward: a comparison that began
  earlier never overwrites one that began later (`begin_comparison` hands out the order).
- `operations.py`: the sync operation, one at a time per app, advanced step by step by
  compare-and-set, so a replayed step is refused instead of applied twice.
- `history.py`, `tree.py`: deployment history (newest N) and the resource tree.
- `manifests.py`: rendered manifests by (repo, commit, source spec), with a TTL and a
  digest checked on every read: an entry that does not verify is a miss.
- `livecache.py`: the watcher's live objects per app, with a warm marker: a cold cache
  is never mistaken for an empty app (nothing is pruned from a cache still warming up);
  `applied.py` writes what a sync applied, never over a newer copy.
- `refs.py`: a repository's ls-remote listing for a few seconds (one per repo, not per app).
- `compare_marks.py`: what the compare stage remembers between runs (repository error
  start, the last auto-sync reason, the last status write-back).
- `leases.py`, `coalescing.py`: exclusive leases, and on top of them "one handler per
  (stage, app) at a time; what arrives meanwhile collapses into one follow-up run".

Values are JSON (model types through `app.model.codec`), each with a size limit.
"""
