"""The object API: what a create, update, patch or delete does, whoever asks.

HTTP handlers and the simulated controllers call the same functions, so a controller's
write goes through exactly the checks, defaults, resourceVersion, generation and
managedFields rules a kubectl write does, and is seen by every watch. Writes are
synchronous and run on the event loop one at a time: each is atomic with respect to
every other, without locks.

- `server.ApiServer`: the state (registry, store) plus reads and the commit of a write.
- `writes`: create, update (main resource or status).
- `patches`: the four PATCH types, server-side apply included.
- `deletes`: delete with preconditions, finalizers and propagation policy.
"""
