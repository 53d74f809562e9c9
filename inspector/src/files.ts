/**
 * The files page: a folder of the sandbox through the file API (`/v1/fs/*`), its entries with
 * their size and time, folders opened by a click, a file shown (text) or downloaded, files
 * uploaded into the folder, folders made, entries deleted. The folder is in the address
 * (`#/files?path=/abs/folder`); without one, the daemon's home (or its `--fs-root`).
 */
import { api } from "./api.js";
import { formatTime, h, replaceChildren } from "./dom.js";
import type { FsEntry, FsStat, FsWriteResponse } from "./types.js";
import { errorText, toast, type View } from "./view.js";

/** Largest file shown on the page; larger ones are only downloaded. */
const MAX_SHOWN = 1024 * 1024;

/** The address of the files page at `folder`. */
export function filesHref(folder: string): string {
  return `#/files?path=${encodeURIComponent(folder)}`;
}

/** A path query parameter. */
function query(path: string): string {
  return `path=${encodeURIComponent(path)}`;
}

/** `name` in `folder`. */
function child(folder: string, name: string): string {
  return folder.endsWith("/") ? `${folder}${name}` : `${folder}/${name}`;
}

/** The folder that holds `path` (the root holds itself). */
function parent(path: string): string {
  const cut = path.replace(/\/+$/, "").lastIndexOf("/");
  return cut <= 0 ? "/" : path.slice(0, cut);
}

/** A size in bytes, short. */
function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** The file at `path` as a blob. */
async function read(path: string): Promise<Blob> {
  const { response } = await api.send("GET", `/v1/fs/file?${query(path)}`, { accept: "application/octet-stream" });
  return response.blob();
}

/** Saves the file at `path` through the browser (the token cannot ride on a plain link). */
async function download(path: string): Promise<void> {
  const blob = await read(path);
  const url = URL.createObjectURL(blob);
  const link = h("a", { href: url, download: path.slice(path.lastIndexOf("/") + 1) || "download" });
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Whether `bytes` read as text: UTF-8 without NUL characters. */
function asText(bytes: ArrayBuffer): string | undefined {
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return text.includes("\u0000") ? undefined : text;
  } catch {
    return undefined;
  }
}

/** The files page, opened at `folder` (the home when absent). */
export function filesView(folder: string | undefined): View {
  const element = h("div", { class: "files" });
  const shown = h("section", { class: "file-view", "data-testid": "file-view" });
  let current = folder ?? "";

  const go = (path: string) => {
    const href = filesHref(path);
    if (location.hash !== href) location.hash = href;
    else void load();
  };

  const show = async (entry: FsEntry) => {
    replaceChildren(shown, h("p", { class: "muted" }, `Reading ${entry.path}…`));
    const header = h(
      "div",
      { class: "file-view-head" },
      h("h3", { "data-testid": "file-view-name" }, entry.name),
      h("span", { class: "muted" }, `${size(entry.size)} · ${formatTime(entry.modified ?? undefined)}`),
      h("button", { onclick: () => void download(entry.path).catch((error) => toast(errorText(error), "error")) }, "Download"),
    );
    if (entry.size > MAX_SHOWN) {
      replaceChildren(shown, header, h("p", { class: "muted" }, `Larger than ${size(MAX_SHOWN)}: download it to read it.`));
      return;
    }
    try {
      const text = asText(await (await read(entry.path)).arrayBuffer());
      replaceChildren(
        shown,
        header,
        text === undefined
          ? h("p", { class: "muted", "data-testid": "file-binary" }, "Not text: download it to read it.")
          : h("pre", { class: "file-text", "data-testid": "file-text" }, text),
      );
    } catch (error) {
      replaceChildren(shown, header, h("p", { class: "error" }, errorText(error)));
    }
  };

  const remove = async (entry: FsEntry) => {
    const folderToo = entry.entryType === "directory";
    if (!confirm(`Delete ${entry.path}${folderToo ? " and everything in it" : ""}?`)) return;
    try {
      await api.json("DELETE", `/v1/fs/entry?${query(entry.path)}${folderToo ? "&recursive=true" : ""}`);
      toast(`Deleted ${entry.path}`);
      await load();
    } catch (error) {
      toast(errorText(error), "error");
    }
  };

  const upload = async (files: FileList | null) => {
    for (const file of Array.from(files ?? [])) {
      const path = child(current, file.name);
      try {
        const { response } = await api.send("PUT", `/v1/fs/file?${query(path)}`, { raw: file });
        const written = (await response.json()) as FsWriteResponse;
        toast(`Uploaded ${written.path} (${size(written.bytesWritten)})`);
      } catch (error) {
        toast(`${file.name}: ${errorText(error)}`, "error");
      }
    }
    await load();
  };

  const makeFolder = async (name: string) => {
    if (!name) return;
    try {
      await api.json("POST", `/v1/fs/mkdir?${query(child(current, name))}`);
      await load();
    } catch (error) {
      toast(errorText(error), "error");
    }
  };

  const crumbs = (path: string) => {
    const parts = path.split("/").filter((part) => part !== "");
    return h(
      "nav",
      { class: "crumbs", "data-testid": "files-crumbs" },
      h("a", { href: filesHref("/") }, "/"),
      parts.map((part, index) => [
        index > 0 ? " / " : "",
        h("a", { href: filesHref(`/${parts.slice(0, index + 1).join("/")}`) }, part),
      ]),
    );
  };

  const table = (entries: FsEntry[]) => {
    if (entries.length === 0) return h("p", { class: "muted", "data-testid": "files-empty" }, "An empty folder.");
    return h(
      "table",
      { class: "files-table", "data-testid": "files-table" },
      h("thead", null, h("tr", null, ["name", "size", "modified", ""].map((name) => h("th", null, name)))),
      h(
        "tbody",
        null,
        entries.map((entry) => {
          const folderEntry = entry.entryType === "directory";
          const name = folderEntry
            ? h("a", { href: filesHref(entry.path) }, `${entry.name}/`)
            : h("button", { class: "link", onclick: () => void show(entry) }, entry.name);
          return h(
            "tr",
            { "data-path": entry.path },
            h("td", null, name, entry.kind === "symlink" ? h("span", { class: "badge" }, "link") : null),
            h("td", { class: "num" }, folderEntry ? "" : size(entry.size)),
            h("td", null, formatTime(entry.modified ?? undefined)),
            h(
              "td",
              { class: "row-actions" },
              folderEntry
                ? null
                : h("button", { onclick: () => void download(entry.path).catch((error) => toast(errorText(error), "error")) }, "Download"),
              h("button", { class: "danger", onclick: () => void remove(entry) }, "Delete"),
            ),
          );
        }),
      ),
    );
  };

  const load = async () => {
    replaceChildren(element, h("h2", null, "Files"), h("p", { class: "muted" }, "Loading…"));
    try {
      if (!current) current = (await api.json<FsStat>("GET", `/v1/fs/stat?${query(".")}`)).path;
      const entries = await api.json<FsEntry[]>("GET", `/v1/fs/entries?${query(current)}`);
      entries.sort((a, b) => Number(b.entryType === "directory") - Number(a.entryType === "directory") || a.name.localeCompare(b.name));
      const path = h("input", { name: "path", value: current, "data-testid": "files-path", size: 60 });
      const folderName = h("input", { name: "folder", placeholder: "new folder", "data-testid": "files-folder-name" });
      const picker = h("input", { type: "file", multiple: true, "data-testid": "files-upload", onchange: () => void upload(picker.files) });
      replaceChildren(
        element,
        h("h2", null, "Files"),
        h(
          "form",
          { class: "files-open", onsubmit: (event: Event) => (event.preventDefault(), go(path.value.trim() || "/")) },
          path,
          h("button", { type: "submit" }, "Open"),
          h("button", { type: "button", onclick: () => go(parent(current)), disabled: current === "/" }, "Up"),
        ),
        crumbs(current),
        table(entries),
        h(
          "div",
          { class: "files-tools" },
          h("label", null, "Upload into this folder: ", picker),
          h(
            "form",
            { onsubmit: (event: Event) => (event.preventDefault(), void makeFolder(folderName.value.trim())) },
            folderName,
            h("button", { type: "submit" }, "Make folder"),
          ),
        ),
        shown,
      );
    } catch (error) {
      replaceChildren(
        element,
        h("h2", null, "Files"),
        crumbs(current || "/"),
        h("p", { class: "error", "data-testid": "files-error" }, errorText(error)),
        h("button", { onclick: () => go(parent(current || "/")) }, "Up"),
      );
    }
  };

  void load();
  return { title: "Files", element };
}
