"""Webhook-to-synced latency: commit, a signed GitHub push webhook, then Synced + Healthy.

Like `pipeline_latency`, with the REST API running and a GitHub webhook secret set: each
round commits a release of the 20-resource app, starts the clock and POSTs a GitHub
`push` event for it to `/api/webhook`, signed with `X-Hub-Signature-256` as GitHub signs
it; the API checks the signature, matches the app, forgets the repository's cached
listing and publishes a `latest` refresh. The clock stops when the status store shows the
app Synced + Healthy at the new commit. p50 and p95 over the rounds, after one warm-up.
"""

import hashlib
import hmac
import json
import os
import secrets
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

import aiohttp

from bench.support.latency import LatencyRun, latency_main

SIGNING_VARIABLE = "SLUICE_WEBHOOK_GITHUB_SECRET"
REQUEST_TIMEOUT = aiohttp.ClientTimeout(total=10)


def push_event(repo_url: str, before: str, after: str, changed: str) -> dict[str, Any]:
    """A GitHub push event to `main` of `repo_url`, shaped as GitHub documents it."""
    return {
        "ref": "refs/heads/main",
        "before": before,
        "after": after,
        "created": False,
        "deleted": False,
        "forced": False,
        "repository": {
            "name": "bench",
            "full_name": "sluice/bench",
            "html_url": repo_url,
            "clone_url": repo_url,
            "default_branch": "main",
        },
        "pusher": {"name": "bench", "email": "bench@sluice.invalid"},
        "commits": [
            {"id": after, "message": "release", "added": [], "removed": [], "modified": [changed]}
        ],
        "head_commit": {"id": after, "added": [], "removed": [], "modified": [changed]},
    }


async def run(resources: int, runs: int) -> tuple[list[float], list[float]]:
    secret = secrets.token_hex(32)
    os.environ[SIGNING_VARIABLE] = secret
    with tempfile.TemporaryDirectory(prefix="sluice-bench-") as tmp:
        async with (
            LatencyRun.open(Path(tmp), resources, api=True) as bench,
            aiohttp.ClientSession(timeout=REQUEST_TIMEOUT) as http,
        ):
            assert bench.stack.api is not None
            url = f"{bench.stack.api.url}/api/webhook"
            previous = bench.workload.head

            async def post(sha: str) -> None:
                nonlocal previous
                changed = f"{bench.app.name}/manifests.yaml"
                event = push_event(bench.workload.url, previous, sha, changed)
                body = json.dumps(event).encode()
                signature = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
                headers = {
                    "Content-Type": "application/json",
                    "X-GitHub-Event": "push",
                    "X-GitHub-Delivery": str(uuid.uuid4()),
                    "X-Hub-Signature-256": f"sha256={signature}",
                }
                async with http.post(url, data=body, headers=headers) as response:
                    answer = await response.json()
                if response.status != 200 or answer.get("matched") != 1:
                    raise RuntimeError(
                        f"the webhook for {sha[:7]} was answered {response.status} {answer}"
                    )
                previous = sha

            return await bench.measure(runs, post), await bench.floor(runs)


def main(argv: list[str]) -> int:
    return latency_main(
        "webhook_latency",
        argv,
        run,
        description=__doc__,
        title="commit -> signed GitHub push webhook -> Synced + Healthy at the commit",
        setup="embedded stack and REST API in one process, local cluster controller delay 0",
        baseline="pipeline_latency (the same push noticed by the poller) on the same machine",
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
