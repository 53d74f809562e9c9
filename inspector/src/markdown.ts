/**
 * Markdown from agents, rendered with `marked` and made safe twice: raw HTML in the source
 * is escaped (shown as text), and the rendered HTML is parsed inertly and filtered through an
 * allowlist of elements and attributes before it reaches the page. Links keep only http(s),
 * mailto and in-page targets; images are shown as links (nothing is loaded).
 */
import { Marked, type Tokens } from "marked";

const escapes: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Escapes text for HTML. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => escapes[char] ?? char);
}

/** Whether a link target is one the inspector follows. */
export function safeHref(href: string): boolean {
  const trimmed = href.trim().toLowerCase();
  return /^(https?:|mailto:|#)/.test(trimmed);
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    html({ text }: Tokens.HTML | Tokens.Tag): string {
      return escapeHtml(text);
    },
    link(this: { parser: { parseInline(tokens: Tokens.Link["tokens"]): string } }, token: Tokens.Link): string {
      const inner = this.parser.parseInline(token.tokens);
      if (!safeHref(token.href)) return inner;
      const title = token.title ? ` title="${escapeHtml(token.title)}"` : "";
      return `<a href="${escapeHtml(token.href)}"${title} target="_blank" rel="noopener noreferrer">${inner}</a>`;
    },
    image({ href, text }: Tokens.Image): string {
      const label = `[image: ${text || href}]`;
      if (!safeHref(href)) return escapeHtml(label);
      return `<a href="${escapeHtml(href)}" target="_blank" rel="noopener noreferrer">${escapeHtml(label)}</a>`;
    },
  },
});

const allowed: Record<string, string[]> = {
  A: ["href", "title", "target", "rel"],
  P: [], H1: [], H2: [], H3: [], H4: [], H5: [], H6: [],
  STRONG: [], EM: [], DEL: [], S: [], CODE: ["class"], PRE: [], BLOCKQUOTE: [],
  UL: [], OL: ["start"], LI: [], HR: [], BR: [],
  TABLE: [], THEAD: [], TBODY: [], TR: [], TH: ["align"], TD: ["align"],
  INPUT: ["type", "checked", "disabled"],
};

/** Removes every element and attribute the allowlist does not name (elements keep their text). */
function sanitize(root: DocumentFragment | Element): void {
  for (const element of Array.from(root.children)) {
    const attributes = allowed[element.tagName];
    if (!attributes) {
      element.replaceWith(document.createTextNode(element.textContent ?? ""));
      continue;
    }
    for (const attribute of Array.from(element.attributes)) {
      if (!attributes.includes(attribute.name)) element.removeAttribute(attribute.name);
    }
    if (element.tagName === "A" && !safeHref(element.getAttribute("href") ?? "")) element.removeAttribute("href");
    if (element.tagName === "INPUT" && element.getAttribute("type") !== "checkbox") {
      element.remove();
      continue;
    }
    sanitize(element);
  }
}

/** Renders markdown into a `div.markdown`. */
export function renderMarkdown(source: string): HTMLElement {
  const html = marked.parse(source) as string;
  // A template's content is inert: nothing in it runs or loads while it is filtered.
  const template = document.createElement("template");
  template.innerHTML = html;
  sanitize(template.content);
  const div = document.createElement("div");
  div.className = "markdown";
  div.appendChild(document.importNode(template.content, true));
  return div;
}
