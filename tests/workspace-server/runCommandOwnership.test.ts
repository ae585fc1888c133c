import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectWorkspace,
  eventually,
  type FixtureWorkspace,
  isAlive,
  makeWorkspace,
  type WorkspaceClient,
} from "../helpers/workspaceFixture.js";

// Regression: a run_command whose child detached (setsid, or spawn(…, {detached: true})) left it running,
// and with stdout inherited a 3,000 ms timeout returned after 25 s. Root cause: only the process group
// was killed and the call waited for the pipes to close. Now every process of the run is tracked (Linux:
// ancestry, sessions, and a marker in the environment) and the call returns once all of them are killed.

let ws: FixtureWorkspace;
let c: WorkspaceClient;
const node = process.execPath;

/**
 * A command that starts, with stdout inherited, (1) `setsid node` and (2) a detached node that itself starts a
 * detached grandchild and exits at once (a double fork: the grandchild is re-parented to init), writes their
 * pids to `pids.txt`, then ignores SIGTERM and stays (or, with `exit`, exits once all three pids are written,
 * so none of them can still be starting when it exits, however loaded the machine). The descendants ignore
 * SIGTERM and a closed stdout (EPIPE): only a kill ends them, so a test sees whether the call killed them.
 */
function escaper(pidFile: string, then: "stay" | "exit"): string {
  return `
const { spawn } = require("node:child_process");
const { appendFileSync } = require("node:fs");
const node = process.execPath;
const sleeper = "process.on('SIGTERM', () => {}); process.stdout.on('error', () => {}); setInterval(() => process.stdout.write(''), 1000)";
const a = spawn("setsid", [node, "-e", sleeper], { stdio: "inherit" });
appendFileSync(${JSON.stringify(pidFile)}, a.pid + "\\n");
const inner = "const c = require('node:child_process').spawn(process.execPath, ['-e', " + JSON.stringify(sleeper) +
  "], { detached: true, stdio: 'inherit' }); require('node:fs').appendFileSync(" + JSON.stringify(${JSON.stringify(pidFile)}) +
  ", c.pid + '\\\\n'); c.unref(); process.exit(0)";
const b = spawn(node, ["-e", inner], { detached: true, stdio: "inherit" });
appendFileSync(${JSON.stringify(pidFile)}, b.pid + "\\n");
console.log("started");
${
  then === "stay"
    ? "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000);"
    : `setInterval(() => { if (require("node:fs").readFileSync(${JSON.stringify(pidFile)}, "utf8").split("\\n").filter(Boolean).length >= 3) process.exit(0); }, 10);`
}
`;
}

function pids(file: string): number[] {
  return readFileSync(file, "utf8").split("\n").filter(Boolean).map(Number);
}

beforeAll(async () => {
  ws = makeWorkspace({ git: false });
  c = await connectWorkspace({ root: ws.root, allow: [node], killGraceMs: 1_000 });
});
afterAll(async () => {
  await c?.close();
  ws?.cleanup();
});

describe("run_command owns every process it starts", () => {
  it("a timeout returns although setsid and detached descendants hold stdout, and kills them", async () => {
    const pidFile = join(ws.root, "timeout-pids.txt");
    // Descendants that ignore SIGTERM and hold stdout forever: a call that waited for its pipes to close
    // (or killed only the group) would not return before the test's own timeout, or would leave them.
    const r = await c.call("run_command", { command: node, args: ["-e", escaper(pidFile, "stay")], timeoutMs: 2_000 });
    expect(r.data).toMatchObject({ code: "command_timeout", timedOut: true, timeoutMs: 2_000 });
    expect(r.data.stdout.text).toContain("started");
    const started3 = pids(pidFile);
    expect(started3).toHaveLength(3);
    expect(await eventually(() => started3.every((pid) => !isAlive(pid)), 3_000)).toBe(true);
  });

  it("a command that exits leaves no detached descendant behind", async () => {
    const pidFile = join(ws.root, "exit-pids.txt");
    const r = await c.call("run_command", { command: node, args: ["-e", escaper(pidFile, "exit")], timeoutMs: 20_000 });
    expect(r.isError, r.text).toBe(false);
    expect(r.data.exitCode).toBe(0);
    expect(existsSync(pidFile)).toBe(true);
    const started3 = pids(pidFile);
    expect(started3).toHaveLength(3);
    expect(await eventually(() => started3.every((pid) => !isAlive(pid)), 3_000)).toBe(true);
  });
});
