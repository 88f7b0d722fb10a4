"""The bus side of the webhook: refresh requests published on JetStream, failing fast when down."""

from app.bus.connection import Bus
from app.bus.errors import BusError
from app.bus.messages import REFRESH, RefreshRequest
from app.bus.publish import publish


class BusPublisher:
    """A `RefreshPublisher` on a NATS connection.

    A disconnected client would buffer the publish and wait out the acknowledgement
    deadline; refusing at once lets the Git host hear 503 while it is still listening.
    """

    def __init__(self, bus: Bus) -> None:
        self.bus = bus

    async def __call__(self, request: RefreshRequest) -> None:
        if not self.bus.client.is_connected:
            raise BusError(f"not connected to NATS; cannot publish the refresh of {request.app}")
        await publish(self.bus, REFRESH, request)
