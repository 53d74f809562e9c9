/** What every page is, and the page-wide helpers (toasts, error text). */
import { ApiError } from "./api.js";
import { h } from "./dom.js";

/** A page: its element, and what to stop when it is left. */
export interface View {
  title: string;
  element: HTMLElement;
  dispose?(): void;
}

/** A readable line for an error (a problem document's code and detail). */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) {
    const code = error.problem?.type?.replace("urn:sandbox-agent:error:", "");
    return `${error.status}${code ? ` ${code}` : ""}: ${error.message}`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Shows a message for a few seconds. */
export function toast(message: string, kind: "error" | "info" = "info"): void {
  let box = document.getElementById("toasts");
  if (!box) {
    box = h("div", { id: "toasts" });
    document.body.appendChild(box);
  }
  const note = h("div", { class: `toast ${kind}`, role: "status" }, message);
  box.appendChild(note);
  setTimeout(() => note.remove(), kind === "error" ? 8000 : 3000);
}
