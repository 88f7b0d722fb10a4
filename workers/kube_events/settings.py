"""Tunables of the events worker; every field says what it changes and its default."""

from dataclasses import dataclass, field

from app.engine.event_budget import EventBudgetSettings


@dataclass(frozen=True, slots=True)
class KubeEventSettings:
    budget: EventBudgetSettings = field(default_factory=EventBudgetSettings)
    """How many Events per app and in total this process may write (see the module)."""
    concurrency: int = 8
    """Events written at once in this process."""
    retry_delay: float = 2.0
    """Seconds before an event whose write the API server refused is tried again."""
    max_attempts: int = 5
    """Writes of one Event tried at most; then it is given up, logged."""
