"""The HTTP edge: REST API, event stream, metrics and Git host webhooks, on aiohttp.

What it decides, and why:

- **Who may do what** (`authn.py`, `authz.py`, `auth_state.py`, `access.py`): a bearer
  token is a configured one (`tokens.py`, compared in constant time) or a signed token of
  a local account or project role, still on record; Argo CD's RBAC (`app.engine.rbac`,
  argocd-rbac-cm followed live) decides every request against the object it acts on. An
  object the caller may not get is answered exactly like a missing one. An Application
  or sync written through the API is checked against its AppProject (sources,
  destination, namespaces, kinds) before anything is written, as the sync engine checks
  it later.
- **What a request may look like** (`shapes.py`, `schema.py`, `routes.py`): every route
  declares its query, body and response as dataclasses; the server decodes strictly into
  them (an unknown or ill-typed field is a 400 naming it) and the OpenAPI document
  (`openapi.py`) is generated from the same declarations, so it cannot drift.
- **How failures read** (`errors.py`, `middleware.py`): one place maps every error,
  ours and the layers' below, to a Kubernetes-style `Status` JSON with an actionable,
  redacted message; state-changing requests must be JSON (415: no form posts, no CSRF);
  every request has a deadline.
- **Where state comes from**: reads from the registry and status store in Redis (what
  the pipeline knows), writes to the Application and AppProject resources (the cluster
  is the truth; the watcher mirrors it) and operations through `app.runtime.operations`.
- **What is watched** (`eventlog.py`, `handlers/stream.py`, `metrics.py`): events from
  the NATS events stream as Server-Sent Events resumable by stream sequence; Prometheus
  metrics with gauges computed at scrape time.

Entry points: `server.build_app(runtime, settings)`, `server.ApiServer` (start/stop on a
port, like a worker), `server.build(runtime)` (settings from the environment).
"""
