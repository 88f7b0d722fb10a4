"""When an app is compared again on its own, and how hard (argocd-cm `timeout.*`).

Argo CD's controller re-reads every app every `timeout.reconciliation` (default 120 s)
plus a random `timeout.reconciliation.jitter` (default 60 s), at `latest` (the target
revision resolved, cached manifests used), and every `timeout.hard.reconciliation`
(default 0: never) at `force`, the manifests rendered afresh. 0 turns either off.

Sluice keeps one resync timer per app: after each comparison `next_resync` says when it
fires and at which level. The hard period is measured from the app's last `force`
comparison (any `force`, a user's hard refresh too), kept in the compare marks; when the
marks do not know one, from the comparison that found them empty. A soft resync falling
after the hard one is due is replaced by the hard one, so the hard period holds however
often the app is compared.

Where the values come from (`timing_from`): an environment variable that was set wins
(`SLUICE_RESYNC_SECONDS`, `SLUICE_RESYNC_JITTER_SECONDS`, `SLUICE_HARD_RESYNC_SECONDS`),
then argocd-cm, then the defaults.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from app.model.sync import RefreshLevel

SOFT_REASON = "resync"
HARD_REASON = "hard resync (timeout.hard.reconciliation)"


@dataclass(frozen=True, slots=True)
class ResyncTiming:
    """The three periods in seconds; 0 turns one off."""

    period: float = 120.0
    """`timeout.reconciliation`: seconds between two `latest` comparisons (default 120)."""
    jitter: float = 60.0
    """`timeout.reconciliation.jitter`: up to this many seconds added at random (default 60)."""
    hard_period: float = 0.0
    """`timeout.hard.reconciliation`: seconds between two `force` comparisons (default 0)."""


@dataclass(frozen=True, slots=True)
class Resync:
    """The next periodic comparison of an app."""

    delay: float
    """Seconds from now."""
    level: RefreshLevel
    reason: str


def hard_base(level: RefreshLevel, now: float, last: float, hard_period: float) -> float:
    """What the hard period is measured from after a comparison at `level` (unix seconds;
    `last` is the stored base, 0 when unknown); 0 while hard resyncs are off."""
    if hard_period <= 0:
        return 0.0
    if level >= RefreshLevel.FORCE or last <= 0 or last > now:
        return now
    return last


def next_resync(
    timing: ResyncTiming, now: float, base: float, random: Callable[[], float]
) -> Resync | None:
    """The next resync after a comparison at unix time `now`, the hard period measured
    from `base` (`hard_base`); None when both periods are off."""
    soft = None
    if timing.period > 0:
        soft = Resync(
            timing.period + max(timing.jitter, 0.0) * random(), RefreshLevel.LATEST, SOFT_REASON
        )
    if timing.hard_period <= 0:
        return soft
    hard = Resync(max(0.0, base + timing.hard_period - now), RefreshLevel.FORCE, HARD_REASON)
    return hard if soft is None or hard.delay <= soft.delay else soft


def timing_from(
    configured: Mapping[str, float], environment: ResyncTiming, overridden: frozenset[str]
) -> ResyncTiming:
    """Each period (a ResyncTiming field name): the environment's if its variable was set
    (`overridden`), else argocd-cm's (`configured`, the fields the map sets), else the
    environment's (its default)."""

    def pick(name: str) -> float:
        value: float = getattr(environment, name)
        if name not in overridden and name in configured:
            value = configured[name]
        return value

    return ResyncTiming(pick("period"), pick("jitter"), pick("hard_period"))
