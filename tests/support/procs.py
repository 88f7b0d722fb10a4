"""Child processes that outlive a single test on purpose (session-wide servers).

The leak check in `tests/conftest.py` fails a test that leaves a child process behind,
except the ones registered here by session fixtures.
"""

import psutil

ALLOWED: set[int] = set()


def allow(pid: int) -> None:
    """Let a session fixture's process (and its children) outlive the test that started it."""
    ALLOWED.add(pid)


def children() -> set[int]:
    """Our descendant processes that are alive, minus the allowed ones and their children."""
    me = psutil.Process()
    alive: set[int] = set()
    allowed_tree: set[int] = set()
    for pid in ALLOWED:
        try:
            proc = psutil.Process(pid)
            allowed_tree.add(pid)
            allowed_tree.update(c.pid for c in proc.children(recursive=True))
        except psutil.NoSuchProcess:
            continue
    for child in me.children(recursive=True):
        try:
            if child.status() != psutil.STATUS_ZOMBIE:
                alive.add(child.pid)
        except psutil.NoSuchProcess:
            continue
    return alive - allowed_tree
