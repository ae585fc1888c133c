import { describe, expect, it } from "vitest";
import { flowWorkspace, parseEvents } from "../helpers/flowWorkspace.js";

const ESC = String.fromCharCode(27);
/** A verify command that prints `line 1` … `line 30` and fails. */
const thirtyLines = [process.execPath, "-e", "for (let i = 1; i <= 30; i++) console.log('line ' + i); process.exit(1)"];
const shownLines = (text: string) => [...text.matchAll(/^ +\| (line \d+)$/gm)].map((m) => m[1]);
const last20 = Array.from({ length: 20 }, (_, i) => `line ${i + 11}`);
// The test's own environment may colour (a CI variable, a FORCE_COLOR from the runner): start from none.
const uncoloured = { FORCE_COLOR: undefined, NO_COLOR: undefined, CI: undefined };

function workspace() {
  const ws = flowWorkspace();
  ws.writePrd([
    { mcpTools: { step1: ["memory"] }, calls: { step1: [{ tool: "memory__read_graph", args: {} }] } },
    {
      mcpTools: { step1: ["memory"] },
      calls: { step1: [{ tool: "memory__read_graph", args: {} }] },
      verify: [{ run: thirtyLines, name: "thirty" }],
    },
  ]);
  return ws;
}

describe("flow run on a terminal's terms", () => {
  it("closes with a summary table, shows a failed verify's last 20 lines (run and status), no colour off a TTY", async () => {
    const ws = workspace();
    const run = await ws.flow(["run", "prd.json"], uncoloured);
    expect(run.code).toBe(1);
    expect(run.stdout).not.toContain(ESC);
    expect(run.stdout).toContain('US-002 gate ✗ failed: verify "thirty" failed: exit code 1\n');
    expect(shownLines(run.stdout)).toEqual(last20);
    const table = run.stdout.slice(run.stdout.lastIndexOf("\nstory "));
    expect(table.split("\n").filter(Boolean)).toEqual([
      "story   status    steps  calls  summary",
      "US-001  ✓ passed      1      1  all steps passed; no verify commands",
      'US-002  ✗ failed      1      1  verify "thirty" failed: exit code 1',
      "2 stories: 1 passed, 1 failed, 0 blocked, 0 skipped",
    ]);

    const status = await ws.flow(["status"], uncoloured);
    expect(status.code).toBe(0);
    expect(status.stdout).not.toContain(ESC);
    expect(status.stdout).toContain('    gate ✗ failed: verify "thirty" failed: exit code 1\n');
    expect(shownLines(status.stdout)).toEqual(last20);

    const json = await ws.flow(["status", "--json"], { ...uncoloured, FORCE_COLOR: "1" });
    expect(json.stdout).not.toContain(ESC);
    const failed = JSON.parse(json.stdout).stories.find((s: { id: string }) => s.id === "US-002");
    expect(failed.gate.failed).toEqual({ command: "thirty", tail: `…\n${last20.join("\n")}` });
  });

  it("colours with FORCE_COLOR=1, not with NO_COLOR=1, and never in --json", async () => {
    const ws = workspace();
    const forced = await ws.flow(["run", "prd.json", "--story", "US-002"], { ...uncoloured, FORCE_COLOR: "1" });
    expect(forced.code).toBe(1);
    expect(forced.stdout).toContain(`${ESC}[31m✗${ESC}[39m`);
    expect(forced.stdout).toContain(`${ESC}[2m`);

    const noColor = await ws.flow(["run", "prd.json", "--story", "US-002"], {
      ...uncoloured,
      FORCE_COLOR: "1",
      NO_COLOR: "1",
    });
    expect(noColor.code).toBe(1);
    expect(noColor.stdout).toContain("US-002 ✗ failed");
    expect(noColor.stdout).not.toContain(ESC);

    const json = await ws.flow(["run", "prd.json", "--story", "US-002", "--json"], { ...uncoloured, FORCE_COLOR: "1" });
    expect(json.stdout).not.toContain(ESC);
    const gate = parseEvents(json.stdout).find((e) => e.type === "gate.finished");
    expect(gate).toMatchObject({ passed: false, failed: { command: "thirty", tail: `…\n${last20.join("\n")}` } });
    expect(json.stdout).not.toContain("\nstory ");
  });
});
