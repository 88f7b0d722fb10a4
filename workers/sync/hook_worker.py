"""The hook worker: performs the steps of an operation that create, delete or release hooks.

The sync worker persists a step whose actions touch hooks (a hook's apply, a
BeforeHookCreation or delete-policy deletion, the hook finalizer's removal, a
termination) and hands it over with HookRequest(operation, step). Subscribe (HOOK, one
handler per app at a time across replicas, the highest step wins), decode, and run the
operation loop (`workers.sync.loop`) in the hook role: perform the whole step
(`workers.sync.executor`), record the results, persist (compare-and-set), report hook phase
changes, and follow on (the next SyncStep, a WAIT or RETRY timer, or the end of the
operation); a request that came again after its step was performed repeats only the
follow-up, which is idempotent.

Hook objects have deterministic names (`generateName` hooks are named from the
operation), so performing a step twice applies the same hook twice and never creates a
second one: no hook runs twice.
"""

from app.bus.messages import HOOK, HookRequest
from app.engine.sync.turns import Role
from app.runtime.runtime import Runtime
from workers.sync.stepping import StepWorker


class HookWorker(StepWorker[HookRequest]):
    """Consumes HookRequest messages; see the module docstring."""

    name = "hooks"
    channel = HOOK
    role = Role.HOOKS


def build(runtime: Runtime) -> HookWorker:
    return HookWorker(runtime)
