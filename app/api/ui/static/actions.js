// The app's actions: Sync (with its options), Refresh, Hard refresh, Terminate, Delete
// (cascade choice, typed confirmation), Rollback, and turning auto-sync off or on.

import * as api from "./api.js";
import { h } from "./dom.js";
import { checkbox, open, textInput, toast } from "./dialogs.js";
import { shortRev } from "./format.js";

const OPTIONS = ["Validate=false", "CreateNamespace=true", "PruneLast=true", "ApplyOutOfSyncOnly=true", "Replace=true", "ServerSideApply=true", "RespectIgnoreDifferences=true", "PrunePropagationPolicy=foreground"];

const SETTLE_TRIES = 20;
const SETTLE_MS = 250;

function path(app, suffix = "") {
  return api.appPath(app.metadata.namespace, app.metadata.name, suffix) + api.appQuery(app.metadata.namespace);
}

export function syncDialog(app, onStarted) {
  const prune = checkbox("s-prune", "Prune", false, "delete resources no longer in Git");
  const dry = checkbox("s-dry", "Dry run", false, "validate only, change nothing");
  const outOfSync = checkbox("s-oos", "Apply only out of sync", false, "ApplyOutOfSyncOnly=true");
  const force = checkbox("s-force", "Force", false, "delete and re-create when apply fails");
  const noHooks = checkbox("s-apply", "Skip hooks (apply strategy)", false);
  const retry = checkbox("s-retry", "Retry", false, "retry a failed sync with backoff");
  const retryLimit = textInput("s-retry-limit", "Retry limit", "2", { inputmode: "numeric" });
  const revision = textInput("s-rev", "Revision", "", { placeholder: (app.spec.source || {}).targetRevision || "HEAD" });
  const options = OPTIONS.filter((o) => o !== "ApplyOutOfSyncOnly=true").map((o, i) => ({
    value: o,
    ...checkbox(`s-opt-${i}`, o, (app.spec.syncPolicy?.syncOptions || []).includes(o)),
  }));
  const resources = (app.status?.resources || []).map((r, i) => ({
    r,
    box: checkbox(`s-res-${i}`, `${r.kind}/${r.name}${r.namespace ? ` (${r.namespace})` : ""} — ${r.status}`, false),
  }));
  const body = h(
    "div",
    { class: "sync-dialog" },
    h("fieldset", {}, h("legend", {}, "Options"), prune.el, dry.el, outOfSync.el, force.el, noHooks.el, retry.el, retryLimit.el),
    revision.el,
    h("fieldset", {}, h("legend", {}, "Sync options"), options.map((o) => o.el)),
    resources.length
      ? h("fieldset", { class: "resources" }, h("legend", {}, "Resources (none ticked: all)"), resources.map((x) => x.box.el))
      : null,
  );
  open({
    title: `Sync ${app.metadata.name}`,
    body,
    submit: "Synchronize",
    onSubmit: async () => {
      const syncOptions = options.filter((o) => o.input.checked).map((o) => o.value);
      if (outOfSync.input.checked) syncOptions.push("ApplyOutOfSyncOnly=true");
      const request = {
        prune: prune.input.checked,
        dryRun: dry.input.checked,
        force: force.input.checked,
        strategy: noHooks.input.checked ? "apply" : "hook",
        revision: revision.input.value.trim(),
        syncOptions,
        resources: resources.filter((x) => x.box.input.checked).map(({ r }) => ({ group: r.group || "", kind: r.kind, namespace: r.namespace || "", name: r.name })),
      };
      if (retry.input.checked) {
        const limit = Number.parseInt(retryLimit.input.value, 10);
        if (Number.isNaN(limit)) throw new Error("Retry limit: enter a number (-1: no limit)");
        request.retry = { limit };
      }
      const started = await api.post(path(app, "/sync"), request);
      toast(started.message, "ok");
      if (onStarted) onStarted(started);
    },
  });
}

export async function refresh(app, hard) {
  const result = await api.post(
    api.appPath(app.metadata.namespace, app.metadata.name, "/refresh") + api.appQuery(app.metadata.namespace, { hard: hard ? "true" : "" }),
    {},
  );
  toast(result.message, "ok");
}

export async function terminate(app) {
  const result = await api.del(path(app, "/operation"));
  toast(result.message, "ok");
}

export function deleteDialog(app, onDeleted) {
  const cascade = checkbox("d-cascade", "Delete its resources too (cascade)", true, "without it, deployed objects stay in the cluster");
  const typed = textInput("d-name", `Type ${app.metadata.name} to confirm`, "", { autocomplete: "off" });
  open({
    title: `Delete ${app.metadata.name}?`,
    danger: true,
    submit: "Delete",
    body: h("div", {}, h("p", {}, "The Application is removed from Sluice."), cascade.el, typed.el),
    onSubmit: async () => {
      if (typed.input.value !== app.metadata.name) throw new Error(`Type the application's name, ${app.metadata.name}, to confirm.`);
      const result = await api.del(
        api.appPath(app.metadata.namespace, app.metadata.name) + api.appQuery(app.metadata.namespace, { cascade: String(cascade.input.checked) }),
      );
      toast(result.message, "ok");
      if (onDeleted) onDeleted();
    },
  });
}

export function rollbackDialog(app, entry, onStarted) {
  const prune = checkbox("r-prune", "Prune", false);
  const dry = checkbox("r-dry", "Dry run", false);
  open({
    title: `Roll back ${app.metadata.name} to ${shortRev(entry.revision || (entry.revisions || [])[0])}?`,
    submit: "Roll back",
    body: h("div", {}, h("p", {}, `History entry ${entry.id}, deployed ${entry.deployedAt || ""}.`), prune.el, dry.el),
    onSubmit: async () => {
      const started = await api.post(path(app, "/rollback"), { id: entry.id, prune: prune.input.checked, dryRun: dry.input.checked });
      toast(started.message, "ok");
      if (onStarted) onStarted(started);
    },
  });
}

// Turn automated sync off or on (a PUT of the Application with its spec changed).
export async function setAutoSync(app, on) {
  const current = await api.get(path(app));
  const doc = { apiVersion: current.apiVersion, kind: current.kind, metadata: current.metadata, spec: current.spec };
  doc.spec.syncPolicy = { ...(doc.spec.syncPolicy || {}) };
  if (on) doc.spec.syncPolicy.automated = { prune: false, selfHeal: false };
  else delete doc.spec.syncPolicy.automated;
  await api.put(path(app), doc);
  toast(`Auto-sync ${on ? "enabled" : "disabled"} for ${app.metadata.name}`, "ok");
  // The API reads apps from the registry the watcher keeps: wait (briefly) for the change.
  for (let i = 0; i < SETTLE_TRIES; i++) {
    const seen = await api.get(path(app));
    if (Boolean(seen.spec.syncPolicy && seen.spec.syncPolicy.automated) === on) return seen;
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  }
  return null;
}
