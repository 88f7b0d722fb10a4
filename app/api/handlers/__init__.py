"""The API's handlers, one module per resource; each module exports its `ROUTES`.

Handlers are thin: they receive a decoded `Call`, check access (`app.api.access`), read
the stores or write through the cluster and the bus, and return a shape from
`app.api.shapes`. Decisions belong to the engine (compare, rollback, project rules) and to
the workers (operations). `writes` is the one that is not a resource: what of an
Application or AppProject body is written, shared by both.
"""
