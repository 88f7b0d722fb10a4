// Small formatting helpers.

export function shortRev(rev) {
  if (!rev) return "";
  return /^[0-9a-f]{40}$/.test(rev) ? rev.slice(0, 7) : rev;
}

export function age(when, now = Date.now()) {
  if (!when) return "";
  const t = Date.parse(when);
  if (Number.isNaN(t)) return "";
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

export function when(timestamp) {
  if (!timestamp) return "";
  const t = new Date(timestamp);
  if (Number.isNaN(t.getTime())) return timestamp;
  return `${t.toLocaleString()} (${age(timestamp)} ago)`;
}

export function appKey(app) {
  return `${app.metadata.namespace}/${app.metadata.name}`;
}

export function sources(app) {
  const spec = app.spec || {};
  if (spec.sources && spec.sources.length) return spec.sources;
  return spec.source ? [spec.source] : [];
}

export function destination(app) {
  const d = (app.spec || {}).destination || {};
  return { cluster: d.name || d.server || "", namespace: d.namespace || "" };
}

export function resourceKey(r) {
  return `${r.group || ""}/${r.kind}/${r.namespace || ""}/${r.name}`;
}

export function kindName(r) {
  return `${r.kind}/${r.name}`;
}

export function labelsText(labels) {
  return Object.entries(labels || {}).map(([k, v]) => `${k}=${v}`);
}

// Conditions with errors first (types ending in Error), then warnings, then the rest.
export function sortedConditions(conditions) {
  const rank = (c) => (/Error$/.test(c.type) ? 0 : /Warning$/.test(c.type) ? 1 : 2);
  return [...(conditions || [])].sort((a, b) => rank(a) - rank(b));
}
