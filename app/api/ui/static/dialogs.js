// Modal dialogs (the native <dialog>: focus moves in, Escape closes, Tab stays inside)
// and toasts for what an action answered.

import { h, replace } from "./dom.js";

let toasts = null;

export function toast(message, kind = "info") {
  if (!toasts) {
    toasts = h("div", { class: "toasts", role: "status", "aria-live": "polite" });
    document.body.append(toasts);
  }
  const item = h("div", { class: `toast ${kind}` }, message);
  const close = h("button", { type: "button", class: "link", "aria-label": "Dismiss" }, "×");
  close.addEventListener("click", () => item.remove());
  item.append(close);
  toasts.append(item);
  setTimeout(() => item.remove(), kind === "bad" ? 15000 : 6000);
}

// open({title, body, submit, onSubmit}) -> the <dialog>. onSubmit may throw: its message
// is shown in the dialog, which stays open.
export function open({ title, body, submit = "OK", danger = false, onSubmit, wide = false }) {
  const error = h("p", { class: "error", role: "alert" });
  const ok = h("button", { type: "submit", class: danger ? "danger" : "primary" }, submit);
  const cancel = h("button", { type: "button" }, "Cancel");
  const form = h(
    "form",
    { method: "dialog" },
    h("h2", { id: "dialog-title" }, title),
    h("div", { class: "dialog-body" }, body),
    error,
    h("div", { class: "dialog-actions" }, cancel, ok),
  );
  const dialog = h("dialog", { "aria-labelledby": "dialog-title", class: wide ? "wide" : "" }, form);
  cancel.addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => dialog.remove());
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!onSubmit) return dialog.close();
    ok.disabled = true;
    try {
      const done = await onSubmit();
      if (done !== false) dialog.close();
    } catch (err) {
      replace(error, err.message);
    } finally {
      ok.disabled = false;
    }
  });
  document.body.append(dialog);
  dialog.showModal();
  return dialog;
}

export function checkbox(id, label, checked = false, help = "") {
  const input = h("input", { type: "checkbox", id, checked });
  return {
    input,
    el: h("div", { class: "check" }, input, h("label", { for: id }, label), help ? h("span", { class: "help" }, help) : null),
  };
}

export function textInput(id, label, value = "", attrs = {}) {
  const input = h("input", { type: "text", id, value, ...attrs });
  return { input, el: h("div", { class: "text-field" }, h("label", { for: id }, label), input) };
}
