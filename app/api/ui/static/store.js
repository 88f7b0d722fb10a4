// The applications the page knows, kept current from the event stream.
//
// Events name the app they concern; each marks it dirty. Dirty apps are read again in
// one batch (one GET per app for a few, the whole list for many), at most one batch in
// flight, and views are told once per animation frame, so a burst of a thousand
// changes costs a handful of requests and renders. New apps appear with their first
// event; every RESYNC_MS the list is read again whole, which also drops deleted apps.

import * as api from "./api.js";
import { appKey } from "./format.js";

// The list asks only for what the list shows (Argo CD's `fields`): no resources,
// conditions or history, so 1,000 apps are a fraction of the bytes and of the server's
// work. index.html preloads this same URL; an app's page reads the whole app itself.
export const LIST_PATH = "/api/v1/applications?fields=items.metadata.name,items.metadata.namespace,items.metadata.labels,items.spec.project,items.spec.source,items.spec.sources,items.spec.destination,items.spec.syncPolicy,items.status.sync.status,items.status.sync.revision,items.status.health.status,items.status.operationState.phase,items.status.operationState.message,items.status.operationState.startedAt,items.status.operationState.finishedAt";

const FEW = 20;
const RESYNC_MS = 30000;

export const apps = new Map();
export let loadError = "";
export let loaded = false;
const views = new Set();
const dirty = new Set();
let frame = 0;
let busy = false;
let timer = 0;

export function subscribe(view) {
  views.add(view);
  return () => views.delete(view);
}

function notify() {
  if (frame) return;
  frame = requestAnimationFrame(() => {
    frame = 0;
    for (const view of views) view();
  });
}

export function put(app) {
  apps.set(appKey(app), app);
  notify();
}

export function remove(key) {
  apps.delete(key);
  notify();
}

export async function loadAll(early = null) {
  try {
    const list = await (early || api.get(LIST_PATH));
    apps.clear();
    for (const app of list.items || []) apps.set(appKey(app), app);
    loadError = "";
  } catch (e) {
    loadError = e.message;
  }
  loaded = true;
  notify();
}

async function readOne(key) {
  const [namespace, name] = key.split("/");
  try {
    put(await api.get(api.appPath(namespace, name) + api.appQuery(namespace)));
  } catch (e) {
    if (e.status === 404) remove(key);
  }
}

async function flush() {
  if (busy || !dirty.size) return;
  busy = true;
  const keys = [...dirty];
  dirty.clear();
  try {
    const unknown = keys.some((k) => !apps.has(k));
    if (keys.length > FEW || (unknown && keys.length > 1)) await loadAll();
    else await Promise.all(keys.map(readOne));
  } finally {
    busy = false;
  }
  if (dirty.size) flush();
}

let scheduled = 0;
export function touch(key) {
  dirty.add(key);
  if (!scheduled) {
    scheduled = setTimeout(() => {
      scheduled = 0;
      flush();
    }, 50);
  }
}

// early: the list already asked for (main.js asks while it checks the session).
let listening = false;
export function start(early = null) {
  if (!listening) api.onEvent((item) => touch(item.event.subject));
  listening = true;
  if (!timer) timer = setInterval(() => document.visibilityState === "visible" && loadAll(), RESYNC_MS);
  return loadAll(early);
}

export function stop() {
  clearInterval(timer);
  timer = 0;
  apps.clear();
  loaded = false;
}
