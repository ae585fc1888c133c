import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectWorkspace,
  type FixtureWorkspace,
  makeWorkspace,
  type WorkspaceClient,
  writeScript,
} from "../helpers/workspaceFixture.js";

let ws: FixtureWorkspace;
let c: WorkspaceClient;

beforeAll(async () => {
  ws = makeWorkspace();
  c = await connectWorkspace({ root: ws.root });
});
afterAll(async () => {
  await c?.close();
  ws?.cleanup();
});

const byPath = <T extends { path: string }>(entries: T[]): Record<string, T> =>
  Object.fromEntries(entries.map((e) => [e.path, e]));

describe("git_status", () => {
  it("lists branch, commit and every changed path relative to the root", async () => {
    const r = await c.call("git_status");
    expect(r.isError).toBe(false);
    expect(r.data.branch).toBe("main");
    expect(r.data.commit).toBe(ws.git("rev-parse", "HEAD").trim());
    expect(r.data.clean).toBe(false);
    const entries = byPath(r.data.entries);
    expect(entries["src/app.ts"]).toMatchObject({ status: "modified", index: ".", worktree: "M" });
    expect(entries["src/util.ts"]).toMatchObject({ status: "modified", index: "M", worktree: "." });
    expect(entries["notes.txt"]).toMatchObject({ status: "untracked" });
    // Ignored files are not changes.
    expect(entries["debug.log"]).toBeUndefined();
    expect(r.text).toContain("On branch main");
    expect(r.text).toContain(".M src/app.ts");
    expect(r.text).toContain("?? notes.txt");
  });

  it("reports renames with the original path", async () => {
    const other = makeWorkspace();
    try {
      other.git("mv", "README.md", "GUIDE.md");
      const client = await connectWorkspace({ root: other.root });
      const r = await client.call("git_status");
      await client.close();
      expect(byPath(r.data.entries)["GUIDE.md"]).toMatchObject({
        status: "renamed",
        origPath: "README.md",
        index: "R",
      });
    } finally {
      other.cleanup();
    }
  });

  it("gives paths relative to the root when the root is a folder inside the repository", async () => {
    const sub = await connectWorkspace({ root: join(ws.root, "src") });
    try {
      const r = await sub.call("git_status");
      expect(r.isError).toBe(false);
      expect(r.data.rootInRepository).toBe("src/");
      expect(r.data.entries.map((e) => e.path).sort()).toEqual(["app.ts", "util.ts"]);
    } finally {
      await sub.close();
    }
  });

  it("fails with not_a_git_repo, naming the root, outside any repository", async () => {
    const plain = mkdtempSync(join(tmpdir(), "meshflow-nogit-"));
    const client = await connectWorkspace({ root: plain });
    try {
      for (const tool of ["git_status", "git_diff"] as const) {
        const r = await client.call(tool);
        expect(r.isError).toBe(true);
        expect(r.data.code).toBe("not_a_git_repo");
        expect(r.text).toContain(plain);
      }
    } finally {
      await client.close();
      rmSync(plain, { recursive: true, force: true });
    }
  });

  it("does not run a hook the repository configures as core.fsmonitor, and leaves the index alone", async () => {
    const hooked = makeWorkspace();
    try {
      const marker = join(hooked.root, "fsmonitor-ran");
      writeScript(hooked, "hook.js", `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran');`);
      hooked.git("config", "core.fsmonitor", join(hooked.root, "hook.js"));
      // Plain git commands would run the hook from here on: compare the index file's bytes instead.
      const index = join(hooked.root, ".git", "index");
      // A tracked file whose stat data changed but content did not: a writing status would refresh the index.
      const later = new Date(Date.now() + 60_000);
      utimesSync(join(hooked.root, "README.md"), later, later);
      const before = readFileSync(index);
      const client = await connectWorkspace({ root: hooked.root });
      const r = await client.call("git_status");
      await client.close();
      expect(r.isError).toBe(false);
      expect(byPath(r.data.entries)["src/app.ts"]).toMatchObject({ status: "modified" });
      expect(existsSync(marker)).toBe(false);
      expect(readFileSync(index).equals(before)).toBe(true);
    } finally {
      hooked.cleanup();
    }
  });
});

describe("git_diff", () => {
  it("shows unstaged changes as a patch with per-file counts", async () => {
    const r = await c.call("git_diff");
    expect(r.isError).toBe(false);
    expect(r.data.files).toEqual([{ path: "src/app.ts", additions: 2, deletions: 1, binary: false }]);
    expect(r.data.totals).toEqual({ files: 1, additions: 2, deletions: 1 });
    expect(r.data.patch).toContain("-export const b = 2;");
    expect(r.data.patch).toContain("+export const d = 4;");
    expect(r.data.truncated).toBe(false);
    expect(r.text).toContain("1 file(s) changed (unstaged changes), +2 -1");
  });

  it("shows staged changes with staged: true", async () => {
    const r = await c.call("git_diff", { staged: true });
    expect(r.data.files.map((f) => f.path)).toEqual(["src/util.ts"]);
    expect(r.data.patch).toContain("+  return x; // staged");
  });

  it("compares against a revision with base, limited to paths", async () => {
    const r = await c.call("git_diff", { base: "HEAD", paths: ["src/util.ts"] });
    expect(r.data.files.map((f) => f.path)).toEqual(["src/util.ts"]);
    expect(r.data.base).toBe("HEAD");
    const none = await c.call("git_diff", { paths: ["README.md"] });
    expect(none.data.files).toEqual([]);
    expect(none.text).toContain("no unstaged changes");
  });

  it("refuses an unknown revision and one that looks like an option", async () => {
    const unknown = await c.call("git_diff", { base: "no-such-branch" });
    expect(unknown.data.code).toBe("revision_not_found");
    expect(unknown.text).toContain('"no-such-branch"');
    const option = await c.call("git_diff", { base: "--output=/tmp/pwned" });
    expect(option.data.code).toBe("invalid_argument");
  });

  it("cuts a long patch at maxOutputBytes with a marker while the counts stay complete", async () => {
    const big = makeWorkspace();
    try {
      big.write("src/app.ts", `${Array.from({ length: 2000 }, (_, i) => `export const v${i} = ${i};`).join("\n")}\n`);
      const client = await connectWorkspace({ root: big.root, maxOutputBytes: 2000 });
      const r = await client.call("git_diff");
      await client.close();
      expect(r.data.truncated).toBe(true);
      expect(r.data.files[0]).toMatchObject({ path: "src/app.ts", additions: 2000 });
      expect(r.data.patch).toMatch(/\[… diff truncated: \d+ more bytes of \d+; narrow it with paths …\]$/);
      expect(r.data.patchBytes).toBeGreaterThan(2000);
    } finally {
      big.cleanup();
    }
  });

  it("never runs an external diff program the repository configures", async () => {
    const hooked = makeWorkspace();
    try {
      const marker = join(hooked.root, "extdiff-ran");
      writeScript(hooked, "extdiff.js", `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran');`);
      hooked.git("config", "diff.external", join(hooked.root, "extdiff.js"));
      const client = await connectWorkspace({ root: hooked.root });
      const r = await client.call("git_diff");
      await client.close();
      expect(r.data.patch).toContain("+export const d = 4;");
      expect(existsSync(marker)).toBe(false);
    } finally {
      hooked.cleanup();
    }
  });
});
