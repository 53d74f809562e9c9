/** The connect screen: the daemon's address and token, kept for this tab only. */
import { api, ApiError } from "./api.js";
import { h } from "./dom.js";
import type { View } from "./view.js";
import { errorText } from "./view.js";

/** Checks the connection: health without the token, then a request that needs it. */
export async function probe(): Promise<void> {
  await api.json("GET", "/v1/health");
  await api.json("GET", "/v1/agents");
}

/** The connect page; `done` is called once the token works. */
export function connectView(done: () => void, reason?: string): View {
  const base = h("input", { name: "base", value: api.base, size: 40 });
  const token = h("input", { name: "token", type: "password", value: api.token, autocomplete: "off", placeholder: "the daemon's --token", "data-testid": "token" });
  const message = h("p", { class: "error-text", "data-testid": "connect-error" }, reason ?? "");
  const submit = async (event: Event) => {
    event.preventDefault();
    api.configure(base.value.trim(), token.value);
    message.textContent = "";
    try {
      await probe();
      api.connected = true;
      done();
    } catch (error) {
      message.textContent =
        error instanceof ApiError && error.status === 401
          ? "The daemon refused the token."
          : error instanceof ApiError
            ? errorText(error)
            : `Cannot reach ${api.base}: ${errorText(error)}. If the inspector is served from another origin, start the daemon with --cors-allow-origin ${location.origin}.`;
    }
  };
  const element = h(
    "form",
    { class: "connect", onsubmit: submit },
    h("h2", null, "Connect to an agentplex daemon"),
    h("label", { class: "field-row" }, h("span", null, "Daemon URL"), base),
    h("label", { class: "field-row" }, h("span", null, "Token"), token),
    h("div", { class: "actions" }, h("button", { class: "primary", type: "submit" }, "Connect")),
    message,
    h(
      "div",
      { class: "muted help" },
      h("p", null, "The token is kept in this tab's session storage only and sent with every API request as Authorization: Bearer. A daemon started with --no-token needs none."),
      h(
        "p",
        null,
        "Opened from another origin than the daemon's (a file, another port)? The daemon refuses cross-origin requests unless started with ",
        h("code", null, `agentplex server --token "$TOKEN" --cors-allow-origin ${location.origin === "null" ? "<origin>" : location.origin}`),
        ".",
      ),
    ),
  );
  return { title: "Connect", element };
}
