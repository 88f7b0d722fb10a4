// The resource tree drawn as a graph: the application, its managed resources, and what
// they own (ReplicaSets, Pods, Jobs), left to right, joined by lines. Each node is a
// button (Tab reaches it, Enter opens it) with its kind, name, health and sync; hooks
// show their type, phase and wave; beside each resource a "⋮" button opens its menu
// (details and its resource actions). Filters by kind, sync, health and namespace keep the
// matches and the path to them; "By kind" lists the nodes grouped by kind instead.

import { h, replace } from "./dom.js";
import { resourceKey } from "./format.js";
import { HEALTH_CODES, SYNC_CODES, healthBadge, syncBadge } from "./status.js";

const W = 200;
const H = 64;
const GAP_X = 36;
const GAP_Y = 14;
const SVG = "http://www.w3.org/2000/svg";

const ABBREV = {
  Deployment: "deploy", ReplicaSet: "rs", Pod: "pod", Service: "svc", Job: "job", CronJob: "cj",
  ConfigMap: "cm", Secret: "sec", StatefulSet: "sts", DaemonSet: "ds", Ingress: "ing",
  ServiceAccount: "sa", Namespace: "ns", PersistentVolumeClaim: "pvc", Endpoints: "ep",
};

// Every node of the graph: the app (root), then tree nodes and resources not live yet.
export function graphNodes(app, treeNodes) {
  const status = app.status || {};
  const resources = new Map((status.resources || []).map((r) => [resourceKey(r), r]));
  const results = new Map();
  for (const r of ((status.operationState || {}).syncResult || {}).resources || []) {
    results.set(resourceKey(r), r);
  }
  const byUid = new Map();
  const nodes = [];
  const root = { id: "app", kind: "Application", name: app.metadata.name, depth: 0, children: [], root: true,
    sync: (status.sync || {}).status, health: (status.health || {}).status };
  nodes.push(root);
  for (const t of treeNodes) {
    const key = resourceKey(t);
    const r = resources.get(key);
    const result = results.get(key);
    const node = {
      id: t.uid || key, key, ref: t, kind: t.kind, name: t.name, namespace: t.namespace || "", group: t.group || "",
      health: (t.health || {}).status || (r && r.health ? r.health.status : ""),
      healthMessage: (t.health || {}).message || "",
      sync: r ? r.status : "", children: [], managed: Boolean(r) || !(t.parentRefs || []).length,
      wave: r ? r.syncWave : undefined, hook: result && result.hookType ? result : null,
      parents: (t.parentRefs || []).map((p) => p.uid).filter(Boolean),
    };
    if (t.uid) byUid.set(t.uid, node);
    nodes.push(node);
  }
  const inTree = new Set(nodes.map((n) => n.key));
  for (const [key, r] of resources) {
    if (inTree.has(key)) continue;
    nodes.push({
      id: key, key, ref: r, kind: r.kind, name: r.name, namespace: r.namespace || "", group: r.group || "",
      health: r.health ? r.health.status : "Missing", healthMessage: r.health ? r.health.message || "" : "",
      sync: r.status, children: [], managed: true, wave: r.syncWave, hook: null, parents: [],
    });
  }
  for (const [key, result] of results) {
    if (!result.hookType || inTree.has(key) || resources.has(key)) continue;
    nodes.push({
      id: `hook:${key}`, key, ref: result, kind: result.kind, name: result.name, namespace: result.namespace || "",
      group: result.group || "", health: "", sync: "", children: [], managed: true, hook: result, parents: [], gone: true,
    });
  }
  for (const node of nodes.slice(1)) {
    const parents = node.parents.map((uid) => byUid.get(uid)).filter(Boolean);
    node.parent = parents[0] || root;
    node.parent.children.push(node);
  }
  return nodes;
}

function layout(root, visible) {
  let row = 0;
  const place = (node, depth) => {
    node.depth = depth;
    const kids = node.children.filter((c) => visible.has(c));
    if (!kids.length) {
      node.row = row++;
      return;
    }
    for (const kid of kids) place(kid, depth + 1);
    node.row = (kids[0].row + kids[kids.length - 1].row) / 2;
  };
  place(root, 0);
  return row;
}

function hookText(hook) {
  const bits = [`${hook.hookType} hook`];
  if (hook.hookPhase) bits.push(hook.hookPhase);
  if (hook.syncPhase) bits.push(`phase ${hook.syncPhase}`);
  return bits.join(" · ");
}

function nodeButton(node, onSelect, onMenu, dim) {
  const kind = node.root ? "app" : ABBREV[node.kind] || node.kind.toLowerCase();
  const el = h(
    "button",
    {
      type: "button",
      class: `node${node.root ? " root" : ""}${dim ? " dim" : ""}${node.hook ? " hook" : ""}`,
      "data-kind": node.kind,
      "data-id": node.id,
      title: `${node.kind} ${node.namespace ? `${node.namespace}/` : ""}${node.name}`,
      "data-name": node.name,
      "aria-label": `${node.kind} ${node.name}${node.health ? `, health ${node.health}` : ""}${node.sync ? `, ${node.sync}` : ""}`,
      disabled: node.root || node.gone,
    },
    h("span", { class: "kind-icon", "aria-hidden": "true" }, kind),
    h(
      "span",
      { class: "node-text" },
      h("span", { class: "node-name" }, node.name),
      h("span", { class: "node-kind" }, node.kind, node.wave ? ` · wave ${node.wave}` : "", node.hook ? ` · ${hookText(node.hook)}` : ""),
      h("span", { class: "node-status" }, node.health ? healthBadge(node.health, node.healthMessage) : "", node.sync ? syncBadge(node.sync) : ""),
    ),
  );
  if (!node.root) el.addEventListener("click", () => onSelect(node));
  if (node.root || node.gone || !onMenu) return h("div", { class: "node-box" }, el);
  const menu = h(
    "button",
    {
      type: "button",
      class: "node-menu",
      "aria-haspopup": "menu",
      "aria-expanded": "false",
      "aria-label": `Actions for ${node.kind} ${node.name}`,
      title: `Actions for ${node.kind} ${node.name}`,
      "data-menu": node.id,
    },
    "⋮",
  );
  menu.addEventListener("click", () => onMenu(node, menu));
  return h("div", { class: "node-box" }, el, menu);
}

function matches(node, f) {
  return (
    (!f.kind || node.kind === f.kind) &&
    (!f.sync || node.sync === f.sync) &&
    (!f.health || (node.health || "Unknown") === f.health) &&
    (!f.namespace || node.namespace === f.namespace)
  );
}

function select(id, label, values, value, onChange) {
  const el = h("select", { id }, h("option", { value: "" }, "all"), values.map((v) => h("option", { value: v, selected: v === value }, v)));
  el.addEventListener("change", () => onChange(el.value));
  return h("div", { class: "text-field" }, h("label", { for: id }, label), el);
}

// treeView(container, onSelect, onMenu) -> {update()}: draws and redraws the tree.
// onSelect(node) opens a node; onMenu(node, button) opens its menu (the "⋮" beside it).
export function treeView(container, onSelect, onMenu = null) {
  const f = { kind: "", sync: "", health: "", namespace: "", mode: "graph" };
  const controls = h("div", { class: "tree-controls", role: "group", "aria-label": "Tree filters" });
  const canvas = h("div", { class: "tree-canvas" });
  replace(container, controls, canvas);
  let last = null;
  let controlsKey = "";

  function drawControls(nodes) {
    const kinds = [...new Set(nodes.slice(1).map((n) => n.kind))].sort();
    const namespaces = [...new Set(nodes.slice(1).map((n) => n.namespace).filter(Boolean))].sort();
    const key = JSON.stringify([kinds, namespaces, f]);
    if (key === controlsKey) return;
    controlsKey = key;
    const set = (name) => (value) => {
      f[name] = value;
      draw();
    };
    const mode = ["graph", "kind"].map((m) =>
      h("button", { type: "button", "aria-pressed": String(f.mode === m), onclick: () => set("mode")(m) }, m === "graph" ? "Graph" : "By kind"),
    );
    replace(
      controls,
      select("t-kind", "Kind", kinds, f.kind, set("kind")),
      select("t-sync", "Sync", SYNC_CODES, f.sync, set("sync")),
      select("t-health", "Health", HEALTH_CODES, f.health, set("health")),
      select("t-ns", "Namespace", namespaces, f.namespace, set("namespace")),
      h("div", { class: "toggle", role: "group", "aria-label": "Tree view" }, mode),
    );
  }

  function draw() {
    if (!last) return;
    const active = canvas.contains(document.activeElement) ? document.activeElement : null;
    const attr = active && active.hasAttribute("data-menu") ? "data-menu" : "data-id";
    const focused = active ? active.getAttribute(attr) : null;
    paint();
    if (focused) {
      const again = [...canvas.querySelectorAll(`[${attr}]`)].find((el) => el.getAttribute(attr) === focused);
      if (again) again.focus();
    }
  }

  function paint() {
    const { app, treeNodes } = last;
    const nodes = graphNodes(app, treeNodes);
    drawControls(nodes);
    const filtering = f.kind || f.sync || f.health || f.namespace;
    const matched = new Set(nodes.filter((n) => !n.root && matches(n, f)));
    if (f.mode === "kind") {
      const groups = new Map();
      for (const n of matched) groups.set(n.kind, [...(groups.get(n.kind) || []), n]);
      replace(
        canvas,
        [...groups.keys()].sort().map((kind) =>
          h("section", { class: "kind-group" }, h("h3", {}, `${kind} (${groups.get(kind).length})`),
            h("div", { class: "kind-nodes" }, groups.get(kind).map((n) => nodeButton(n, onSelect, onMenu, false)))),
        ),
      );
      return;
    }
    const visible = new Set([nodes[0]]);
    for (const n of filtering ? matched : nodes) {
      for (let p = n; p && !visible.has(p); p = p.parent) visible.add(p);
    }
    const rows = layout(nodes[0], visible);
    let depth = 0;
    for (const n of visible) depth = Math.max(depth, n.depth);
    const width = (depth + 1) * (W + GAP_X);
    const height = Math.max(1, rows) * (H + GAP_Y);
    const svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("width", String(width));
    svg.setAttribute("height", String(height));
    svg.setAttribute("aria-hidden", "true");
    const box = h("div", { class: "graph", role: "group", "aria-label": "Resource tree" });
    box.style.width = `${width}px`;
    box.style.height = `${height}px`;
    box.append(svg);
    const y = (n) => n.row * (H + GAP_Y);
    const x = (n) => n.depth * (W + GAP_X);
    const ordered = [...visible].sort((a, b) => a.depth - b.depth || a.row - b.row);
    for (const n of ordered) {
      if (n.parent && visible.has(n.parent)) {
        const path = document.createElementNS(SVG, "path");
        const x1 = x(n.parent) + W;
        const y1 = y(n.parent) + H / 2;
        const x2 = x(n);
        const y2 = y(n) + H / 2;
        const mid = (x1 + x2) / 2;
        path.setAttribute("d", `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}`);
        path.setAttribute("class", "edge");
        svg.append(path);
      }
      const el = nodeButton(n, onSelect, onMenu, filtering && !n.root && !matched.has(n));
      el.style.left = `${x(n)}px`;
      el.style.top = `${y(n)}px`;
      box.append(el);
    }
    replace(canvas, box);
  }

  return {
    update(app, treeNodes) {
      last = { app, treeNodes };
      draw();
    },
  };
}
