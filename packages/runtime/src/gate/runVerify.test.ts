import { mkdirSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runVerify } from "./runVerify.js";

const node = process.execPath;

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
    expect(gate.results[1]?.tail).toBe("$HOME; echo not-a-shell\n");
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
    expect(gate).toMatchObject({ passed: false, summary: 'verify "long" failed: exit code 4' });
    expect(gate.results).toHaveLength(1);
    expect(gate.results[0]?.tail.endsWith("END")).toBe(true);
    expect(gate.results[0]?.tail.length).toBeLessThan(2100);
  });

  it("refuses a cwd that leaves the PRD's folder, also through a symlink, and reports timeouts and missing programs", async () => {
    const root = mkdtempSync(join(tmpdir(), "meshflow-gate-"));
    symlinkSync(tmpdir(), join(root, "out"));
    const escaped = await runVerify([{ run: [node, "-e", ""], cwd: "out" }], root);
    expect(escaped.results[0]?.error).toBe('cwd "out" is outside the PRD\'s folder');
    const slow = await runVerify([{ run: [node, "-e", "setTimeout(() => {}, 60000)"], timeoutMs: 200 }], root);
    expect(slow.results[0]).toMatchObject({ timedOut: true, error: "timed out after 200 ms" });
    const missing = await runVerify([{ run: ["no-such-program-xyz"] }], root);
    expect(missing.passed).toBe(false);
    expect(missing.results[0]?.error).toContain("ENOENT");
  });
});
