"""What can go wrong on the bus, and the two verdicts a handler may return by raising."""


class BusError(RuntimeError):
    """NATS is unreachable, too old, misconfigured, or refused a request; the text says why."""


class ServerTooOld(BusError):
    """The NATS server predates a feature Sluice needs (message schedules: 2.12)."""


class MessageError(ValueError):
    """A message that cannot be encoded or decoded: malformed, unknown version, too big."""


class Retry(Exception):
    """Raised by a handler: the work could not be done now; redeliver after `delay` seconds."""

    def __init__(self, reason: str, delay: float = 1.0) -> None:
        super().__init__(reason)
        self.reason = reason
        self.delay = delay


class Poison(Exception):
    """Raised by a handler: this message can never succeed; terminate it (no redelivery)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
