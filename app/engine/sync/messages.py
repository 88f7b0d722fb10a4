"""The operation messages a user reads, worded exactly as Argo CD words them, and the
rule every message recorded in a result passes: credentials masked, length bounded."""

from app.engine.redact import redact_text

NOT_VALID = "one or more synchronization tasks are not valid"
DRY_RUN_FAILED = "one or more objects failed to apply (dry run)"
FAILED_TO_APPLY = "one or more objects failed to apply"
COMPLETED_UNSUCCESSFULLY = "one or more synchronization tasks completed unsuccessfully"
SYNC_FAIL_HOOKS_FAILED = "one or more SyncFail hooks failed"
NAMESPACE_FAILED = "the namespace failed to apply"
NO_MORE_TASKS = "successfully synced (no more tasks)"
ALL_TASKS_RUN = "successfully synced (all tasks run)"
TERMINATED = "Operation terminated"
TERMINATION_ERRORS = "Operation termination had errors"
RUNNING = "one or more tasks are running"
TERMINATING = "operation is terminating"
APP_GONE = "the Application no longer exists; its operation was abandoned"

_CUT = " ...(truncated)"
MAX_MESSAGE = 2000
"""Longest task message kept; a server's error body can be far longer."""


def shown(message: str) -> str:
    """A message fit for status: credentials masked, at most MAX_MESSAGE characters."""
    text = redact_text(message)
    if len(text) > MAX_MESSAGE:
        text = text[: MAX_MESSAGE - len(_CUT)] + _CUT
    return text
