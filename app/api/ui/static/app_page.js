// One application: header with its status and actions, the summary, and tabs for the
// resource tree, the app diff, the deployment history and its events. Everything is
// kept current from the event stream; while an operation runs the app is also read
// every second (the stream says when an operation starts and ends, not each step).

import * as api from "./api.js";
import * as actions from "./actions.js";
import { h, keepingFocus, link, replace } from "./dom.js";
import { diffBlock } from "./diff_view.js";
import { toast } from "./dialogs.js";
import { age, destination, labelsText, shortRev, sortedConditions, sources, when } from "./format.js";
import { openMenu } from "./menu.js";
import { actionLabel, confirmAction, listActions, unavailable } from "./resource_actions.js";
import { openResource } from "./resource_panel.js";
import { healthBadge, phaseBadge, syncBadge } from "./status.js";
import * as store from "./store.js";
import { treeView } from "./tree.js";

const TABS = [
  ["tree", "Resource tree"],
  ["diff", "Diff"],
  ["history", "History"],
  ["events", "Events"],
];
const RUNNING_POLL_MS = 1000;

function automated(app) {
  return Boolean(app.spec.syncPolicy && app.spec.syncPolicy.automated);
}

function operationSection(app) {
  const op = (app.status || {}).operationState;
  if (!op) return h("p", { class: "muted" }, "No operation yet.");
  const waves = new Map(((app.status || {}).resources || []).map((r) => [`${r.group || ""}/${r.kind}/${r.namespace || ""}/${r.name}`, r.syncWave || 0]));
  const results = (op.syncResult || {}).resources || [];
  return h(
    "div",
    { class: "operation", "data-phase": op.phase },
    h("p", {}, phaseBadge(op.phase), " ", op.message || "", op.startedAt ? h("span", { class: "muted" }, ` · started ${age(op.startedAt)} ago`) : "", op.finishedAt ? h("span", { class: "muted" }, ` · finished ${age(op.finishedAt)} ago`) : ""),
    op.syncResult && op.syncResult.revision ? h("p", { class: "muted" }, `Revision ${shortRev(op.syncResult.revision)}`) : null,
    results.length
      ? h("div", { class: "scroll" }, h(
          "table",
          { class: "results" },
          h("thead", {}, h("tr", {}, ["Phase", "Wave", "Kind", "Name", "Result", "Hook", "Message"].map((c) => h("th", { scope: "col" }, c)))),
          h(
            "tbody",
            {},
            results.map((r) =>
              h(
                "tr",
                {},
                h("td", {}, r.syncPhase || "Sync"),
                h("td", {}, String(waves.get(`${r.group || ""}/${r.kind}/${r.namespace || ""}/${r.name}`) ?? 0)),
                h("td", {}, r.kind),
                h("td", {}, r.name),
                h("td", {}, r.status || ""),
                h("td", {}, r.hookType ? `${r.hookType} ${r.hookPhase || ""}` : ""),
                h("td", {}, r.message || ""),
              ),
            ),
          ),
        ))
      : null,
  );
}

function summary(app, windows, ctx, reload) {
  const status = app.status || {};
  const dest = destination(app);
  const policy = app.spec.syncPolicy || {};
  const auto = policy.automated;
  const conditions = sortedConditions(status.conditions);
  const toggle = ctx.me.readOnly
    ? null
    : h("button", {
        type: "button",
        class: "small",
        "data-focus": "auto-sync",
        onclick: async () => {
          try {
            await actions.setAutoSync(app, !auto);
            reload();
          } catch (e) {
            toast(e.message, "bad");
          }
        },
      }, auto ? "Disable auto-sync" : "Enable auto-sync");
  let windowText = "No sync windows.";
  if (windows && (windows.assignedWindows || []).length) {
    windowText = `${windows.canSync ? "Sync Allowed" : "Sync Denied"}${windows.message ? `: ${windows.message}` : ""}`;
  } else if (windows && windows.message) {
    windowText = windows.message;
  }
  return h(
    "section",
    { class: "summary card", "aria-labelledby": "summary-title" },
    h("h2", { id: "summary-title" }, "Summary"),
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, "Project"), h("dd", {}, h("a", { href: `#/projects/${encodeURIComponent(app.spec.project || "default")}` }, app.spec.project || "default")),
      h("dt", {}, sources(app).length > 1 ? "Sources" : "Source"),
      h("dd", {}, sources(app).map((s) => h("div", { class: "source" }, link(s.repoURL), s.path ? ` ${s.path}` : "", s.chart ? ` chart ${s.chart}` : "", ` @ ${s.targetRevision || "HEAD"}`))),
      h("dt", {}, "Destination"), h("dd", {}, `${dest.cluster}${dest.namespace ? ` / ${dest.namespace}` : ""}`),
      h("dt", {}, "Synced to"), h("dd", { class: "mono" }, shortRev((status.sync || {}).revision) || "—"),
      h("dt", {}, "Sync policy"),
      h("dd", {}, auto ? `Automated${auto.prune ? ", prune" : ""}${auto.selfHeal ? ", self-heal" : ""}` : "Manual", (policy.syncOptions || []).length ? ` · ${policy.syncOptions.join(", ")}` : "", " ", toggle),
      h("dt", {}, "Sync window"), h("dd", { "data-windows": "" }, windowText),
      h("dt", {}, "Health"), h("dd", {}, healthBadge((status.health || {}).status), (status.health || {}).message ? ` ${(status.health || {}).message}` : ""),
      labelsText(app.metadata.labels).length ? [h("dt", {}, "Labels"), h("dd", {}, labelsText(app.metadata.labels).map((l) => h("span", { class: "chip" }, l)))] : null,
    ),
    h("h3", {}, "Conditions"),
    conditions.length
      ? h("ul", { class: "conditions" }, conditions.map((c) => h("li", { class: /Error$/.test(c.type) ? "bad" : /Warning$/.test(c.type) ? "warn" : "" }, h("strong", {}, `${/Error$/.test(c.type) ? "✖ " : /Warning$/.test(c.type) ? "⚠ " : ""}${c.type}`), ": ", c.message)))
      : h("p", { class: "muted" }, "None."),
    h("h3", {}, "Operation"),
    operationSection(app),
  );
}

// Commit author and message by revision, read once per page (newest entries only).
const METADATA_SHOWN = 10;
const metadata = new Map();

function commitCell(app, revision, index) {
  const cell = h("td", { class: "commit" });
  if (!revision || index >= METADATA_SHOWN) return cell;
  if (!metadata.has(revision)) {
    const path = api.appPath(app.metadata.namespace, app.metadata.name, `/revisions/${encodeURIComponent(revision)}/metadata`);
    metadata.set(revision, api.get(path + api.appQuery(app.metadata.namespace)).catch((e) => ({ error: e.message })));
  }
  metadata.get(revision).then((m) =>
    replace(cell, m.error ? h("span", { class: "muted", title: m.error }, "unknown") : [h("div", { class: "author" }, m.author), h("div", { class: "message" }, m.message.split("\n")[0])]),
  );
  return cell;
}

function historyTab(app, items, ctx, reload) {
  if (!items.length) return h("p", { class: "muted" }, "No deployment yet.");
  const auto = automated(app);
  return h(
    "div",
    {},
    auto ? h("p", { class: "note", role: "note" }, "Auto-sync is on: the server refuses a rollback (it would sync back to the target at once). Disable auto-sync in the summary first.") : null,
    h(
      "table",
      { class: "history" },
      h("thead", {}, h("tr", {}, ["ID", "Revision", "Commit", "Deployed", "Initiated by", "Source", ""].map((c) => h("th", { scope: "col" }, c)))),
      h(
        "tbody",
        {},
        [...items].reverse().map((e, i) => {
          const src = e.source || (e.sources || [])[0] || {};
          const button = h("button", { type: "button", disabled: ctx.me.readOnly, "data-history": String(e.id), "data-focus": `history:${e.id}`, "aria-describedby": auto ? "rollback-refused" : null }, i === 0 ? "Redeploy" : "Rollback");
          button.addEventListener("click", () => actions.rollbackDialog(app, e, reload));
          return h(
            "tr",
            {},
            h("td", {}, String(e.id)),
            h("td", { class: "mono" }, shortRev(e.revision || (e.revisions || []).join(", "))),
            commitCell(app, e.revision || (e.revisions || [])[0], i),
            h("td", {}, when(e.deployedAt)),
            h("td", {}, e.initiatedBy ? e.initiatedBy.username || (e.initiatedBy.automated ? "auto-sync" : "") : ""),
            h("td", {}, src.repoURL ? [link(src.repoURL), src.path ? ` ${src.path}` : ""] : ""),
            h("td", {}, button),
          );
        }),
      ),
    ),
    auto ? h("p", { id: "rollback-refused", class: "sr-only" }, "Refused while auto-sync is on") : null,
  );
}

function eventsTab(items) {
  if (!items.length) return h("p", { class: "muted" }, "No events yet.");
  return h(
    "table",
    { class: "events" },
    h("thead", {}, h("tr", {}, ["Time", "Type", "Source", "Details"].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, [...items].reverse().map((e) => h("tr", {}, h("td", {}, when(e.event.time)), h("td", {}, e.type), h("td", {}, e.event.source), h("td", {}, e.event.data.message || e.event.data.reason || JSON.stringify(e.event.data))))),
  );
}

// A tree node's menu: its details, then every resource action its live object offers.
function nodeMenu(app, node, button, ctx, details) {
  openMenu(button, `Actions for ${node.kind} ${node.name}`, async () => {
    const actions = (await listActions(app, node)) || [];
    return [
      { id: "details", label: "Details", run: () => details(node) },
      ...actions.map((a) => ({
        id: `action:${a.name}`,
        label: actionLabel(a),
        note: unavailable(a, ctx),
        run: () => confirmAction(app, node, a),
      })),
    ];
  });
}

export function appPage(main, namespace, name, tab, ctx) {
  const key = `${namespace}/${name}`;
  const base = `#/applications/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`;
  const header = h("div", { class: "app-header" });
  const side = h("div", { class: "app-summary" });
  const content = h("div", { class: "tab-content", role: "tabpanel", "aria-labelledby": `tab-${tab}` });
  const tabs = h(
    "nav",
    { class: "tabs", "aria-label": "Application views" },
    TABS.map(([id, label]) => h("a", { href: `${base}/${id}`, id: `tab-${id}`, "aria-current": id === tab ? "page" : null }, label)),
  );
  replace(main, h("div", { class: "app-page" }, header, h("div", { class: "app-body" }, h("div", { class: "app-main" }, tabs, content), side)));
  let app = store.apps.get(key) || null;
  let windows = null;
  let treeNodes = [];
  let managed = null;
  let destroyed = false;
  const details = (node) => openResource(app, node, managedResources(), ctx);
  const tree = tab === "tree" ? treeView(content, details, (node, button) => nodeMenu(app, node, button, ctx, details)) : null;

  function managedResources() {
    if (!managed) managed = api.get(api.appPath(namespace, name, "/managed-resources") + api.appQuery(namespace));
    return managed;
  }

  function drawHeader() {
    const status = app.status || {};
    const op = status.operationState;
    const running = op && (op.phase === "Running" || op.phase === "Terminating");
    const act = (label, fn, attrs = {}) =>
      h("button", { type: "button", disabled: ctx.me.readOnly, ...attrs, onclick: async () => {
        try {
          await fn();
        } catch (e) {
          toast(e.message, "bad");
        }
      } }, label);
    replace(
      header,
      h("p", { class: "crumbs" }, h("a", { href: "#/applications", "data-focus": "crumbs" }, "Applications"), " / ", namespace),
      h("h1", {}, name),
      h("div", { class: "badges", "aria-live": "polite" }, syncBadge((status.sync || {}).status), healthBadge((status.health || {}).status), op ? phaseBadge(op.phase, op.message) : null),
      h(
        "div",
        { class: "actions", role: "toolbar", "aria-label": "Application actions" },
        act("Sync", () => actions.syncDialog(app, soon), { class: "primary", "data-action": "sync", "data-focus": "sync" }),
        act("Refresh", () => actions.refresh(app, false), { "data-action": "refresh", "data-focus": "refresh" }),
        act("Hard refresh", () => actions.refresh(app, true), { "data-action": "hard-refresh", "data-focus": "hard-refresh" }),
        act("Terminate", () => actions.terminate(app), { disabled: ctx.me.readOnly || !running, "data-action": "terminate", "data-focus": "terminate" }),
        act("Delete", () => actions.deleteDialog(app, () => {
          store.remove(key);
          location.hash = "#/applications";
        }), { class: "danger", "data-action": "delete", "data-focus": "delete" }),
      ),
    );
  }

  async function drawTab() {
    try {
      if (tab === "tree") {
        tree.update(app, treeNodes);
      } else if (tab === "diff") {
        managed = null;
        const found = await managedResources();
        const changed = found.items.filter((r) => r.diff);
        keepingFocus(content, () => replace(
          content,
          h("p", { class: "muted" }, `Compared with ${found.revisions.map(shortRev).join(", ")}: ${changed.length} resource(s) differ.`),
          changed.map((r) =>
            h("section", { class: "resource-diff card", "data-resource": `${r.kind}/${r.name}` },
              h("h3", {}, `${r.kind} ${r.namespace ? `${r.namespace}/` : ""}${r.name} `, syncBadge(r.status), r.requiresPruning ? " requires pruning" : ""),
              diffBlock(r)),
          ),
        ));
      } else if (tab === "history") {
        const found = await api.get(api.appPath(namespace, name, "/history") + api.appQuery(namespace));
        keepingFocus(content, () => replace(content, historyTab(app, found.items || [], ctx, soon)));
      } else {
        const found = await api.get(api.appPath(namespace, name, "/events") + api.appQuery(namespace));
        replace(content, eventsTab(found.items || []));
      }
    } catch (e) {
      replace(content, h("p", { class: "error", role: "alert" }, e.message));
    }
  }

  let pending = null;
  async function load() {
    try {
      const [a, t, w] = await Promise.all([
        api.get(api.appPath(namespace, name) + api.appQuery(namespace)),
        api.get(api.appPath(namespace, name, "/resource-tree") + api.appQuery(namespace)),
        api.get(api.appPath(namespace, name, "/syncwindows") + api.appQuery(namespace)).catch(() => null),
      ]);
      if (destroyed) return;
      app = a;
      treeNodes = t.nodes || [];
      windows = w;
      managed = null;
      store.put(app);
      keepingFocus(header, drawHeader);
      keepingFocus(side, () => replace(side, summary(app, windows, ctx, soon)));
      await drawTab();
    } catch (e) {
      if (destroyed) return;
      if (e.status === 404) store.remove(key);
      replace(content, h("p", { class: "error", role: "alert" }, e.message));
    }
  }

  // Coalesce: one read in flight, one more queued if something changed meanwhile.
  let again = false;
  function soon() {
    if (pending) {
      again = true;
      return;
    }
    pending = load().finally(() => {
      pending = null;
      if (again && !destroyed) {
        again = false;
        soon();
      }
    });
  }

  const stop = api.onEvent((item) => {
    if (item.event.subject === key) soon();
  });
  const poll = setInterval(() => {
    const op = app && (app.status || {}).operationState;
    if (op && (op.phase === "Running" || op.phase === "Terminating")) soon();
  }, RUNNING_POLL_MS);
  // The list's copy of the app has only what the list shows: enough for the header; the
  // summary waits for the whole app.
  if (app) drawHeader();
  soon();
  return {
    destroy() {
      destroyed = true;
      stop();
      clearInterval(poll);
    },
  };
}
