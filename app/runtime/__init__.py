"""The services one Sluice process shares: every worker and the API stand on them.

- `runtime`: `Runtime.open(settings)`, the process's connections and stores.
- `settings`: `Settings` and its groups (NATS, Redis, control plane, timings, state dir).
- `clusters`: `ClusterRegistry`, the destination clusters this process knows;
  `cluster_secrets` follows Argo CD's cluster Secrets into it.
- `system_settings`: `SystemSettingsSource`, Argo CD's `argocd-cm` followed while running.
- `repo_secrets`: `RepositorySecretsSource`, Argo CD's repository Secrets, repo-creds
  templates and the known-hosts / TLS-certs ConfigMaps followed into `Runtime.repos`.
- `operations`: `start_operation` and `request_termination`, whoever asks (auto-sync, the
  API, the watcher).
- `stage`: `Stage`, a durable consumer whose handler runs once per app at a time.
- `worker`: the `Worker` protocol every stage in `workers/` implements.
- `manifests`: the manifests read path (revisions resolved, rendered, cached) shared by
  the render and sync stages and the watcher's deletion hooks.
- `app_patches`: guarded writes to an Application resource (refresh annotation,
  `operation` field, finalizers, conditions), shared by the watcher and compare.

It imports the edges (`app.bus`, `app.store`, `app.cluster`, `app.repo`) and the engine;
never `workers/` or `app.api`.
"""
