"""The sync worker: advances an app's operation step by step, from SyncStep messages.

Subscribe (SYNC, one handler per app at a time across replicas, the highest step wins
when messages coalesce), decode, and run the operation loop (`workers.sync.loop`) in
the sync role: plan an operation on its first step, take each next step (observe, ask
the engine, persist, act), perform the steps without hook actions and hand the others to
the hook worker, terminate when asked, finish the ended operation. A step the engine
says to take at once (Continue) is taken in the same handler, each one persisted before
the next, so a first sync of a plain app (plan, dry run, apply, finish) costs one
message, not five.

No rule of Argo CD's lives here: what a message calls for, which actions, in which
order, and what follows are the engine's decisions (`app.engine.sync`).
"""

from app.bus.messages import SYNC, SyncStep
from app.engine.sync.turns import Role
from app.runtime.runtime import Runtime
from workers.sync.stepping import StepWorker


class SyncWorker(StepWorker[SyncStep]):
    """Consumes SyncStep messages; see the module docstring."""

    name = "sync"
    channel = SYNC
    role = Role.SYNC
    inline = True


def build(runtime: Runtime) -> SyncWorker:
    return SyncWorker(runtime)
