// Resource actions (restart, scale, a Rollout's resume, Lua actions from argocd-cm) on one
// object of an app's tree: read what it offers from the API, run one after a confirm
// dialog that takes its parameters, and say what happened in words.
//
// Both the resource panel and the tree node's menu use this module, so both offer the
// same actions, disabled the same way, with the same confirmation.

import * as api from "./api.js";
import { h } from "./dom.js";
import { open, textInput, toast } from "./dialogs.js";

// Why an action cannot be run, shown beside it (text, not only a greyed button).
export function unavailable(action, ctx) {
  if (ctx.me.readOnly) return "read-only session";
  if (action.disabled) return "not possible now";
  return "";
}

export function actionLabel(action) {
  return action.displayName || action.name;
}

function actionsPath(app, node) {
  return (
    api.appPath(app.metadata.namespace, app.metadata.name, "/resource/actions") +
    api.appQuery(app.metadata.namespace, {
      group: node.group,
      version: (node.ref && node.ref.version) || "",
      kind: node.kind,
      namespace: node.namespace,
      resourceName: node.name,
    })
  );
}

// The actions the live object offers: [] when it offers none, null when the object is
// not (or no longer) in the app's tree. Other failures throw with the server's message.
export async function listActions(app, node) {
  try {
    const found = await api.get(actionsPath(app, node));
    return (found && found.actions) || [];
  } catch (e) {
    if (e.status === 404) return null;
    throw e;
  }
}

// The confirm dialog. Resolves with the server's answer once the action ran; the dialog
// stays open with the error as text when the server refuses it, and resolves null when
// the user cancels.
export function confirmAction(app, node, action) {
  const label = actionLabel(action);
  const params = (action.params || []).map((p, i) => ({
    name: p.name,
    field: textInput(`ra-param-${i}`, p.name, p.default || "", {
      autocomplete: "off",
      inputmode: p.type === "number" ? "numeric" : null,
      "data-param": p.name,
    }),
  }));
  const where = `${node.namespace ? `${node.namespace}/` : ""}${node.name}`;
  return new Promise((resolve) => {
    let answered = null;
    const dialog = open({
      title: `Run ${label} on ${node.kind} ${node.name}?`,
      submit: `Run ${label}`,
      body: h(
        "div",
        { class: "action-confirm" },
        h("p", {}, `The action changes the live ${node.kind} ${where} in the cluster now, outside a sync.`),
        params.length ? h("fieldset", {}, h("legend", {}, "Parameters"), params.map((p) => p.field.el)) : null,
      ),
      onSubmit: async () => {
        const body = { action: action.name };
        if (params.length) {
          body.resourceActionParameters = params.map((p) => ({ name: p.name, value: p.field.input.value.trim() }));
        }
        answered = await api.post(actionsPath(app, node), body);
      },
    });
    dialog.setAttribute("data-dialog", "resource-action");
    dialog.addEventListener("close", () => {
      if (answered) toast(answered.message, "ok");
      resolve(answered);
    });
  });
}

// One button per action, each with its state in words; `onRan(answer)` after a run.
export function actionButtons(app, node, actions, ctx, onRan) {
  return actions.map((a) => {
    const why = unavailable(a, ctx);
    return h(
      "div",
      { class: "resource-action", "data-action": a.name },
      h(
        "button",
        {
          type: "button",
          disabled: Boolean(why),
          "aria-describedby": why ? `ra-why-${a.name}` : null,
          onclick: async () => {
            const answer = await confirmAction(app, node, a);
            if (answer && onRan) onRan(answer);
          },
        },
        actionLabel(a),
      ),
      why ? h("span", { class: "help", id: `ra-why-${a.name}` }, `(${why})`) : null,
    );
  });
}
