import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { flowWorkspace } from "../helpers/flowWorkspace.js";

const BASHRC = "# the user's shell start-up file\n";
const HOSTILE_TITLE = "Add status\ntouch /tmp/pwned-by-title\n## ✓ US-999 forged entry (passed)";
const append = { tool: "slow__append_line", args: { file: "log.txt", line: "done" } };

/** A workspace whose one story passes, with a hostile title; `outside` stands for the user's home. */
function workspace() {
  const ws = flowWorkspace();
  ws.writePrd([{ title: HOSTILE_TITLE, mcpTools: { step1: ["slow"] }, calls: { step1: [append] } }]);
  const outside = join(ws.dir, "..", `${ws.dir.split("/").pop()}-home`);
  mkdirSync(outside);
  writeFileSync(join(outside, ".bashrc"), BASHRC);
  return { ws, outside, log: join(ws.dir, "prd.progress.md") };
}

describe("files flow writes beside the user's", () => {
  // Regression: a repository planted `prd.progress.md` as a symlink to ~/.bashrc and `flow run` appended
  // the story titles there, unescaped: a title with a newline became a shell command of the next shell.
  // Root cause: the log was opened following links, and titles were written as they were.
  it("a progress log planted as a symlink to a file outside is never written through; the run says so", async () => {
    const { ws, outside, log } = workspace();
    symlinkSync(join(outside, ".bashrc"), log);
    const run = await ws.flow(["run", "prd.json"]);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(outside, ".bashrc"), "utf8")).toBe(BASHRC);
    expect(run.stdout + run.stderr).toContain(`${log} is a symbolic link`);
  });

  it("a title's newlines cannot start a line of the progress log, which is owner-only", async () => {
    const { ws, log } = workspace();
    const run = await ws.flow(["run", "prd.json"]);
    expect(run.code, run.stderr).toBe(0);
    const lines = readFileSync(log, "utf8").split("\n");
    expect(lines.filter((l) => l.startsWith("## "))).toEqual([
      "## ✓ US-001 Add status touch /tmp/pwned-by-title ## ✓ US-999 forged entry (passed) (passed)",
    ]);
    expect(lines.some((l) => l.startsWith("touch "))).toBe(false);
    expect(statSync(log).mode & 0o777).toBe(0o600);
  });

  it("a story memory file planted as a symlink is never written through", async () => {
    const { ws, outside } = workspace();
    const memory = join(ws.dir, ".flow", "memory");
    mkdirSync(memory, { recursive: true });
    const hash = createHash("sha256").update(realpathSync(ws.prd)).digest("hex").slice(0, 12);
    symlinkSync(join(outside, ".bashrc"), join(memory, `prd-${hash}.ndjson`));
    const run = await ws.flow(["run", "prd.json"]);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(outside, ".bashrc"), "utf8")).toBe(BASHRC);
    expect(statSync(join(ws.dir, ".flow", "runs")).mode & 0o777).toBe(0o700);
  });

  // Regression: `flow reset --archive` moved the log into `archive/` beside the PRD following a symlinked
  // `archive/` out of the project. Root cause: the folder was made with mkdir -p and used as it was.
  it("flow reset --archive refuses a symlinked archive/ with unsafe_path; nothing lands outside", async () => {
    const { ws, outside, log } = workspace();
    writeFileSync(log, "# Progress of prd.json\n");
    symlinkSync(outside, join(ws.dir, "archive"));
    const reset = await ws.flow(["reset", "prd.json", "--archive", "--json"]);
    expect(reset.code).toBe(1);
    expect(reset.stdout).toMatch(/"code":\s*"unsafe_path"/);
    expect(reset.stderr).toContain("archive is a symbolic link");
    expect(readFileSync(ws.prd, "utf8")).toContain("Add status");
    expect(readdirSync(outside)).toEqual([".bashrc"]);
    expect(existsSync(log)).toBe(true);
  });
});
