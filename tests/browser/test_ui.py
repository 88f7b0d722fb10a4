"""The web UI against a real `sluice up`, in headless Chromium.

One `sluice up` serves the whole module (its two example apps, guestbook and waves);
each test opens its own signed-in page. Waiting is Playwright's: every `expect` polls
the page until it holds or its deadline passes; nothing here sleeps.
"""

import base64
import json
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from app import examples
from tests.browser.conftest import Up
from tests.support.gitrepo import GitRepo, manifests
from tests.support.waiting import until

pytestmark = pytest.mark.slow

LIVE = 30_000
"""Milliseconds the page may take to show what the pipeline did."""


def open_app(page: Page, up: Up, name: str, tab: str = "tree") -> None:
    page.goto(f"{up.url}/#/applications/sluice/{name}/{tab}")
    expect(page.locator("h1", has_text=name)).to_be_visible()


def auto_sync_off(page: Page) -> None:
    toggle = page.get_by_role("button", name="Disable auto-sync")
    toggle.click()
    expect(page.get_by_role("button", name="Enable auto-sync")).to_be_visible(timeout=LIVE)


def test_sign_in_shows_every_example_synced_and_healthy(
    browser: Browser, sluice_up: Up, shots: Path
) -> None:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    try:
        page.goto(sluice_up.url + "/")
        page.get_by_label("API token").fill(sluice_up.token)
        page.get_by_role("button", name="Sign in").click()
        for name in examples.APPS:
            tile = page.locator(f"[data-app='sluice/{name}']")
            expect(tile.locator(".badge[data-kind=sync]")).to_have_text(re.compile("Synced"))
            expect(tile.locator(".badge[data-kind=health]")).to_have_text(re.compile("Healthy"))
        count = len(examples.APPS)
        expect(page.locator(".summary").first).to_contain_text(f"{count} of {count} applications")
        assert sluice_up.token not in page.url
        cookie = next(c for c in context.cookies() if c["name"] == "sluice_session")
        assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
        assert page.evaluate("document.cookie") == "", "no script can read the token"
        page.screenshot(path=str(shots / "list.png"))
        page.get_by_role("button", name="Table").click()
        row = page.locator("table.apps tr[data-app='sluice/guestbook']")
        expect(row).to_contain_text("Synced")
        cells = row.locator("td")
        expect(cells.nth(0)).to_have_text("default")
        expect(cells.nth(3)).to_contain_text("examples guestbook")
        expect(cells.nth(4)).to_have_text("HEAD")
        expect(cells.nth(5)).to_have_text(re.compile(r"^[0-9a-f]{7}$"))
        expect(cells.nth(7)).to_contain_text(re.compile(r"Succeeded.* \d+[smhd] ago"))
        page.get_by_label("Search applications").fill("wav")
        expect(page.locator("table.apps tbody tr")).to_have_count(1)
        expect(page.locator("table.apps tbody tr")).to_contain_text("waves")
    finally:
        context.close()


def test_the_tree_shows_the_deployment_replicaset_and_pods(
    page: Page, sluice_up: Up, shots: Path
) -> None:
    open_app(page, sluice_up, "guestbook")
    for kind in ("Deployment", "ReplicaSet", "Pod", "Service"):
        expect(page.locator(f".graph .node[data-kind={kind}]").first).to_be_visible(timeout=LIVE)
    expect(page.locator(".graph .node[data-kind=Pod] .badge[data-kind=health]").first).to_have_text(
        re.compile("Healthy")
    )
    page.screenshot(path=str(shots / "tree.png"))
    page.get_by_label("Kind").select_option("Pod")
    expect(page.locator(".graph .node[data-kind=Service]")).to_have_count(0)
    expect(page.locator(".graph .node[data-kind=Pod]").first).to_be_visible()
    page.locator(".graph .node[data-kind=Pod]").first.click()
    page.get_by_role("tab", name="Live manifest").click()
    expect(page.locator("dialog pre.manifest")).to_contain_text("kind: Pod")


def test_waves_tree_shows_hooks_with_their_phase_and_wave(page: Page, sluice_up: Up) -> None:
    open_app(page, sluice_up, "waves")
    hook = page.locator(".graph .node.hook").first
    expect(hook).to_contain_text(re.compile(r"(PreSync|PostSync) hook · Succeeded"), timeout=LIVE)
    expect(page.locator(".graph .node[data-kind=ConfigMap]")).to_contain_text("wave -1")


def test_drift_shows_live_then_the_diff_then_sync_brings_it_back(
    page: Page, sluice_up: Up, shots: Path
) -> None:
    open_app(page, sluice_up, "guestbook")
    auto_sync_off(page)
    sluice_up.kubectl(
        "patch", "deployment", "guestbook-ui", "-n", "guestbook", "--type", "merge",
        "-p", json.dumps({"spec": {"replicas": 3}}),
    )  # fmt: skip
    expect(page.locator(".app-header .badge[data-kind=sync]")).to_have_text(
        re.compile("OutOfSync"), timeout=LIVE
    )
    page.get_by_role("link", name="Diff").click()
    block = page.locator(".resource-diff[data-resource='Deployment/guestbook-ui']")
    expect(block.locator("pre.diff .del")).to_contain_text(["replicas: 3"])
    expect(block.locator("pre.diff .add")).to_contain_text(["replicas: 2"])
    page.screenshot(path=str(shots / "diff.png"))
    block.get_by_role("button", name="Side by side").click()
    expect(block.locator("table.diff tr.replace")).to_contain_text(["replicas: 3"])
    page.get_by_role("button", name="Sync", exact=True).click()
    dialog = page.locator("dialog[open]")
    expect(dialog.get_by_label("Prune", exact=True)).to_be_visible()
    expect(dialog.get_by_label("Dry run", exact=True)).to_be_visible()
    expect(dialog.get_by_label("Apply only out of sync", exact=True)).to_be_visible()
    expect(dialog.get_by_label("Force", exact=True)).to_be_visible()
    expect(dialog.get_by_label("Revision", exact=True)).to_be_visible()
    dialog.get_by_text("Deployment/guestbook-ui").click()
    page.screenshot(path=str(shots / "sync-dialog.png"))
    dialog.get_by_role("button", name="Synchronize").click()
    expect(page.locator(".app-header .badge[data-kind=operation]")).to_have_text(
        re.compile("Succeeded"), timeout=LIVE
    )
    expect(page.locator(".operation table.results")).to_contain_text("guestbook-ui")
    expect(page.locator(".app-header .badge[data-kind=sync]")).to_have_text(
        re.compile("Synced"), timeout=LIVE
    )
    replicas = sluice_up.kubectl(
        "get", "deployment", "guestbook-ui", "-n", "guestbook", "-o", "jsonpath={.spec.replicas}"
    )
    assert replicas == "2", "the sync put the Deployment back as Git declares it"


def test_rollback_from_history(page: Page, sluice_up: Up) -> None:
    open_app(page, sluice_up, "waves", "history")
    rows = page.locator("table.history tbody tr")
    expect(rows).to_have_count(1, timeout=LIVE)
    commit = page.locator("table.history td.commit").first
    expect(commit).to_contain_text("Example apps for sluice up", timeout=LIVE)
    page.locator("button[data-history='0']").click()
    page.locator("dialog[open]").get_by_role("button", name="Roll back").click()
    expect(page.locator("dialog[open] .error")).to_contain_text("auto", timeout=LIVE)
    page.keyboard.press("Escape")
    auto_sync_off(page)
    page.locator("button[data-history='0']").click()
    page.locator("dialog[open]").get_by_role("button", name="Roll back").click()
    expect(page.locator(".toasts")).to_contain_text("rollback to history entry 0")
    expect(rows).to_have_count(2, timeout=LIVE)
    expect(page.locator(".app-header .badge[data-kind=operation]")).to_have_text(
        re.compile("Succeeded"), timeout=LIVE
    )


def test_html_and_script_in_names_and_messages_render_as_text(page: Page, sluice_up: Up) -> None:
    script = "<script>window.__owned = 1</script>"
    body = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {
            "name": "html-app",
            "labels": {"team": "web"},
            "annotations": {"note": "<img src=x onerror=alert(1)>"},
        },
        "spec": {
            "project": "default",
            "source": {
                "repoURL": "file:///nowhere/<b>repo</b>",
                "path": script,
                "targetRevision": "HEAD",
            },
            "destination": {"server": "https://kubernetes.default.svc", "namespace": "html"},
        },
    }
    created = page.request.post(f"{sluice_up.url}/api/v1/applications", data=body)
    assert created.ok, created.text()
    open_app(page, sluice_up, "html-app")
    conditions = page.locator(".conditions")
    expect(conditions).to_contain_text("<b>repo</b>", timeout=LIVE)
    expect(page.locator(".summary .source")).to_contain_text(script)
    assert page.evaluate("window.__owned") is None
    assert page.locator(".app-page b, .app-page img, .app-page script").count() == 0
    page.goto(f"{sluice_up.url}/#/applications")
    tile = page.locator("[data-app='sluice/html-app']")
    expect(tile).to_contain_text("<b>repo</b>")
    assert tile.locator("a").count() == 1, "a file:// repository is not a link"
    assert page.evaluate("window.__owned") is None


FOCUSED = """() => {
    const el = document.activeElement;
    if (!el) return "nothing";
    const name = el.getAttribute("data-focus") || (el.textContent || "").trim().slice(0, 24);
    return `${el.tagName.toLowerCase()} ${name}`;
}"""
"""What has keyboard focus, for a failure message: tag and data-focus (or text)."""


TABBABLE = """() => document.querySelectorAll(
    'a[href], button:not([disabled]), input:not([disabled]), select, textarea, [tabindex]'
).length"""
"""How many elements Tab may stop at: one full round of them visits each."""


def _tab_to(page: Page, target: Locator, what: str) -> None:
    """Press Tab until `target` has focus, for at most one full round of the page (from
    wherever focus starts, the browser's own stops included); fail with where focus went."""
    path = [page.evaluate(FOCUSED)]
    for _ in range(page.evaluate(TABBABLE) + 3):
        if target.evaluate("el => el === document.activeElement"):
            return
        page.keyboard.press("Tab")
        path.append(page.evaluate(FOCUSED))
    pytest.fail(f"Tab never reached {what}; focus went: {' → '.join(path)}")


def test_every_action_is_reachable_with_the_keyboard(page: Page, sluice_up: Up) -> None:
    page.goto(f"{sluice_up.url}/#/applications")
    link = page.locator("[data-app='sluice/guestbook'] h3 a")
    expect(link).to_be_visible(timeout=LIVE)
    _tab_to(page, link, "the guestbook tile")
    page.keyboard.press("Enter")
    sync = page.get_by_role("button", name="Sync", exact=True)
    expect(sync).to_be_visible()
    _tab_to(page, sync, "the Sync button")
    page.keyboard.press("Enter")
    expect(page.locator("dialog[open]")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("dialog[open]")).to_have_count(0)
    node = page.locator(".graph .node[data-kind=Deployment]")
    expect(node).to_be_visible(timeout=LIVE)
    _tab_to(page, node, "the Deployment node")
    page.keyboard.press("Enter")
    expect(page.locator("dialog[open]")).to_contain_text("Deployment guestbook-ui")
    page.keyboard.press("ArrowRight")
    expect(page.get_by_role("tab", name="Live manifest")).to_have_attribute("aria-selected", "true")
    page.keyboard.press("Escape")
    for status in page.locator(".app-header .badge").all():
        assert status.locator(".label").inner_text().strip(), "every status has its text"


def test_refresh_then_delete_with_the_typed_name(page: Page, sluice_up: Up) -> None:
    body = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": "doomed"},
        "spec": {
            "project": "default",
            "source": {"repoURL": "file:///nowhere", "path": "p"},
            "destination": {"server": "https://kubernetes.default.svc", "namespace": "doomed"},
        },
    }
    assert page.request.post(f"{sluice_up.url}/api/v1/applications", data=body).ok
    open_app(page, sluice_up, "doomed")
    page.get_by_role("button", name="Hard refresh").click()
    expect(page.locator(".toasts")).to_contain_text("hard refresh of sluice/doomed requested")
    page.get_by_role("button", name="Delete").click()
    dialog = page.locator("dialog[open]")
    expect(dialog.get_by_label("Delete its resources too (cascade)")).to_be_checked()
    dialog.get_by_label("Type doomed to confirm").fill("doome")
    dialog.get_by_role("button", name="Delete").click()
    expect(dialog.locator(".error")).to_contain_text("to confirm")
    dialog.get_by_label("Delete its resources too (cascade)").uncheck()
    dialog.get_by_label("Type doomed to confirm").fill("doomed")
    dialog.get_by_role("button", name="Delete").click()
    expect(page.locator(".toasts")).to_contain_text("leaving its resources in place")
    expect(page.get_by_role("heading", name="Applications")).to_be_visible()
    expect(page.locator("[data-app='sluice/doomed']")).to_have_count(0, timeout=LIVE)
    until(
        lambda: page.request.get(f"{sluice_up.url}/api/v1/applications/doomed").status == 404,
        timeout=LIVE / 1000,
        what="the deleted app's GET to answer 404",
    )


def test_projects_and_the_live_event_stream(page: Page, sluice_up: Up) -> None:
    page.goto(f"{sluice_up.url}/#/projects")
    page.get_by_role("link", name="default").click()
    expect(page.locator("dl.facts")).to_contain_text("* (any)")
    expect(page.get_by_text("No sync windows")).to_be_visible()
    expect(page.get_by_role("link", name="guestbook")).to_be_visible()
    page.get_by_role("link", name="Events").first.click()
    expect(page.get_by_role("heading", name="Events")).to_be_visible()
    started = page.request.post(
        f"{sluice_up.url}/api/v1/applications/waves/sync", data={"prune": False}
    )
    assert started.ok, started.text()
    rows = page.locator("table.events tbody tr")
    expect(rows.filter(has_text="operation-started")).to_contain_text(["sluice/waves"])
    page.get_by_label("Type").select_option("operation-succeeded")
    expect(rows.filter(has_text="operation-succeeded").first).to_be_visible(timeout=LIVE)
    expect(rows.filter(has_text="operation-started")).to_have_count(0)


RESTARTED_AT = "{.spec.template.metadata.annotations.kubectl\\.kubernetes\\.io/restartedAt}"


def test_restart_the_deployment_from_its_tree_menu(page: Page, sluice_up: Up, shots: Path) -> None:
    open_app(page, sluice_up, "guestbook")
    before = sluice_up.kubectl(
        "get", "deployment", "guestbook-ui", "-n", "guestbook", "-o", f"jsonpath={RESTARTED_AT}"
    )  # fmt: skip
    opener = page.get_by_role("button", name="Actions for Deployment guestbook-ui")
    expect(opener).to_be_visible(timeout=LIVE)
    opener.focus()
    page.keyboard.press("Enter")
    menu = page.get_by_role("menu", name="Actions for Deployment guestbook-ui")
    restart = menu.get_by_role("menuitem", name="restart")
    expect(restart).to_be_visible(timeout=LIVE)
    resume = menu.get_by_role("menuitem", name=re.compile("^resume"))
    expect(resume).to_be_disabled()
    expect(resume).to_contain_text("(not possible now)")
    page.screenshot(path=str(shots / "resource-actions.png"))
    for _ in range(10):
        if restart.evaluate("el => el === document.activeElement"):
            break
        page.keyboard.press("ArrowDown")
    else:
        pytest.fail("ArrowDown never reached the restart item")
    page.keyboard.press("Enter")
    dialog = page.locator("dialog[open][data-dialog=resource-action]")
    expect(dialog).to_contain_text("Run restart on Deployment guestbook-ui?")
    dialog.get_by_role("button", name="Run restart").click()
    expect(page.locator(".toasts")).to_contain_text(
        "action 'restart' ran on Deployment guestbook-ui", timeout=LIVE
    )
    expect(dialog).to_have_count(0)
    expect(opener).to_be_focused()
    after = sluice_up.kubectl(
        "get", "deployment", "guestbook-ui", "-n", "guestbook", "-o", f"jsonpath={RESTARTED_AT}"
    )  # fmt: skip
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", after), after
    assert after != before, "the restart set a new restartedAt on the live Deployment"


def test_resource_panel_lists_actions_confirms_and_shows_errors(page: Page, sluice_up: Up) -> None:
    open_app(page, sluice_up, "guestbook")
    page.locator(".graph .node[data-kind=Deployment]").click()
    panel = page.locator("dialog[open]:not([data-dialog])")
    actions = panel.locator(".resource-actions")
    expect(actions.get_by_role("button")).to_have_text(
        ["restart", "scale", "pause", "resume"], timeout=LIVE
    )
    expect(actions.get_by_role("button", name="resume")).to_be_disabled()
    expect(actions.locator("[data-action=resume]")).to_contain_text("(not possible now)")
    replicas = sluice_up.kubectl(
        "get", "deployment", "guestbook-ui", "-n", "guestbook", "-o", "jsonpath={.spec.replicas}"
    )  # fmt: skip
    actions.get_by_role("button", name="scale").click()
    confirm = page.locator("dialog[open][data-dialog=resource-action]")
    confirm.get_by_label("replicas").fill("<b>many</b>")
    confirm.get_by_role("button", name="Run scale").click()
    expect(confirm.locator(".error")).to_contain_text(
        "replicas must be a whole number from 0 to 10000, got '<b>many</b>'"
    )
    assert confirm.locator(".error b").count() == 0, "the refusal is shown as text"
    confirm.get_by_role("button", name="Cancel").click()
    expect(confirm).to_have_count(0)
    expect(panel.locator(".action-result")).to_be_empty()
    assert replicas == sluice_up.kubectl(
        "get", "deployment", "guestbook-ui", "-n", "guestbook", "-o", "jsonpath={.spec.replicas}"
    ), "a refused action changes nothing"
    actions.get_by_role("button", name="restart").click()
    confirm.get_by_role("button", name="Run restart").click()
    expect(panel.locator(".action-result")).to_contain_text(
        "action 'restart' ran on Deployment guestbook-ui", timeout=LIVE
    )


def test_summary_and_a_resource_show_desired_state_diff_and_events(
    page: Page, sluice_up: Up
) -> None:
    open_app(page, sluice_up, "helm-demo")
    facts = page.locator(".summary dl.facts")
    expect(facts.locator(".source")).to_contain_text("helm-demo @ HEAD")
    expect(facts).to_contain_text("https://kubernetes.default.svc / helm-demo")
    expect(facts).to_contain_text("Automated, prune, self-heal · CreateNamespace=true")
    expect(facts.locator("[data-windows]")).to_have_text("No sync windows.")
    page.get_by_role("button", name="Refresh", exact=True).click()
    expect(page.locator(".toasts")).to_contain_text("refresh of sluice/helm-demo requested")

    page.locator(".graph .node[data-kind=Deployment]").first.click()
    panel = page.locator("dialog[open]")
    expect(panel.locator(".badge[data-kind=health]")).to_have_text(re.compile("Healthy"))
    page.get_by_role("tab", name="Desired manifest").click()
    desired = panel.locator("pre.manifest[aria-label='Desired manifest']")
    expect(desired).to_contain_text("kind: Deployment")
    assert "resourceVersion" not in desired.inner_text(), "Git's object, not the live one"
    page.get_by_role("tab", name="Live manifest").click()
    expect(panel.locator("pre.manifest[aria-label='Live manifest']")).to_contain_text(
        "resourceVersion"
    )
    page.get_by_role("tab", name="Diff").click()
    expect(panel.locator(".tab-panel")).to_contain_text("No differences.")
    page.get_by_role("tab", name="Events").click()
    expect(panel.locator("table.events")).to_contain_text("ScalingReplicaSet", timeout=LIVE)


def test_sync_options_and_retry_from_the_dialog_reach_the_operation(
    page: Page, sluice_up: Up
) -> None:
    open_app(page, sluice_up, "helm-demo")
    page.get_by_role("button", name="Sync", exact=True).click()
    dialog = page.locator("dialog[open]")
    dialog.get_by_label("PruneLast=true", exact=True).check()
    dialog.get_by_label("Retry", exact=True).check()
    dialog.get_by_label("Retry limit", exact=True).fill("3")
    dialog.get_by_role("button", name="Synchronize").click()
    expect(page.locator(".toasts")).to_contain_text("sync of sluice/helm-demo started")

    def ours() -> dict[str, Any] | None:
        answer = page.request.get(f"{sluice_up.url}/api/v1/applications/helm-demo")
        state: dict[str, Any] = answer.json()["status"].get("operationState") or {}
        options = state.get("operation", {}).get("sync", {}).get("syncOptions") or []
        return state if "PruneLast=true" in options else None

    state = until(ours, timeout=LIVE / 1000, what="the operation the dialog started")
    assert state["operation"]["retry"]["limit"] == 3, state
    expect(page.locator(".app-header .badge[data-kind=operation]")).to_have_text(
        re.compile("Succeeded"), timeout=LIVE
    )


def test_a_project_page_shows_its_sync_window_open_now(page: Page, sluice_up: Up) -> None:
    window = {"kind": "deny", "schedule": "* * * * *", "duration": "1h", "applications": ["x"]}
    body = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "AppProject",
        "metadata": {"name": "windowed"},
        "spec": {
            "sourceRepos": ["*"],
            "destinations": [{"server": "*", "namespace": "*"}],
            "syncWindows": [window],
        },
    }
    created = page.request.post(f"{sluice_up.url}/api/v1/projects", data=body)
    assert created.ok, created.text()
    page.goto(f"{sluice_up.url}/#/projects/windowed")
    row = page.locator("table.windows tr[data-window=deny]")
    expect(row).to_contain_text("* * * * *")
    expect(row).to_contain_text("apps: x")
    expect(row).to_contain_text("● open until")


PASSWORD = "hunter2-in-git"


def stuck_app(repo: GitRepo) -> dict[str, object]:
    """An app whose wave-0 Deployment never becomes ready, so a sync waits before wave 1;
    one of its ConfigMaps is in a second namespace, and it holds a Secret."""
    never_ready = {"localcluster.sluice.dev/never-ready": "true"}
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "stuck"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "stuck"}},
            "template": {
                "metadata": {"labels": {"app": "stuck"}, "annotations": never_ready},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
            },
        },
    }
    later = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "later", "annotations": {"argocd.argoproj.io/sync-wave": "1"}},
    }
    extra = {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "stuck-extra", "annotations": {"argocd.argoproj.io/sync-wave": "-1"}},
    }
    elsewhere = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "elsewhere", "namespace": "stuck-extra"},
        "data": {"colour": "blue", "ignored": "as in git"},
    }
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "creds"},
        "data": {"password": base64.b64encode(PASSWORD.encode()).decode()},
    }
    repo.commit({"stuck/app.yaml": manifests(extra, elsewhere, secret, deployment, later)})
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": "stuck"},
        "spec": {
            "project": "default",
            "source": {"repoURL": repo.url, "path": "stuck", "targetRevision": "main"},
            "destination": {"server": "https://kubernetes.default.svc", "namespace": "stuck"},
            "syncPolicy": {"syncOptions": ["CreateNamespace=true"]},
            "ignoreDifferences": [
                {"kind": "ConfigMap", "name": "elsewhere", "jsonPointers": ["/data/ignored"]}
            ],
        },
    }


def secret_values_are_masked(page: Page) -> None:
    """The Secret's panel shows its manifests with every value masked."""
    page.get_by_role("link", name="Resource tree").click()
    page.locator(".graph .node[data-kind=Secret]").click()
    for tab in ("Desired manifest", "Live manifest"):
        page.get_by_role("tab", name=tab).click()
        shown = page.locator(f"dialog[open] pre.manifest[aria-label='{tab}']")
        expect(shown).to_contain_text("password: ++++++++")
        text = shown.inner_text()
        assert PASSWORD not in text and base64.b64encode(PASSWORD.encode()).decode() not in text


def test_terminate_a_waiting_sync_then_filter_the_tree_and_diff_two_resources(
    page: Page, sluice_up: Up, tmp_path: Path
) -> None:
    repo = GitRepo.create(tmp_path / "stuck")
    try:
        created = page.request.post(f"{sluice_up.url}/api/v1/applications", data=stuck_app(repo))
        assert created.ok, created.text()
        open_app(page, sluice_up, "stuck")
        terminate = page.get_by_role("button", name="Terminate")
        expect(terminate).to_be_disabled()
        page.get_by_role("button", name="Sync", exact=True).click()
        page.locator("dialog[open]").get_by_role("button", name="Synchronize").click()
        expect(page.locator(".app-header .badge[data-kind=operation]")).to_have_text(
            re.compile("Running"), timeout=LIVE
        )
        node = page.locator(".graph .node[data-kind=Deployment]")
        expect(node.locator(".badge[data-kind=health]")).to_have_text(
            re.compile("Progressing"), timeout=LIVE
        )
        results = page.locator(".operation table.results tbody tr")
        expect(results.filter(has_text="stuck-extra").locator("td").nth(1)).to_have_text("-1")
        node.click()
        expect(page.locator("dialog[open] dd .message")).not_to_be_empty()
        page.keyboard.press("Escape")

        expect(terminate).to_be_enabled()
        terminate.click()
        expect(page.locator(".toasts")).to_contain_text(
            "termination of the running operation of sluice/stuck requested"
        )
        expect(page.locator(".app-header .badge[data-kind=operation]")).to_have_text(
            re.compile("Failed"), timeout=LIVE
        )
        expect(page.locator(".operation")).to_contain_text("Operation terminated")
        left = sluice_up.kubectl("get", "configmaps", "-n", "stuck", "-o", "name")
        assert "configmap/later" not in left, "wave 1 never ran"
        page.get_by_label("Sync", exact=True).select_option("OutOfSync")
        expect(page.locator(".graph .node[data-kind=ConfigMap]")).to_have_count(1)
        expect(page.locator(".graph .node[data-kind=Deployment]")).to_have_count(0)
        page.get_by_label("Sync", exact=True).select_option("")
        page.get_by_label("Health", exact=True).select_option("Progressing")
        expect(page.locator(".graph .node[data-kind=Deployment]")).to_have_count(1)
        expect(page.locator(".graph .node[data-kind=ConfigMap]")).to_have_count(0)
        page.get_by_label("Health", exact=True).select_option("")
        page.get_by_label("Namespace", exact=True).select_option("stuck-extra")
        expect(page.locator(".graph .node[data-kind=ConfigMap]")).to_have_text(
            [re.compile("elsewhere")]
        )
        expect(page.locator(".graph .node[data-kind=Deployment]")).to_have_count(0)

        drift = json.dumps({"data": {"colour": "red", "ignored": "changed live"}})
        sluice_up.kubectl("patch", "configmap", "elsewhere", "-n", "stuck-extra", "-p", drift)
        page.get_by_role("link", name="Diff").click()
        expect(page.locator(".resource-diff")).to_have_count(2, timeout=LIVE)
        expect(
            page.locator(".resource-diff[data-resource='ConfigMap/elsewhere'] pre.diff .del")
        ).to_contain_text(["colour: red"])
        ignored = page.locator(".resource-diff[data-resource='ConfigMap/elsewhere']")
        expect(ignored).not_to_contain_text("changed live")
        expect(page.locator(".resource-diff[data-resource='ConfigMap/later']")).to_be_visible()
        secret_values_are_masked(page)
    finally:
        page.request.delete(f"{sluice_up.url}/api/v1/applications/stuck?cascade=true")
        repo.close()


def test_the_list_filters_by_project_and_cluster(page: Page, sluice_up: Up) -> None:
    project = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "AppProject",
        "metadata": {"name": "team-b"},
        "spec": {"sourceRepos": ["*"], "destinations": [{"name": "*", "namespace": "*"}]},
    }
    assert page.request.post(f"{sluice_up.url}/api/v1/projects", data=project).ok
    app = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": "team-b-app"},
        "spec": {
            "project": "team-b",
            "source": {"repoURL": "file:///nowhere", "path": "p"},
            "destination": {"name": "in-cluster", "namespace": "team-b"},
        },
    }
    created = page.request.post(f"{sluice_up.url}/api/v1/applications", data=app)
    assert created.ok, created.text()
    page.goto(f"{sluice_up.url}/#/applications")
    summary = page.locator("p.summary")
    only_it = re.compile(r"^1 of \d+ applications")
    for group, value in (("Project", "team-b"), ("Cluster", "in-cluster")):
        box = page.get_by_role("group", name=group).get_by_label(value, exact=True)
        box.check()
        expect(summary).to_have_text(only_it, timeout=LIVE)
        expect(page.locator("[data-app]")).to_have_count(1)
        expect(page.locator("[data-app='sluice/team-b-app']")).to_be_visible()
        box.uncheck()
    page.request.delete(f"{sluice_up.url}/api/v1/applications/team-b-app?cascade=false")
