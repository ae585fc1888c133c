import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FLOW_BIN } from "../helpers/runFlow.js";
import { toOutcome } from "../helpers/workspaceFixture.js";

// Regression: paths were checked with realpath and opened later, so a folder swapped for a symlink to
// outside the root between the two let read_file and search_text return the outside file. Root cause:
// the check and the read named the path twice; now the opened descriptor's own real path is checked.

let base: string;
let root: string;
let swapper: ChildProcess;
let client: Client;

/** Swaps root/sw between a real folder and a symlink to the outside folder, as fast as it can. */
const SWAPPER = `
const { renameSync, symlinkSync, unlinkSync } = require("node:fs");
const [root, outside] = process.argv.slice(1);
const sw = root + "/sw", kept = root + "/sw.real";
for (;;) {
  try { renameSync(sw, kept); symlinkSync(outside, sw); unlinkSync(sw); renameSync(kept, sw); } catch {}
}`;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), "meshflow-race-"));
  root = join(base, "root");
  const outside = join(base, "outside");
  mkdirSync(join(root, "sw"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(root, "sw", "f.txt"), "inside content\n");
  writeFileSync(join(outside, "f.txt"), "OUTSIDE-SECRET\n");
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [FLOW_BIN, "workspace-server", "--root", root],
    stderr: "ignore",
  });
  client = new Client({ name: "race-test", version: "1.0.0" });
  await client.connect(transport);
  swapper = spawn(process.execPath, ["-e", SWAPPER, root, outside], { stdio: "ignore" });
});

afterAll(async () => {
  swapper?.kill("SIGKILL");
  await client?.close();
  rmSync(base, { recursive: true, force: true });
});

describe("workspace server under a symlink swap", () => {
  it("never returns the outside file's content: 2,000 read_file and 300 search_text calls", async () => {
    const counts = { leaks: 0, inside: 0, refused: 0 };
    const codes = new Set<string>();
    const tally = (result: unknown): void => {
      const r = toOutcome(result);
      if (r.text.includes("OUTSIDE-SECRET") || JSON.stringify(r.data).includes("OUTSIDE-SECRET")) counts.leaks++;
      else if (r.isError) {
        counts.refused++;
        codes.add(String(r.data.code));
      } else counts.inside++;
    };
    for (let i = 0; i < 2_000; i += 20) {
      const batch = Array.from({ length: 20 }, () =>
        client.callTool({ name: "read_file", arguments: { path: "sw/f.txt" } }),
      );
      for (const r of await Promise.all(batch)) tally(r);
    }
    for (let i = 0; i < 300; i += 10) {
      const batch = Array.from({ length: 10 }, (_, j) =>
        client.callTool({ name: "search_text", arguments: { regex: "SECRET|content", path: j % 2 ? "." : "sw" } }),
      );
      for (const r of await Promise.all(batch)) tally(r);
    }
    expect(counts.leaks).toBe(0);
    // The race was real: both outcomes happened (reads that got the folder, refusals while it was a link).
    expect(counts.inside).toBeGreaterThan(0);
    expect(counts.refused + counts.inside).toBe(2_300);
    for (const code of codes) expect(["symlink_escape", "not_found", "not_a_directory", "not_a_file"]).toContain(code);
  }, 50_000);
});
