"""What every worker module provides: `build(runtime) -> Worker`."""

from typing import Protocol


class Worker(Protocol):
    """A pipeline stage: started once, stopped once (draining what it is doing)."""

    @property
    def name(self) -> str:
        """The worker's name, as `sluice worker <name>` spells it."""
        ...

    async def start(self) -> None: ...

    async def stop(self) -> None: ...
