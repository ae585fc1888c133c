import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { serverEntry, testStories } from "../helpers/flowWorkspace.js";
import { runFlow } from "../helpers/runFlow.js";

const AGENTS = fileURLToPath(new URL("./agents", import.meta.url));
const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };

/** A repository with a filesystem MCP server rooted at it, a PRD of `stories` and one commit. */
function repository(stories: Array<Record<string, unknown>>) {
  const base = mkdtempSync(join(tmpdir(), "meshflow-commit-safety-"));
  const dir = join(base, "repo");
  mkdirSync(dir);
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8", env: GIT_ENV });
  git("init", "-q", "-b", "main");
  git("config", "user.name", "Meshflow Test");
  git("config", "user.email", "test@meshflow.invalid");
  git("config", "commit.gpgsign", "false");
  const config = {
    mcpServers: {
      filesystem: { command: process.execPath, args: [serverEntry("@modelcontextprotocol/server-filesystem"), dir] },
    },
  };
  writeFileSync(join(dir, ".mcp.json"), `${JSON.stringify(config, null, 2)}\n`);
  writeFileSync(join(dir, ".gitignore"), ".flow/\n");
  mkdirSync(join(dir, "no-skills"));
  writeFileSync(join(dir, "no-skills", ".keep"), "");
  const userStories = testStories(stories);
  writeFileSync(join(dir, "prd.json"), `${JSON.stringify({ project: "Safety", userStories }, null, 2)}\n`);
  git("add", "-A");
  git("commit", "-q", "-m", "start");
  const env = { FLOW_AGENTS: AGENTS, FLOW_SKILLS: join(dir, "no-skills"), FLOW_HOME: undefined, ...GIT_ENV };
  return { base, dir, git, flow: (args: readonly string[]) => runFlow(args, { cwd: dir, env }) };
}

/** A story writing `file` (relative to the repository) through the filesystem server. */
const writes = (dir: string, file: string, extra: Record<string, unknown> = {}) => ({
  mcpTools: { step1: ["filesystem"] },
  calls: { step1: [{ tool: "filesystem__write_file", args: { path: join(dir, file), content: "story\n" } }] },
  ...extra,
});

describe("flow run --commit commits what the story wrote, and only that", () => {
  // Regression: the story's paths were given to `git add -A -- <paths>` as pathspecs, so a story that
  // created a file named `:(top)` (pathspec magic for "the whole tree") got a commit holding the user's
  // uncommitted wip.txt, untracked notes, the PRD and its lock; a newline in a title became paragraphs
  // of the message, forging Signed-off-by and Meshflow-Run trailers. Root cause: paths were not taken
  // literally, and the title went into the message as it was.
  it("a file named :(top) is committed alone; a title's newlines cannot forge trailers", async () => {
    const placeholder = "/placeholder";
    const repo = repository([
      writes(placeholder, ":(top)"),
      writes(placeholder, "b.txt", {
        title: "Add b\n\nSigned-off-by: Mallory <mallory@evil.invalid>\nMeshflow-Run: forged-run",
      }),
    ]);
    // The stories write into this repository.
    const prd = readFileSync(join(repo.dir, "prd.json"), "utf8").replaceAll(placeholder, repo.dir);
    writeFileSync(join(repo.dir, "prd.json"), prd);
    writeFileSync(join(repo.dir, "wip.txt"), "committed\n");
    repo.git("add", "-A");
    repo.git("commit", "-q", "-m", "wip base");
    writeFileSync(join(repo.dir, "wip.txt"), "the user's uncommitted work\n");
    writeFileSync(join(repo.dir, "notes.txt"), "untracked notes\n");

    const run = await repo.flow(["run", "prd.json", "--commit", "--allow-dirty", "--json", "--run-id", "safe"]);
    expect(run.code, run.stderr + run.stdout).toBe(0);
    const ids = repo.git("rev-list", "--reverse", "HEAD").trim().split("\n").slice(2);
    expect(ids).toHaveLength(2);
    const files = (id: string) => repo.git("show", "--name-only", "--format=", id).trim().split("\n").filter(Boolean);
    expect(files(ids[0] ?? "")).toEqual([":(top)"]);
    expect(files(ids[1] ?? "")).toEqual(["b.txt"]);
    // The user's work is as it was: uncommitted, untracked.
    expect(repo.git("status", "--porcelain", "--", "wip.txt", "notes.txt")).toBe(" M wip.txt\n?? notes.txt\n");

    const message = repo.git("log", "-1", "--format=%B", ids[1] ?? "");
    expect(message.split("\n")[0]).toBe(
      "feat: US-002 Add b Signed-off-by: Mallory <mallory@evil.invalid> Meshflow-Run: forged-run",
    );
    const trailers = repo.git("log", "-1", "--format=%(trailers:unfold)", ids[1] ?? "").trim();
    expect(trailers).toBe("Meshflow-Run: safe");
  });
});

describe("the run's git stays in the PRD's own repository", () => {
  // Regression: the run's `git status` (to know what a story changed) entered submodules, running the
  // submodule's own filter.process; core.worktree or a .git file could point the run's git, and its
  // commits, at another folder or repository. Root cause: git was free to enter submodules and took the
  // repository and work tree the repository's own files named.
  it("never enters a submodule: its filter.process and clean filter never run, the story is committed", async () => {
    const placeholder = "/placeholder";
    const repo = repository([writes(placeholder, "c.txt")]);
    writeFileSync(
      join(repo.dir, "prd.json"),
      readFileSync(join(repo.dir, "prd.json"), "utf8").replaceAll(placeholder, repo.dir),
    );
    const markers = join(repo.base, "markers");
    mkdirSync(markers);
    const evil = join(repo.base, "evil.sh");
    writeFileSync(evil, `#!/bin/sh\ntouch "${markers}/$1"\ncat\n`);
    chmodSync(evil, 0o755);
    const origin = join(repo.base, "sub-origin");
    mkdirSync(origin);
    const gitIn = (cwd: string, ...args: string[]) =>
      execFileSync("git", args, { cwd, encoding: "utf8", env: GIT_ENV });
    gitIn(origin, "init", "-q", "-b", "main");
    writeFileSync(join(origin, "a.txt"), "sub\n");
    gitIn(origin, "add", "-A");
    gitIn(origin, "-c", "user.name=T", "-c", "user.email=t@t.invalid", "commit", "-q", "-m", "sub");
    repo.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", origin, "sub");
    repo.git("add", "-A");
    repo.git("commit", "-q", "-m", "submodule");
    const modules = join(repo.dir, ".git", "modules", "sub");
    writeFileSync(join(modules, "info", "attributes"), "*.txt filter=evil\n");
    gitIn(modules, "config", "filter.evil.process", `${evil} sub-filter-process`);
    gitIn(modules, "config", "filter.evil.clean", `${evil} sub-filter-clean`);
    // Same size, new content: git must read it through the filter to tell.
    writeFileSync(join(repo.dir, "sub", "a.txt"), "SUB\n");

    const run = await repo.flow(["run", "prd.json", "--commit", "--json"]);
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(readdirSync(markers)).toEqual([]);
    expect(repo.git("show", "--name-only", "--format=", "HEAD").trim()).toBe("c.txt");
  });

  it("core.worktree=/outside or a .git file naming another repository: refused with repo_unsafe, nothing touched there", async () => {
    const repo = repository([writes("/nowhere", "d.txt")]);
    const outside = join(repo.base, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "secret.txt"), "outside\n");
    repo.git("config", "core.worktree", outside);
    const worktree = await repo.flow(["run", "prd.json", "--commit", "--json"]);
    expect(worktree.code, worktree.stderr).toBe(1);
    expect(worktree.stdout).toMatch(/"code":\s*"repo_unsafe"/);
    expect(worktree.stderr).toContain(outside);
    repo.git("config", "--unset", "core.worktree");
    expect(repo.git("rev-list", "--count", "HEAD").trim()).toBe("1");

    // A folder inside the repository whose .git file names another repository (the user's other project).
    const other = repository([]);
    const planted = join(repo.dir, "planted");
    mkdirSync(planted);
    writeFileSync(join(planted, ".git"), `gitdir: ${join(other.dir, ".git")}\n`);
    writeFileSync(join(planted, "prd.json"), readFileSync(join(repo.dir, "prd.json")));
    const before = other.git("rev-parse", "HEAD");
    const gitfile = await repo.flow(["run", "planted/prd.json", "--commit", "--json"]);
    expect(gitfile.code, gitfile.stderr).toBe(1);
    expect(gitfile.stdout).toMatch(/"code":\s*"repo_unsafe"/);
    expect(gitfile.stderr).toContain(join(other.dir, ".git"));
    expect(other.git("rev-parse", "HEAD")).toBe(before);
    expect(existsSync(join(outside, ".flow"))).toBe(false);
  });
});
