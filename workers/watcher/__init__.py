"""The cluster watcher's parts: `workers/watcher/worker.py` puts them together.

The watcher is the pipeline's eyes. It decides nothing about sync or health itself (the
engine does: `refresh_triggers`, `instance_names`, `cascade`, `deletion_hooks`,
`resource_tree`, `app_conditions`, `health`, `tracking`); it keeps the state other stages
read current and tells them when to look again:

- `leadership`: one replica leads each cluster (a Redis lease, renewed; a standby takes
  over when the leader stops or dies); the others wait.
- `control_plane`: LIST+WATCH of Applications and AppProjects: mirrored into the app
  registry, refreshes for new apps, spec edits and the refresh annotation, the `operation`
  field handed to the sync stage, InvalidSpecError for what does not parse, timers
  cancelled for deleted apps; `deletion` runs an app's deletion hooks and deletes its
  resources before each finalizer comes off; every write to an Application (guarded
  JSON patches, conditions) goes through `app.runtime.app_patches`.
- `directory`: the registered apps this leader knows and the name their objects carry.
- `cluster_watch`: LIST+WATCH of every listable type of one destination cluster (CRDs
  appearing are followed), kept in an in-memory `index` (uid, owners, owning app).
- `flusher`: what changed goes out in batches: live objects into the live cache (one
  pipeline per batch; a complete `replace` once an app's lists are in), at most one
  refresh (and sync wake-up) per app per short window, resource trees at most every
  short interval.
- `settings`: the watcher's tunables; `cancellation`: stopping loops whose cancellation
  Python 3.11's `asyncio.wait_for` swallowed.
"""
