/**
 * Rendering of universal items as a person reads a coding agent: messages as markdown,
 * reasoning collapsed, tool calls with their arguments, tool results, file changes as diffs.
 * Agent text is always inserted as text (or through the safe markdown renderer).
 */
import { h, prettyJson, type Child } from "./dom.js";
import { renderMarkdown } from "./markdown.js";
import type { ContentPart, UniversalItem } from "./types.js";

/** A unified diff, one line per span, coloured by its first character. */
export function renderDiff(diff: string): HTMLElement {
  const lines = diff.replace(/\n$/, "").split("\n");
  return h(
    "pre",
    { class: "diff" },
    lines.map((line) => {
      const kind = line.startsWith("@@")
        ? "hunk"
        : line.startsWith("+++") || line.startsWith("---")
          ? "file"
          : line.startsWith("+")
            ? "add"
            : line.startsWith("-")
              ? "del"
              : "ctx";
      return h("span", { class: `diff-${kind}` }, line, "\n");
    }),
  );
}

/** Tool arguments: pretty JSON when they parse, else the text. */
function renderArguments(text: string): HTMLElement {
  let shown = text;
  try {
    shown = prettyJson(JSON.parse(text));
  } catch {
    // not JSON: shown as sent
  }
  return h("pre", { class: "tool-args" }, shown);
}

/** One content part. `markdown` renders text parts as markdown. */
export function renderPart(part: ContentPart, markdown: boolean): Child {
  switch (part.type) {
    case "text":
      return markdown ? renderMarkdown(part.text) : h("pre", { class: "text" }, part.text);
    case "reasoning":
      return h(
        "details",
        { class: `reasoning ${part.visibility}` },
        h("summary", null, part.visibility === "private" ? "Reasoning (private)" : "Reasoning"),
        h("div", { class: "reasoning-text" }, part.text),
      );
    case "json":
      return h("pre", { class: "json" }, prettyJson(part.json));
    case "tool_call":
      return h(
        "div",
        { class: "tool-call" },
        h("div", { class: "tool-head" }, h("span", { class: "tool-name" }, part.name), h("span", { class: "muted" }, ` ${part.call_id}`)),
        renderArguments(part.arguments),
      );
    case "tool_result":
      return h(
        "div",
        { class: "tool-result" },
        h("div", { class: "tool-head muted" }, `result of ${part.call_id}`),
        h("pre", { class: "tool-output" }, part.output),
      );
    case "file_ref":
      return h(
        "div",
        { class: "file-ref" },
        h("div", { class: "tool-head" }, h("span", { class: `file-action ${part.action}` }, part.action), " ", h("code", null, part.path)),
        part.diff ? renderDiff(part.diff) : null,
      );
    case "image":
      return inlineImage(part.path)
        ? h("figure", { class: "image-part" }, h("img", { src: part.path, alt: part.mime ?? "image" }))
        : h("div", { class: "image-ref" }, "image ", h("code", null, part.path), part.mime ? ` (${part.mime})` : "");
    case "status":
      return h("div", { class: "status-part" }, h("strong", null, part.label), part.detail ? ` ${part.detail}` : "");
    default:
      return h("pre", { class: "json" }, prettyJson(part));
  }
}

/** What an item is called in its header. */
function itemLabel(item: UniversalItem): string {
  if (item.kind === "message") return item.role ?? "message";
  if (item.kind === "tool_call") return "tool call";
  if (item.kind === "tool_result") return "tool result";
  return item.kind;
}

/** An item with the text streamed into it so far (before `item.completed`). */
export function renderItem(item: UniversalItem, streamed: string, time: string): HTMLElement {
  const markdown = item.kind === "message" || item.kind === "unknown" || item.kind === "system";
  const parts = item.content.map((part) => renderPart(part, markdown));
  const body: Child[] = parts;
  if (item.status === "in_progress" && streamed) {
    const reasoningOnly = item.content.length > 0 && item.content.every((part) => part.type === "reasoning");
    body.push(
      reasoningOnly || item.kind === "tool_result"
        ? h("pre", { class: "streaming text" }, streamed)
        : h("div", { class: "streaming" }, renderMarkdown(streamed)),
    );
  }
  return h(
    "article",
    {
      class: `item kind-${item.kind} role-${item.role ?? "none"} status-${item.status}`,
      "data-item-id": item.item_id,
    },
    h(
      "header",
      null,
      h("span", { class: "item-label" }, itemLabel(item)),
      item.status !== "completed" ? h("span", { class: `badge ${item.status}` }, item.status.replace("_", " ")) : null,
      h("span", { class: "muted time" }, time),
    ),
    h("div", { class: "item-body" }, body),
  );
}

/**
 * Whether an image part holds its image inline (a tool's screenshot): a `data:` URL of a PNG,
 * JPEG, GIF or WebP, which the page shows (its CSP allows `data:` images). Other paths are
 * files of the sandbox, named only.
 */
function inlineImage(path: string): boolean {
  return /^data:image\/(png|jpeg|gif|webp);base64,/.test(path);
}
