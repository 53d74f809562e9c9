/** The filesystem routes (`/v1/fs/*`), against the real daemon with its own `HOME`. */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, Agentplex, AgentplexError } from "../src/index.js";
import { failure, startDaemon, uniqueId, type Daemon } from "./helpers.js";

let home: string;
let daemon: Daemon;
let client: Agentplex;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "agentplex-sdk-home-"));
  daemon = await startDaemon({ home });
  client = await connect({ baseUrl: daemon.baseUrl });
});
afterAll(async () => {
  await daemon?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

/** A fresh directory under the daemon's home, by its relative and absolute paths. */
function scratch(): { rel: string; abs: string } {
  const rel = uniqueId("fs");
  return { rel, abs: join(home, rel) };
}

/** A stream of `bytes` in `chunkSize` pieces, pulled as fetch reads it. */
function streamOf(bytes: Uint8Array, chunkSize = 64 * 1024): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + chunkSize));
      offset += chunkSize;
    },
  });
}

/** Reads a stream to its end, into one buffer. */
async function drain(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** One tar member: a file with content, or a directory (name ending in `/`). */
interface TarMember {
  name: string;
  content?: string | Uint8Array;
}

/** A ustar archive: a 512-byte header per member, its data padded to 512, two zero blocks. */
function tar(members: TarMember[]): Uint8Array {
  const blocks: Buffer[] = [];
  for (const member of members) {
    const dir = member.name.endsWith("/");
    const data = Buffer.from(member.content ?? "");
    const header = Buffer.alloc(512);
    const field = (offset: number, length: number, value: string) => header.write(value, offset, length, "ascii");
    const octal = (offset: number, length: number, value: number) =>
      field(offset, length, value.toString(8).padStart(length - 1, "0") + "\0");
    field(0, 100, member.name);
    octal(100, 8, dir ? 0o755 : 0o644); // mode
    octal(108, 8, 0); // uid
    octal(116, 8, 0); // gid
    octal(124, 12, dir ? 0 : data.length); // size
    octal(136, 12, Math.floor(Date.now() / 1000)); // mtime
    field(148, 8, " ".repeat(8)); // checksum, as spaces while summing
    field(156, 1, dir ? "5" : "0"); // typeflag
    field(257, 6, "ustar\0");
    field(263, 2, "00");
    let sum = 0;
    for (const byte of header) sum += byte;
    field(148, 8, sum.toString(8).padStart(6, "0") + "\0 ");
    blocks.push(header);
    if (!dir && data.length > 0) {
      blocks.push(data, Buffer.alloc((512 - (data.length % 512)) % 512));
    }
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

describe("files", () => {
  it("writes and reads back strings, bytes, ArrayBuffers and Blobs, creating parents", async () => {
    const dir = scratch();
    const written = await client.writeFsFile({ path: `${dir.rel}/a/b/notes.md` }, "héllo\n");
    expect(written).toEqual({ path: join(dir.abs, "a/b/notes.md"), bytesWritten: 7 });
    expect(readFileSync(join(dir.abs, "a/b/notes.md"), "utf8")).toBe("héllo\n");
    const read = await client.readFsFile({ path: `${dir.rel}/a/b/notes.md` });
    expect(read).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(read)).toBe("héllo\n");

    const binary = new Uint8Array([0, 1, 2, 253, 254, 255]);
    const forms = [binary, binary.buffer.slice(0), new Blob([binary]), new Uint8Array([9, ...binary, 9]).subarray(1, 7)];
    for (const [i, body] of forms.entries()) {
      const path = join(dir.abs, `bin-${i}`);
      expect(await client.writeFsFile({ path }, body)).toEqual({ path, bytesWritten: 6 });
      expect(await client.readFsFile({ path })).toEqual(binary);
    }

    // An empty file, and overwriting a file with a shorter one.
    await client.writeFsFile({ path: join(dir.abs, "bin-0") }, new Uint8Array());
    expect((await client.readFsFile({ path: join(dir.abs, "bin-0") })).length).toBe(0);
  });

  it("streams a few MiB of binary both ways through ReadableStreams", async () => {
    const dir = scratch();
    const bytes = randomBytes(5 * 1024 * 1024 + 123);
    const written = await client.writeFsFile({ path: `${dir.rel}/big.bin` }, streamOf(bytes));
    expect(written).toEqual({ path: join(dir.abs, "big.bin"), bytesWritten: bytes.length });
    expect(readFileSync(join(dir.abs, "big.bin")).equals(bytes)).toBe(true);

    const stream = await client.readFsFileStream({ path: `${dir.rel}/big.bin` });
    expect((await drain(stream)).equals(bytes)).toBe(true);
    expect(Buffer.from(await client.readFsFile({ path: join(dir.abs, "big.bin") })).equals(bytes)).toBe(true);
  });

  it("lists entries sorted by name, the home directory without a path", async () => {
    const dir = scratch();
    await client.writeFsFile({ path: `${dir.rel}/b.txt` }, "bb");
    await client.writeFsFile({ path: `${dir.rel}/a.txt` }, "a");
    await client.mkdirFs({ path: `${dir.rel}/c` });
    const entries = await client.listFsEntries({ path: dir.rel });
    expect(entries.map(({ modified, ...rest }) => rest)).toEqual([
      { name: "a.txt", path: join(dir.abs, "a.txt"), entryType: "file", kind: "file", size: 1 },
      { name: "b.txt", path: join(dir.abs, "b.txt"), entryType: "file", kind: "file", size: 2 },
      { name: "c", path: join(dir.abs, "c"), entryType: "directory", kind: "directory", size: expect.any(Number) },
    ]);
    for (const entry of entries) expect(Number.isNaN(Date.parse(entry.modified!))).toBe(false);

    const top = await client.listFsEntries();
    expect(top.find((e) => e.name === dir.rel)).toMatchObject({ path: dir.abs, entryType: "directory" });
  });

  it("stats files and directories", async () => {
    const dir = scratch();
    await client.writeFsFile({ path: `${dir.rel}/f.txt` }, "four");
    const file = await client.statFs({ path: `${dir.rel}/f.txt` });
    expect(file).toMatchObject({ path: join(dir.abs, "f.txt"), entryType: "file", size: 4 });
    expect(Math.abs(Date.parse(file.modified!) - Date.now())).toBeLessThan(60_000);
    expect(await client.statFs({ path: dir.abs })).toMatchObject({ path: dir.abs, entryType: "directory" });
  });

  it("makes directories with their parents; an existing one is fine", async () => {
    const dir = scratch();
    expect(await client.mkdirFs({ path: `${dir.rel}/x/y/z` })).toEqual({ path: join(dir.abs, "x/y/z") });
    expect(await client.mkdirFs({ path: `${dir.rel}/x/y/z` })).toEqual({ path: join(dir.abs, "x/y/z") });
    expect(existsSync(join(dir.abs, "x/y/z"))).toBe(true);
    await client.writeFsFile({ path: `${dir.rel}/file` }, "x");
    expect(await failure(client.mkdirFs({ path: `${dir.rel}/file` }))).toMatchObject({ status: 409 });
  });

  it("moves, refusing to replace an existing target without overwrite", async () => {
    const dir = scratch();
    await client.writeFsFile({ path: `${dir.rel}/a.txt` }, "from a");
    await client.writeFsFile({ path: `${dir.rel}/b.txt` }, "from b");

    const conflict = await failure(client.moveFs({ from: `${dir.rel}/a.txt`, to: `${dir.rel}/b.txt` }));
    expect(conflict).toMatchObject({
      type: "urn:sandbox-agent:error:path_conflict",
      code: "path_conflict",
      status: 409,
      title: "Conflict",
    });
    expect(AgentplexError.is(conflict, "path_conflict")).toBe(true);
    expect(conflict.problem).toMatchObject({ status: 409 });
    expect(readFileSync(join(dir.abs, "b.txt"), "utf8")).toBe("from b");

    const moved = await client.moveFs({ from: `${dir.rel}/a.txt`, to: `${dir.rel}/b.txt`, overwrite: true });
    expect(moved).toEqual({ from: join(dir.abs, "a.txt"), to: join(dir.abs, "b.txt") });
    expect(existsSync(join(dir.abs, "a.txt"))).toBe(false);
    expect(readFileSync(join(dir.abs, "b.txt"), "utf8")).toBe("from a");

    // A rename into new parents.
    await client.moveFs({ from: join(dir.abs, "b.txt"), to: join(dir.abs, "new/dir/c.txt") });
    expect(readFileSync(join(dir.abs, "new/dir/c.txt"), "utf8")).toBe("from a");
  });

  it("deletes files, and non-empty directories only when recursive", async () => {
    const dir = scratch();
    await client.writeFsFile({ path: `${dir.rel}/tree/sub/leaf.txt` }, "leaf");
    await client.writeFsFile({ path: `${dir.rel}/single.txt` }, "one");
    await client.mkdirFs({ path: `${dir.rel}/empty` });

    expect(await client.deleteFsEntry({ path: `${dir.rel}/single.txt` })).toEqual({ path: join(dir.abs, "single.txt") });
    expect(existsSync(join(dir.abs, "single.txt"))).toBe(false);
    expect(await client.deleteFsEntry({ path: `${dir.rel}/empty` })).toEqual({ path: join(dir.abs, "empty") });

    const notEmpty = await failure(client.deleteFsEntry({ path: `${dir.rel}/tree` }));
    expect(notEmpty).toMatchObject({ code: "path_conflict", status: 409 });
    expect(await failure(client.deleteFsEntry({ path: `${dir.rel}/tree`, recursive: false }))).toMatchObject({
      code: "path_conflict",
    });
    expect(existsSync(join(dir.abs, "tree/sub/leaf.txt"))).toBe(true);

    expect(await client.deleteFsEntry({ path: `${dir.rel}/tree`, recursive: true })).toEqual({
      path: join(dir.abs, "tree"),
    });
    expect(existsSync(join(dir.abs, "tree"))).toBe(false);
  });

  it("maps missing paths and wrong kinds to typed problems", async () => {
    const dir = scratch();
    const missing = await failure(client.readFsFile({ path: `${dir.rel}/nope.txt` }));
    expect(missing).toMatchObject({
      type: "urn:sandbox-agent:error:path_not_found",
      code: "path_not_found",
      status: 404,
      title: "Not Found",
    });
    expect(missing.detail).toContain("nope.txt");
    expect(AgentplexError.is(missing, "path_not_found")).toBe(true);
    for (const call of [
      () => client.readFsFileStream({ path: `${dir.rel}/nope.txt` }),
      () => client.statFs({ path: `${dir.rel}/nope.txt` }),
      () => client.listFsEntries({ path: `${dir.rel}/nope` }),
      () => client.deleteFsEntry({ path: `${dir.rel}/nope.txt` }),
      () => client.moveFs({ from: `${dir.rel}/nope.txt`, to: `${dir.rel}/other.txt` }),
    ]) {
      expect(await failure(call())).toMatchObject({ code: "path_not_found", status: 404 });
    }

    await client.mkdirFs({ path: dir.rel });
    // A directory where a file is needed conflicts with what is there.
    expect(await failure(client.readFsFile({ path: dir.rel }))).toMatchObject({ code: "path_conflict", status: 409 });
    expect(await failure(client.statFs({ path: "" }))).toMatchObject({ code: "invalid_request", status: 400 });
  });

  it("resolves relative paths against a session's directory", async () => {
    const workdir = mkdtempSync(join(tmpdir(), "agentplex-sdk-workdir-"));
    try {
      const session = await client.createSession(uniqueId("fs"), { agent: "mock", directory: workdir });
      const written = await client.writeFsFile({ path: "src/notes.md", sessionId: session.id }, "in the session");
      expect(written.path).toBe(join(workdir, "src/notes.md"));
      expect(readFileSync(join(workdir, "src/notes.md"), "utf8")).toBe("in the session");
      expect(existsSync(join(home, "src/notes.md"))).toBe(false);

      const entries = await client.listFsEntries({ sessionId: session.id });
      expect(entries.map((e) => e.path)).toEqual([join(workdir, "src")]);
      expect(await client.statFs({ path: "src/notes.md", sessionId: session.id })).toMatchObject({ size: 14 });
      await client.moveFs({ from: "src/notes.md", to: "docs/notes.md" }, { sessionId: session.id });
      expect(existsSync(join(workdir, "docs/notes.md"))).toBe(true);
      const uploaded = await client.uploadFsBatch(tar([{ name: "up.txt", content: "up" }]), { sessionId: session.id });
      expect(uploaded.paths).toEqual([join(workdir, "up.txt")]);

      const unknown = await failure(client.readFsFile({ path: "docs/notes.md", sessionId: "no-such-session" }));
      expect(unknown).toMatchObject({ code: "session_not_found", status: 404 });
      // An absolute path ignores the session.
      const absolute = join(workdir, "docs/notes.md");
      expect(await client.statFs({ path: absolute, sessionId: "no-such-session" })).toMatchObject({ path: absolute });
    } finally {
      rmSync(workdir, { recursive: true, force: true });
    }
  });

  it("uploads tar archives, plain and gzip, into a created directory", async () => {
    const dir = scratch();
    const archive = tar([
      { name: "repo/" },
      { name: "repo/README.md", content: "# repo\n" },
      { name: "repo/src/" },
      { name: "repo/src/main.rs", content: "fn main() {}\n".repeat(100) },
      { name: "top.bin", content: new Uint8Array([0, 255, 0, 255]) },
    ]);
    const result = await client.uploadFsBatch(archive, { path: `${dir.rel}/plain` });
    const target = join(dir.abs, "plain");
    expect(result).toEqual({
      paths: ["repo", "repo/README.md", "repo/src", "repo/src/main.rs", "top.bin"].map((p) => join(target, p)),
      truncated: false,
    });
    expect(readFileSync(join(target, "repo/README.md"), "utf8")).toBe("# repo\n");
    expect(readFileSync(join(target, "repo/src/main.rs"), "utf8")).toBe("fn main() {}\n".repeat(100));
    expect([...readFileSync(join(target, "top.bin"))]).toEqual([0, 255, 0, 255]);

    // Gzip is recognised by its magic bytes; a stream body works too. Existing files are replaced.
    const gz = gzipSync(tar([{ name: "repo/README.md", content: "# replaced\n" }]));
    const again = await client.uploadFsBatch(streamOf(gz, 100), { path: target });
    expect(again.paths).toEqual([join(target, "repo/README.md")]);
    expect(readFileSync(join(target, "repo/README.md"), "utf8")).toBe("# replaced\n");
    expect(existsSync(join(target, "repo/src/main.rs"))).toBe(true);
  });

  it("refuses a whole archive with an entry that climbs out, writing nothing", async () => {
    const dir = scratch();
    mkdirSync(dir.abs);
    writeFileSync(join(dir.abs, "keep.txt"), "kept");
    const evil = tar([
      { name: "fine.txt", content: "fine" },
      { name: "../escaped.txt", content: "nope" },
    ]);
    const refused = await failure(client.uploadFsBatch(evil, { path: `${dir.rel}/target` }));
    expect(refused).toMatchObject({ code: "invalid_request", status: 400 });
    expect(existsSync(join(dir.abs, "target/fine.txt"))).toBe(false);
    expect(existsSync(join(dir.abs, "escaped.txt"))).toBe(false);

    const notTar = await failure(client.uploadFsBatch("this is not an archive", { path: `${dir.rel}/target` }));
    expect(notTar).toMatchObject({ code: "invalid_request", status: 400 });
  });

  it("aborts a read with the caller's reason", async () => {
    const dir = scratch();
    await client.writeFsFile({ path: `${dir.rel}/f` }, "x");
    const controller = new AbortController();
    const reason = new Error("stop");
    controller.abort(reason);
    await expect(client.readFsFile({ path: `${dir.rel}/f` }, { signal: controller.signal })).rejects.toBe(reason);
  });
});

describe("files over --fs-max-bytes", () => {
  let small: Daemon;
  let smallClient: Agentplex;
  beforeAll(async () => {
    small = await startDaemon({ home, env: { SANDBOX_AGENT_FS_MAX_BYTES: "1024" } });
    smallClient = new Agentplex({ baseUrl: small.baseUrl });
  });
  afterAll(() => small?.stop());

  // Small bodies: a body far over the limit may still be in flight when the daemon answers and
  // closes the connection, which Node's fetch reports as a network error instead of the 413.
  it("refuses a larger body with payload_too_large and keeps the old file", async () => {
    const dir = scratch();
    await smallClient.writeFsFile({ path: `${dir.rel}/f` }, "old");
    const declared = await failure(smallClient.writeFsFile({ path: `${dir.rel}/f` }, new Uint8Array(1500)));
    expect(declared).toMatchObject({ code: "payload_too_large", status: 413, title: "Payload Too Large" });
    const streamed = await failure(smallClient.writeFsFile({ path: `${dir.rel}/f` }, streamOf(new Uint8Array(1500), 500)));
    expect(streamed).toMatchObject({ code: "payload_too_large", status: 413 });
    expect(readFileSync(join(dir.abs, "f"), "utf8")).toBe("old");
  });
});
