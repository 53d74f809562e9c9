/**
 * A tiny DOM helper. Every string child becomes a text node, so agent-provided text is never
 * parsed as HTML; the only HTML the inspector inserts is the markdown renderer's output
 * (see `markdown.ts`), which escapes raw HTML.
 */

/** A child of `h`: a node, text, or nothing (skipped). */
export type Child = Node | string | number | null | undefined | false | Child[];

/** Attributes of `h`: `on*` functions are listeners, `class`, `dataset`-style `data-*`, others set as attributes. */
export type Attrs = Record<string, unknown>;

/** Creates an element with attributes and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs | null = null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2), value as EventListener);
    } else if (name === "value" && "value" in element) {
      (element as HTMLInputElement).value = String(value);
    } else if (name === "checked" && element instanceof HTMLInputElement) {
      element.checked = Boolean(value);
    } else {
      element.setAttribute(name, value === true ? "" : String(value));
    }
  }
  append(element, children);
  return element;
}

/** Appends children (flattened; text as text nodes). */
export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else if (child instanceof Node) parent.appendChild(child);
    else parent.appendChild(document.createTextNode(String(child)));
  }
}

/** Replaces every child of `parent`. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.textContent = "";
  append(parent, children);
}

/** A local time with date, from Unix milliseconds or an RFC 3339 string. */
export function formatTime(value: number | string | undefined): string {
  if (value === undefined) return "";
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
}

/** Pretty JSON for display (as text). */
export function prettyJson(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}
