import { mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runVerify } from "./runVerify.js";

const node = process.execPath;

/** True while `pid` exists and is not a zombie. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

describe("runVerify", () => {
  it("passes when every command exits 0, running each in its cwd without a shell", async () => {
    const root = mkdtempSync(join(tmpdir(), "meshflow-gate-"));
    mkdirSync(join(root, "pkg"));
    const gate = await runVerify(
      [
        { run: [node, "-e", "console.log(process.cwd())"], cwd: "pkg" },
        { run: [node, "-e", "console.log(process.argv[1])", "$HOME; echo not-a-shell"] },
      ],
      root,
    );
    expect(gate.passed).toBe(true);
    expect(gate.results[0]?.tail.trim().endsWith("/pkg")).toBe(true);
    expect(gate.results[1]?.tail).toBe("$HOME; echo not-a-shell");
  });

  it("stops at the first failure and keeps the tail of its output", async () => {
    const root = mkdtempSync(join(tmpdir(), "meshflow-gate-"));
    const gate = await runVerify(
      [
        { run: [node, "-e", "process.stdout.write('x'.repeat(5000) + 'END'); process.exit(4)"], name: "long" },
        { run: [node, "-e", "console.log('never')"] },
      ],
      root,
    );
    expect(gate).toMatchObject({
      passed: false,
      summary: expect.stringMatching(/^verify "long" failed: exit code 4\n {2}\| …x+END$/),
    });
    expect(gate.results).toHaveLength(1);
    expect(gate.results[0]?.tail.endsWith("END")).toBe(true);
    expect(gate.results[0]?.tail.length).toBeLessThan(2100);
  });

  it("reports the last 20 lines of a failed command, in its result and its summary", async () => {
    const root = mkdtempSync(join(tmpdir(), "meshflow-gate-"));
    const gate = await runVerify(
      [{ run: [node, "-e", "for (let i = 1; i <= 100; i++) console.log('line ' + i); process.exit(2)"], name: "many" }],
      root,
    );
    const lines = gate.results[0]?.tail.split("\n") ?? [];
    expect(lines).toEqual(["…", ...Array.from({ length: 20 }, (_, i) => `line ${81 + i}`)]);
    expect(gate.summary).toContain("  | line 100");
    expect(gate.summary).not.toContain("line 80\n");
  });

  it("kills what a command started when it times out, and keeps its output bounded", async () => {
    // Regression: execFile killed only the command at its time limit; a grandchild it started kept
    // running (and holding the output pipe), and its output was buffered up to 64 MiB.
    const root = mkdtempSync(join(tmpdir(), "meshflow-gate-"));
    const pidFile = join(root, "grandchild.pid");
    const script = [
      "const { spawn } = require('node:child_process');",
      "const fs = require('node:fs');",
      `const g = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'inherit' });`,
      `fs.writeFileSync(${JSON.stringify(pidFile)}, String(g.pid));`,
      "process.stdout.write('y'.repeat(1024 * 1024) + '\\nlast line\\n');",
      "setTimeout(() => {}, 30000);",
    ].join("\n");
    const gate = await runVerify([{ run: [node, "-e", script], timeoutMs: 1_000, name: "spawner" }], root);
    expect(gate.results[0]).toMatchObject({ timedOut: true, error: "timed out after 1000 ms" });
    expect(gate.results[0]?.tail.endsWith("last line")).toBe(true);
    expect(gate.results[0]?.tail.length).toBeLessThan(2_000);
    const grandchild = Number(readFileSync(pidFile, "utf8"));
    expect(grandchild).toBeGreaterThan(0);
    // Signals land asynchronously, and a killed orphan may linger as a zombie until reaped: gone or
    // dead is what counts.
    let alive = true;
    for (let i = 0; i < 100 && alive; i++) {
      alive = isRunning(grandchild);
      if (alive) await new Promise((r) => setTimeout(r, 20));
    }
    expect(alive, `grandchild ${grandchild} still running`).toBe(false);
  });

  it("runs a command from the project's root for a PRD kept in prd/, and refuses a cwd beyond the project", async () => {
    // "cwd": ".." was refused because the PRD sits in prd/: the bound is the project (here the folder
    // holding .mcp.json), not the PRD's own folder.
    const project = mkdtempSync(join(tmpdir(), "meshflow-gate-project-"));
    writeFileSync(join(project, ".mcp.json"), '{"mcpServers": {}}');
    mkdirSync(join(project, "prd"));
    const prdDir = join(project, "prd");
    const up = await runVerify([{ run: [node, "-e", "console.log(process.cwd())"], cwd: ".." }], prdDir);
    expect(up.passed).toBe(true);
    expect(up.results[0]?.tail).toBe(realpathSync(project));
    const beyond = await runVerify([{ run: [node, "-e", ""], cwd: "../.." }], prdDir);
    expect(beyond.passed).toBe(false);
    expect(beyond.results[0]?.error).toBe(`cwd "../.." is outside the project ${project}`);
  });

  it("refuses a cwd that leaves the PRD's folder, also through a symlink, and reports timeouts and missing programs", async () => {
    const root = mkdtempSync(join(tmpdir(), "meshflow-gate-"));
    symlinkSync(tmpdir(), join(root, "out"));
    const escaped = await runVerify([{ run: [node, "-e", ""], cwd: "out" }], root);
    expect(escaped.results[0]?.error).toBe(`cwd "out" is outside the project ${root}`);
    const slow = await runVerify([{ run: [node, "-e", "setTimeout(() => {}, 60000)"], timeoutMs: 200 }], root);
    expect(slow.results[0]).toMatchObject({ timedOut: true, error: "timed out after 200 ms" });
    const missing = await runVerify([{ run: ["no-such-program-xyz"] }], root);
    expect(missing.passed).toBe(false);
    expect(missing.results[0]?.error).toContain("ENOENT");
  });
});
