"""The engine: every decision of Argo CD's sync pipeline, as pure functions.

Nothing here performs I/O (an import-linter contract keeps it so): workers hand the
engine what they read (an Application, rendered manifests, live objects, the stored
operation) and act on what it returns. Every decision carries its reason as data, the
text a user will see in a condition, an event or a log line; the worker that asked logs
it. The engine logs only one-off notices about configuration: which health
customizations were loaded, and a Lua health check that fails (once per distinct failure).

- `manifests`: bounded multi-document YAML/JSON loading (alias bombs, sizes, duplicates).
- `tracking`: which live objects belong to an app (tracking-id annotation, label).
- `normalize`, `ignore`, `diff`: canonical forms, ignoreDifferences, the three-way diff.
- `merge`: Kubernetes merge semantics (strategic merge, merge patch, managedFields, SSA).
- `health`: per-kind health, Lua customizations, app aggregation.
- `compare`: one app's comparison: per-resource status, app sync status, conditions.
- `exclusions`, `system_settings`: which kinds Sluice manages at all, and the system-wide
  settings of Argo CD's `argocd-cm` (tracking, health checks, ignore rules, exclusions).
- `project`: what an AppProject allows.
- `sync`: sync options, planning (phases, waves, hooks, prune) and the step machine.
- `autosync`, `backoff`, `levels`, `history`: the automated-sync decision, self-heal and
  retry timing, comparison levels and resync jitter, operation history and rollback.
- `appstatus`, `writeback`: the status a comparison writes, the events its transitions
  deserve, and which fields go back onto the Application resource (and when).
- `instance_names`, `refresh_triggers`, `app_conditions`, `cascade`, `resource_tree`:
  what the cluster watcher decides (the name an app's objects carry, which change asks for
  which refresh level, InvalidSpecError, cascade deletion, the resource tree).
- `source_plan`, `polling`: which sources render at which revision; when a poll moved.
- `redact`: the one place credentials and Secret values are masked.
"""
