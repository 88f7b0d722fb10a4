// Diffs as the server computed them: unified (the text of `diff -u`) or side by side
// (rows of live | target). Lines are text nodes; colour marks are backed by +/- signs.

import { h } from "./dom.js";

export function unified(text) {
  if (!text) return h("p", { class: "muted" }, "No differences.");
  const lines = text.replace(/\n$/, "").split("\n");
  return h(
    "pre",
    { class: "diff unified", tabindex: "0", "aria-label": "Unified diff" },
    lines.map((line) => {
      const cls = line.startsWith("+++") || line.startsWith("---") ? "file" : line.startsWith("@@") ? "hunk" : line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "";
      return h("span", { class: `line ${cls}` }, line, "\n");
    }),
  );
}

export function sideBySide(rows) {
  if (!rows || !rows.length) return h("p", { class: "muted" }, "No differences.");
  const leftSign = { delete: "-", replace: "-", equal: " " };
  const rightSign = { insert: "+", replace: "+", equal: " " };
  const cell = (line, text, signs, tag, mark) =>
    h("td", { class: `code ${signs[tag] && signs[tag] !== " " ? mark : ""}` }, tag === "skip" ? text : line ? `${signs[tag]} ${text}` : "");
  return h(
    "table",
    { class: "diff side", "aria-label": "Side-by-side diff" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col", colspan: "2" }, "Live"), h("th", { scope: "col", colspan: "2" }, "Desired (after sync)"))),
    h(
      "tbody",
      {},
      rows.map((r) =>
        h(
          "tr",
          { class: r.tag },
          h("td", { class: "ln" }, r.leftLine || ""),
          cell(r.leftLine, r.left, leftSign, r.tag, "del"),
          h("td", { class: "ln" }, r.rightLine || ""),
          cell(r.rightLine, r.right, rightSign, r.tag, "add"),
        ),
      ),
    ),
  );
}

// A diff with a Unified / Side by side switch.
export function diffBlock(resource, mode = { value: "unified" }) {
  const body = h("div", { class: "diff-body" });
  const draw = () => body.replaceChildren(mode.value === "unified" ? unified(resource.diff) : sideBySide(resource.sideBySide));
  const buttons = ["unified", "side"].map((m) => {
    const b = h("button", { type: "button", "aria-pressed": String(mode.value === m), "data-diff-mode": m, "data-focus": `diff:${resource.kind}/${resource.namespace}/${resource.name}:${m}` }, m === "unified" ? "Unified" : "Side by side");
    b.addEventListener("click", () => {
      mode.value = m;
      for (const other of buttons) other.setAttribute("aria-pressed", String(other === b));
      draw();
    });
    return b;
  });
  draw();
  return h("div", { class: "diff-block" }, h("div", { class: "toggle", role: "group", "aria-label": "Diff layout" }, buttons), body);
}
