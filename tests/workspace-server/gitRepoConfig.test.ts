import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectWorkspace } from "../helpers/workspaceFixture.js";

// Regression: git_diff in a partial clone with a crafted remote.origin.uploadpack ran that command
// (a lazy fetch of a missing blob), and filter drivers ran as git compared work-tree files. Root cause:
// git was run with the repository's own config in force. Each repository below names a program that
// writes a marker file if it ever runs; after git_status and git_diff no marker may exist.

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

/** A repository with two commits of a.txt and b.txt, a.txt then modified (same size, new content). */
function repo(name: string): string {
  const dir = join(base, name);
  mkdirSync(dir);
  git(dir, "init", "-q", "-b", "main");
  writeFileSync(join(dir, "a.txt"), "one\n");
  writeFileSync(join(dir, "b.txt"), "bee\n");
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "first");
  writeFileSync(join(dir, "a.txt"), "two\n");
  writeFileSync(join(dir, "b.txt"), "bee bee\n");
  git(dir, "commit", "-q", "-am", "second");
  writeFileSync(join(dir, "a.txt"), "six\n");
  return dir;
}

/** A command line that writes markers/<what> when run (and passes stdin through, for filters). */
const cmd = (what: string): string => `${evil} ${what}`;

const SETUPS: Record<string, (dir: string) => void> = {
  "diff driver": (dir) => {
    writeFileSync(join(dir, ".git", "info", "attributes"), "*.txt diff=evil\n");
    git(dir, "config", "diff.evil.command", cmd("diff-driver"));
  },
  textconv: (dir) => {
    writeFileSync(join(dir, ".git", "info", "attributes"), "*.txt diff=tc\n");
    git(dir, "config", "diff.tc.textconv", cmd("textconv"));
  },
  "external diff": (dir) => git(dir, "config", "diff.external", cmd("external-diff")),
  fsmonitor: (dir) => git(dir, "config", "core.fsmonitor", cmd("fsmonitor")),
  hooks: (dir) => {
    const hooks = join(dir, "my-hooks");
    mkdirSync(hooks);
    for (const hook of [
      "post-index-change",
      "post-checkout",
      "pre-commit",
      "reference-transaction",
      "fsmonitor-watchman",
    ]) {
      writeFileSync(join(hooks, hook), `#!/bin/sh\n${cmd(`hook-${hook}`)}\n`);
      chmodSync(join(hooks, hook), 0o755);
      writeFileSync(join(dir, ".git", "hooks", hook), `#!/bin/sh\n${cmd(`hook-${hook}`)}\n`);
      chmodSync(join(dir, ".git", "hooks", hook), 0o755);
    }
    git(dir, "config", "core.hooksPath", hooks);
  },
  "filter process": (dir) => {
    writeFileSync(join(dir, ".git", "info", "attributes"), "*.txt filter=evil\n");
    git(dir, "config", "filter.evil.clean", cmd("filter-clean"));
    git(dir, "config", "filter.evil.smudge", cmd("filter-smudge"));
    git(dir, "config", "filter.evil.process", cmd("filter-process"));
    git(dir, "config", "filter.evil.required", "true");
  },
};

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), "meshflow-gitcfg-"));
  markers = join(base, "markers");
  mkdirSync(markers);
  evil = join(base, "evil.sh");
  writeFileSync(evil, `#!/bin/sh\ntouch "${markers}/$1"\ncase "$1" in upload-pack) exit 1 ;; esac\ncat\n`);
  chmodSync(evil, 0o755);
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe("git_status and git_diff run no command from the repository's config", () => {
  it.each(Object.keys(SETUPS))("%s: nothing runs, and the tools still answer", async (setup) => {
    const dir = repo(setup.replace(/\W/g, "-"));
    SETUPS[setup]?.(dir);
    const c = await connectWorkspace({ root: dir });
    try {
      const status = await c.call("git_status", {});
      expect(status.isError, status.text).toBe(false);
      expect(status.data.entries.map((e) => e.path)).toContain("a.txt");
      for (const args of [{}, { base: "HEAD~1" }, { staged: true, base: "HEAD~1" }]) {
        const diff = await c.call("git_diff", args);
        expect(diff.isError, diff.text).toBe(false);
        expect(diff.data.files.map((f) => f.path)).toContain("a.txt");
      }
    } finally {
      await c.close();
    }
    expect(readdirSync(markers)).toEqual([]);
  });

  it("promisor remote with a crafted uploadpack: the missing blob is not fetched, nothing runs", async () => {
    const origin = repo("origin");
    git(origin, "config", "uploadpack.allowFilter", "true");
    const clone = join(base, "partial");
    git(base, "clone", "-q", "--no-checkout", "--filter=blob:none", `file://${origin}`, clone);
    git(clone, "config", "remote.origin.uploadpack", cmd("upload-pack"));
    git(clone, "config", "protocol.file.allow", "always");
    // Proof the trap is armed: a plain git command in this clone does run the crafted upload-pack.
    expect(() => git(clone, "cat-file", "-p", "HEAD~1:a.txt")).toThrow();
    expect(existsSync(join(markers, "upload-pack"))).toBe(true);
    rmSync(join(markers, "upload-pack"));

    const c = await connectWorkspace({ root: clone });
    try {
      const diff = await c.call("git_diff", { base: "HEAD~1", staged: true });
      // The blobs are missing and may not be fetched: git fails, and says so.
      expect(diff.isError).toBe(true);
      expect(diff.data.code).toBe("git_failed");
      await c.call("git_status", {});
    } finally {
      await c.close();
    }
    expect(readdirSync(markers)).toEqual([]);
  });
});
