import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FLOW_BIN } from "../helpers/runFlow.js";
import { type ToolName, type ToolOutcome, toOutcome } from "../helpers/workspaceFixture.js";

// Regression: git_status and git_diff ran a submodule's own filter.process and textconv (git entered the
// submodule as a child with that repository's config, which the superproject's filter overrides did not
// cover); core.worktree=/outside made git_diff print a file from outside the root; a .git file with
// `gitdir:` outside the root made the tools read that other repository. Root cause: git was free to enter
// submodules, and the repository and work tree were whatever the repository's own files said.

let base: string;
let markers: string;
let evil: string;

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "Fixture",
  GIT_AUTHOR_EMAIL: "fixture@example.test",
  GIT_COMMITTER_NAME: "Fixture",
  GIT_COMMITTER_EMAIL: "fixture@example.test",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: GIT_ENV, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/** A repository with a.txt committed, then modified. */
function repo(dir: string, content = "one\n"): string {
  mkdirSync(dir, { recursive: true });
  git(dir, "init", "-q", "-b", "main");
  writeFileSync(join(dir, "a.txt"), content);
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "first");
  writeFileSync(join(dir, "a.txt"), `${content}changed\n`);
  return dir;
}

type Call = <N extends ToolName>(name: N, args?: Record<string, unknown>) => Promise<ToolOutcome<N>>;

/** Runs `use` with calls to the real `flow workspace-server --root <root>` over stdio. */
async function withServer<T>(root: string, use: (call: Call) => Promise<T>): Promise<T> {
  const client = new Client({ name: "git-escape-test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [FLOW_BIN, "workspace-server", "--root", root],
      env: { ...GIT_ENV } as Record<string, string>,
      stderr: "ignore",
    }),
  );
  try {
    return await use(async (name, args = {}) =>
      toOutcome(await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })),
    );
  } finally {
    await client.close();
  }
}

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), "meshflow-git-escape-"));
  markers = join(base, "markers");
  mkdirSync(markers);
  evil = join(base, "evil.sh");
  writeFileSync(evil, `#!/bin/sh\ntouch "${markers}/$1"\ncat\n`);
  chmodSync(evil, 0o755);
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe("the workspace server's git tools stay in the root's own repository", () => {
  it("never enters a submodule: its filter.process, clean filter and textconv never run", async () => {
    const sub = repo(join(base, "sub-origin"), "sub\n");
    git(sub, "checkout", "-q", "--", "a.txt");
    const root = repo(join(base, "super"));
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "sub");
    git(root, "commit", "-q", "-m", "submodule");
    // The submodule's own repository names programs; its files are then changed (git would compare them).
    const modules = join(root, ".git", "modules", "sub");
    mkdirSync(join(modules, "info"), { recursive: true });
    writeFileSync(join(modules, "info", "attributes"), "*.txt filter=evil diff=tc\n");
    git(modules, "config", "filter.evil.process", `${evil} sub-filter-process`);
    git(modules, "config", "filter.evil.clean", `${evil} sub-filter-clean`);
    git(modules, "config", "filter.evil.required", "true");
    git(modules, "config", "diff.tc.textconv", `${evil} sub-textconv`);
    // Same size, new content: git must read the file (through the filter) to know it changed.
    writeFileSync(join(root, "sub", "a.txt"), "SUB\n");
    // Proof the trap is armed: plain git status in the superproject runs the submodule's filter.
    expect(() => git(root, "status", "--porcelain")).toThrow(/failed in submodule sub/);
    expect(readdirSync(markers).length).toBeGreaterThan(0);
    for (const m of readdirSync(markers)) rmSync(join(markers, m));

    await withServer(root, async (call) => {
      const status = await call("git_status");
      expect(status.isError, status.text).toBe(false);
      expect(status.data.entries.map((e) => e.path)).toContain("a.txt");
      for (const args of [{}, { base: "HEAD" }]) {
        const diff = await call("git_diff", args);
        expect(diff.isError, diff.text).toBe(false);
        expect(diff.data.files.map((f) => f.path)).toEqual(["a.txt"]);
      }
    });
    expect(readdirSync(markers)).toEqual([]);
  });

  it("core.worktree=/outside: refused with repo_unsafe, the outside file is never shown", async () => {
    const outside = join(base, "wt-outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "a.txt"), "OUTSIDE-SECRET\n");
    const root = repo(join(base, "wt-root"));
    git(root, "config", "core.worktree", outside);
    const results = await withServer(root, async (call) => [await call("git_diff"), await call("git_status")]);
    for (const r of results) {
      expect(JSON.stringify(r)).not.toContain("OUTSIDE-SECRET");
      expect(r.isError, r.text).toBe(true);
      expect(r.data.code).toBe("repo_unsafe");
      expect(r.text).toContain(outside);
    }
  });

  it("a .git file with gitdir: outside the root: refused with repo_unsafe, that repository is never read", async () => {
    const other = repo(join(base, "other-project"), "OTHER-PROJECT-LINE\n");
    const root = join(base, "gitfile-root");
    mkdirSync(root);
    writeFileSync(join(root, ".git"), `gitdir: ${join(other, ".git")}\n`);
    writeFileSync(join(root, "a.txt"), "planted\n");
    const results = await withServer(root, async (call) => [
      await call("git_diff", { base: "HEAD" }),
      await call("git_status"),
    ]);
    for (const r of results) {
      expect(JSON.stringify(r)).not.toContain("OTHER-PROJECT-LINE");
      expect(r.isError, r.text).toBe(true);
      expect(r.data.code).toBe("repo_unsafe");
      expect(r.text).toContain(join(other, ".git"));
    }
  });

  it("a linked worktree (git worktree add) and a subfolder root still work", async () => {
    const main = repo(join(base, "main-repo"));
    git(main, "worktree", "add", "-q", join(base, "linked"), "-b", "side");
    writeFileSync(join(base, "linked", "a.txt"), "linked change\n");
    mkdirSync(join(main, "deep"));
    writeFileSync(join(main, "deep", "x.txt"), "x\n");
    const linked = await withServer(join(base, "linked"), (call) => call("git_diff"));
    expect(linked.isError, linked.text).toBe(false);
    expect(linked.data.files.map((f) => f.path)).toEqual(["a.txt"]);
    const deep = await withServer(join(main, "deep"), (call) => call("git_status"));
    expect(deep.isError, deep.text).toBe(false);
    expect(deep.data.entries.map((e) => e.path)).toEqual(["x.txt"]);
  });
});
