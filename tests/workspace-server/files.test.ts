import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectWorkspace,
  type FixtureWorkspace,
  makeWorkspace,
  type WorkspaceClient,
} from "../helpers/workspaceFixture.js";

let ws: FixtureWorkspace;
let c: WorkspaceClient;

beforeAll(async () => {
  ws = makeWorkspace();
  ws.write("src/keys.ts", 'const apiKey = "AKIAABCDEFGHIJKLMNOP";\nconst Token = "x";\n');
  ws.write("src/nested/.gitignore", "*.tmp\n!keep.tmp\n");
  ws.write("src/nested/drop.tmp", "dropped\n");
  ws.write("src/nested/keep.tmp", "kept\n");
  c = await connectWorkspace({ root: ws.root });
});
afterAll(async () => {
  await c?.close();
  ws?.cleanup();
});

const paths = (files: { path: string }[]) => files.map((f) => f.path);

describe("list_files", () => {
  it("lists files with sizes, sorted, skipping .git, node_modules and gitignored paths (nested rules too)", async () => {
    const r = await c.call("list_files");
    expect(r.isError).toBe(false);
    const listed = paths(r.data.files);
    expect(listed).toEqual([...listed].sort());
    expect(listed).toEqual(
      expect.arrayContaining(["README.md", "src/app.ts", "data/blob.bin", ".gitignore", "src/nested/keep.tmp"]),
    );
    for (const hidden of ["debug.log", "build/out.js", "src/nested/drop.tmp"]) expect(listed).not.toContain(hidden);
    expect(listed.some((p) => p.startsWith(".git/") || p.startsWith("node_modules/"))).toBe(false);
    expect(r.data.files.find((f) => f.path === "README.md")?.bytes).toBe(34);
    expect(r.data.skipped.alwaysSkippedFolders).toBe(2);
    expect(r.data.skipped.gitignored).toBe(3);
  });

  it("filters by glob: with '/' over paths, without it over file names", async () => {
    expect(paths((await c.call("list_files", { pattern: "src/*.ts" })).data.files)).toEqual([
      "src/app.ts",
      "src/keys.ts",
      "src/util.ts",
    ]);
    expect(paths((await c.call("list_files", { pattern: "*.md" })).data.files)).toEqual(["README.md"]);
    expect(paths((await c.call("list_files", { path: "src", pattern: "*.{tmp,md}" })).data.files)).toEqual([
      "src/nested/keep.tmp",
    ]);
  });

  it("includes gitignored files with respectGitignore: false, still never .git or node_modules", async () => {
    const listed = paths((await c.call("list_files", { respectGitignore: false })).data.files);
    expect(listed).toEqual(expect.arrayContaining(["debug.log", "build/out.js", "src/nested/drop.tmp"]));
    expect(listed.some((p) => p.startsWith("node_modules/"))).toBe(false);
  });

  it("stops at maxResults and at the server's maxFiles, saying it is truncated", async () => {
    const few = await c.call("list_files", { maxResults: 2 });
    expect(few.data.files).toHaveLength(2);
    expect(few.data.truncated).toBe(true);
    const small = await connectWorkspace({ root: ws.root, maxFiles: 3 });
    try {
      const r = await small.call("list_files");
      expect(r.data.examined).toBe(3);
      expect(r.data.truncated).toBe(true);
      expect(r.text).toContain("truncated");
    } finally {
      await small.close();
    }
  });

  it("refuses a missing folder with not_found", async () => {
    const r = await c.call("list_files", { path: "nope" });
    expect(r.data.code).toBe("not_found");
    expect(r.text).toContain('"nope"');
  });
});

describe("file_stats", () => {
  it("gives bytes and lines per file and totals; binary files have null lines", async () => {
    const r = await c.call("file_stats", { path: "src", pattern: "*.ts" });
    expect(r.isError).toBe(false);
    expect(r.data.files).toEqual([
      { path: "src/app.ts", bytes: 81, lines: 4, binary: false },
      { path: "src/keys.ts", bytes: 58, lines: 2, binary: false },
      { path: "src/util.ts", bytes: 57, lines: 3, binary: false },
    ]);
    expect(r.data.totals).toEqual({ files: 3, bytes: 196, lines: 9, binaryFiles: 0 });
    const bin = await c.call("file_stats", { path: "data/blob.bin" });
    expect(bin.data.files).toEqual([{ path: "data/blob.bin", bytes: 8, lines: null, binary: true }]);
    expect(bin.data.totals.binaryFiles).toBe(1);
  });

  it("counts a last line without a newline, and an empty file as 0 lines", async () => {
    ws.write("edge/no-newline.txt", "one\ntwo");
    ws.write("edge/empty.txt", "");
    const r = await c.call("file_stats", { path: "edge" });
    expect(r.data.files.map((f) => [f.path, f.lines])).toEqual([
      ["edge/empty.txt", 0],
      ["edge/no-newline.txt", 2],
    ]);
  });

  it("sorts largest first and limits the listing while totals cover every file", async () => {
    const r = await c.call("file_stats", { pattern: "*.ts", sortBy: "lines", limit: 1 });
    expect(paths(r.data.files)).toEqual(["src/app.ts"]);
    expect(r.data.totals.files).toBe(3);
    expect(r.text).toContain("2 more file(s) not listed");
  });
});

describe("read_file", () => {
  it("reads a whole file with its line count", async () => {
    const r = await c.call("read_file", { path: "src/app.ts" });
    expect(r.data).toMatchObject({
      path: "src/app.ts",
      startLine: 1,
      endLine: 4,
      totalLines: 4,
      truncated: false,
      nextStartLine: null,
    });
    expect(r.text).toBe("export const a = 1;\nexport const b = 20;\nexport const c = 3;\nexport const d = 4;\n");
  });

  it("reads a line range", async () => {
    const r = await c.call("read_file", { path: "src/app.ts", startLine: 2, endLine: 3 });
    expect(r.data.content).toBe("export const b = 20;\nexport const c = 3;\n");
    expect(r.data).toMatchObject({ startLine: 2, endLine: 3, totalLines: 4, nextStartLine: null });
  });

  it("caps what it returns at maxReadBytes and says where to continue", async () => {
    ws.write("big.txt", Array.from({ length: 1000 }, (_, i) => `line ${i + 1}`).join("\n"));
    const capped = await connectWorkspace({ root: ws.root, maxReadBytes: 100 });
    try {
      const r = await capped.call("read_file", { path: "big.txt" });
      expect(r.data.truncated).toBe(true);
      expect(Buffer.byteLength(r.data.content)).toBeLessThanOrEqual(100);
      expect(r.data.content.startsWith("line 1\nline 2\n")).toBe(true);
      expect(r.data.totalLines).toBe(1000);
      expect(r.data.nextStartLine).toBe(r.data.endLine + 1);
      expect(r.text).toContain(`continue with startLine ${r.data.endLine + 1}`);
      const next = await capped.call("read_file", { path: "big.txt", startLine: r.data.nextStartLine });
      expect(next.data.content.startsWith(`line ${r.data.nextStartLine}\n`)).toBe(true);
      const cut = await capped.call("read_file", { path: "big.txt", startLine: 1, maxBytes: 1000 });
      // maxBytes above the server's cap breaks the tool's input schema: the SDK refuses it before the tool runs.
      expect(cut.isError).toBe(true);
      expect(cut.text).toContain("Input validation error");
    } finally {
      await capped.close();
    }
  });

  it("cuts a single line longer than the cap instead of returning nothing", async () => {
    ws.write("minified.js", `${"x".repeat(5000)}\n`);
    const capped = await connectWorkspace({ root: ws.root, maxReadBytes: 100 });
    try {
      const r = await capped.call("read_file", { path: "minified.js" });
      expect(r.data.content).toBe("x".repeat(100));
      expect(r.data.truncated).toBe(true);
    } finally {
      await capped.close();
    }
  });

  it("refuses binary files, folders, missing files and bad ranges with their codes", async () => {
    expect((await c.call("read_file", { path: "data/blob.bin" })).data.code).toBe("binary_file");
    expect((await c.call("read_file", { path: "src" })).data.code).toBe("not_a_file");
    expect((await c.call("read_file", { path: "src/missing.ts" })).data.code).toBe("not_found");
    expect((await c.call("read_file", { path: "src/app.ts", startLine: 3, endLine: 2 })).data.code).toBe(
      "invalid_argument",
    );
    const past = await c.call("read_file", { path: "src/app.ts", startLine: 50 });
    expect(past.data.code).toBe("invalid_argument");
    expect(past.text).toContain("past the end of src/app.ts (4 lines)");
  });
});

describe("search_text", () => {
  it("returns path:line:column matches across the workspace", async () => {
    const r = await c.call("search_text", { regex: "AKIA[0-9A-Z]{16}" });
    expect(r.isError).toBe(false);
    expect(r.data.matches).toEqual([
      {
        path: "src/keys.ts",
        line: 1,
        column: 17,
        text: 'const apiKey = "AKIAABCDEFGHIJKLMNOP";',
        match: "AKIAABCDEFGHIJKLMNOP",
      },
    ]);
    expect(r.text).toContain('src/keys.ts:1:17: const apiKey = "AKIAABCDEFGHIJKLMNOP";');
    expect(r.data.skipped.binary).toBe(1);
  });

  it("is case-sensitive unless asked, and filters files by glob", async () => {
    const exact = await c.call("search_text", { regex: "token" });
    expect(exact.data.matches).toEqual([]);
    const loose = await c.call("search_text", { regex: "token", caseSensitive: false, pattern: "*.ts" });
    expect(loose.data.matches.map((m) => `${m.path}:${m.line}`)).toEqual(["src/keys.ts:2"]);
  });

  it("stops at maxResults with truncated: true", async () => {
    const r = await c.call("search_text", { regex: "export", maxResults: 2 });
    expect(r.data.matches).toHaveLength(2);
    expect(r.data.truncated).toBe(true);
  });

  it("refuses an invalid regular expression with invalid_pattern", async () => {
    const r = await c.call("search_text", { regex: "([unclosed" });
    expect(r.data.code).toBe("invalid_pattern");
    expect(r.text).toContain('"([unclosed"');
  });

  it("stops a catastrophically backtracking pattern with search_timeout and keeps serving", async () => {
    ws.write("redos.txt", `${"a".repeat(40)}b\n`);
    const quick = await connectWorkspace({ root: ws.root, timeoutMs: 500 });
    try {
      const r = await quick.call("search_text", { regex: "^(a+)+$", pattern: "redos.txt" });
      expect(r.isError).toBe(true);
      expect(r.data.code).toBe("search_timeout");
      expect(r.text).toContain("backtrack");
      const after = await quick.call("read_file", { path: "redos.txt" });
      expect(after.isError).toBe(false);
    } finally {
      await quick.close();
    }
  });
});

describe("tools/list", () => {
  it("describes every tool with all four annotations; only run_command is destructive", async () => {
    const { tools } = await c.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      ["file_stats", "git_diff", "git_status", "list_files", "read_file", "run_command", "search_text"].sort(),
    );
    for (const tool of tools) {
      expect(tool.description?.length ?? 0).toBeGreaterThan(100);
      const a = tool.annotations ?? {};
      for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const)
        expect([tool.name, hint, typeof a[hint]]).toEqual([tool.name, hint, "boolean"]);
      expect(a.destructiveHint).toBe(tool.name === "run_command");
      expect(a.readOnlyHint).toBe(tool.name !== "run_command");
      expect(a.openWorldHint).toBe(false);
    }
  });
});
