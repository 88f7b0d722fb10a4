"""`POST /api/v1/repositories/{repo}/appdetails`: a plugin's announced parameters.

A plugin the test writes (found by file name) announces parameters statically and through
a `parameters.dynamic` command that reads the app's build environment; the route answers
Argo CD's `plugin.parametersAnnouncement`, dynamic ones first. It answers only for an
app's own source, to a caller who may get the app.
"""

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from app.runtime.runtime import Runtime
from app.runtime.settings import Settings
from tests.integration.api.server.conftest import TEAM_A, Client, application, auth, seed_app
from tests.support.gitrepo import GitRepo

DYNAMIC = (
    "import json, os; print(json.dumps([{'name': 'replicas', 'title': 'Replicas of ' + "
    "os.environ['ARGOCD_APP_NAME'], 'itemType': 'number', 'string': '2'}, "
    "{'name': 'tags', 'collectionType': 'array', 'array': ['a', 'b']}]))"
)
STATIC = [
    {"name": "replicas", "title": "Replicas", "required": True, "string": "1"},
    {"name": "labels", "collectionType": "map", "map": {"team": "shop"}},
]


def plugin(name: str, dynamic: list[str]) -> dict[str, Any]:
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "ConfigManagementPlugin",
        "metadata": {"name": name},
        "spec": {
            "generate": {"command": ["true"]},
            "discover": {"fileName": f"*.{name}"},
            "parameters": {"static": STATIC, "dynamic": {"command": dynamic}},
        },
    }


@pytest.fixture
def settings(settings: Settings, tmp_path: Path) -> Settings:
    root = tmp_path / "plugins"
    for name, dynamic in (
        ("colour", [sys.executable, "-c", DYNAMIC]),
        ("garbled", ["echo", "not json"]),
    ):
        (root / name).mkdir(parents=True)
        (root / name / "plugin.yaml").write_text(json.dumps(plugin(name, dynamic)))
    return replace(settings, plugins_dir=root)


def details_path(source: dict[str, Any]) -> str:
    return f"/api/v1/repositories/{quote(source['repoURL'], safe='')}/appdetails"


async def test_a_plugin_announces_dynamic_then_static_parameters(
    api: Client, runtime: Runtime, git_repo: GitRepo
) -> None:
    git_repo.commit({"deploy/app.colour": "green", "plain/cm.yaml": "kind: ConfigMap\n"})
    doc = application("shop")
    source = doc["spec"]["source"] = {"repoURL": git_repo.url, "path": "deploy"}
    await seed_app(runtime, doc)
    body = {"source": source, "appName": "shop", "appProject": "default"}

    answer = await api.post(details_path(source), json=body, headers=auth())

    assert answer.status == 200, await answer.text()
    found = await answer.json()
    assert found["type"] == "Plugin"
    announced = [
        {k: v for k, v in p.items() if v not in (None, "", False)}
        for p in found["plugin"]["parametersAnnouncement"]
    ]
    assert announced == [
        {"name": "replicas", "title": "Replicas of shop", "itemType": "number", "string": "2"},
        {"name": "tags", "collectionType": "array", "array": ["a", "b"]},
        {"name": "replicas", "title": "Replicas", "required": True, "string": "1"},
        {"name": "labels", "collectionType": "map", "map": {"team": "shop"}},
    ]

    other = {"repoURL": git_repo.url, "path": "plain"}
    not_its_own = await api.post(
        details_path(other), json={**body, "source": other}, headers=auth()
    )
    assert not_its_own.status == 400
    assert "not the source at sourceIndex 0" in (await not_its_own.json())["message"]
    no_entry = await api.post(details_path(source), json={**body, "versionId": 7}, headers=auth())
    assert no_entry.status == 400 and "history entry 7" in (await no_entry.json())["message"]
    hidden = await api.post(details_path(source), json=body, headers=auth(TEAM_A))
    assert hidden.status == 404
    nameless = await api.post(details_path(source), json={"source": source}, headers=auth())
    assert nameless.status == 400 and "appName" in (await nameless.json())["message"]


async def test_other_sources_answer_their_type_and_bad_output_names_the_plugin(
    api: Client, runtime: Runtime, git_repo: GitRepo
) -> None:
    git_repo.commit({"plain/cm.yaml": "kind: ConfigMap\n", "odd/app.garbled": "x"})
    plain = application("plain")
    plain["spec"]["source"] = {"repoURL": git_repo.url, "path": "plain"}
    odd = application("odd")
    odd["spec"]["source"] = {"repoURL": git_repo.url, "path": "odd"}
    for doc in (plain, odd):
        await seed_app(runtime, doc)

    directory = await api.post(
        details_path(plain["spec"]["source"]),
        json={"source": plain["spec"]["source"], "appName": "sluice/plain"},
        headers=auth(),
    )
    assert directory.status == 200, await directory.text()
    assert await directory.json() == {"type": "Directory", "plugin": None}

    garbled = await api.post(
        details_path(odd["spec"]["source"]),
        json={"source": odd["spec"]["source"], "appName": "odd"},
        headers=auth(),
    )
    assert garbled.status == 400
    message = (await garbled.json())["message"]
    assert "plugin 'garbled' parameters.dynamic output: not JSON" in message
