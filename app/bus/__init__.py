"""NATS JetStream: the transport between Sluice's stages.

Every stage is a durable pull consumer on the work-queue stream `SLUICE_WORK`; a message
is one unit of work for one app, removed when acknowledged. This package decides the
wire layout (`subjects.py`, one screen), how streams and consumers are created
(`topology.py`, idempotent, refusing servers older than 2.12), what a message looks like
(`messages.py`: versioned JSON with a size limit; a malformed one is terminated, never
retried or crashed on), how work is published (`publish.py`, de-duplicated by
`Nats-Msg-Id` where a repeat is a replay), how work waits (`schedules.py`: NATS message
schedules, one pending timer per (purpose, app), so a newer timer replaces the older),
how it is consumed (`consumer.py`: bounded concurrency, heartbeats, ack, nak with delay,
term on poison, graceful drain) and how the audit trail is written and replayed
(`events.py`, CloudEvents 1.0 on `SLUICE_EVENTS`).

"One handler per (stage, app) at a time, with coalescing" needs shared state that
outlives a delivery; it lives in Redis (`app.store.coalescing`), and a worker wraps its
handler with it.
"""
