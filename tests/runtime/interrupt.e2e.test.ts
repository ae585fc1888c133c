import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type FlowWorkspace, flowWorkspace, parseEvents } from "../helpers/flowWorkspace.js";

// Ctrl-C on a terminal sends SIGINT to the whole foreground process group. Each test starts the real
// `flow run` in a group of its own and signals that group, as the terminal would.

/** Pids of the workspace's slow-server processes (Linux /proc). */
function slowServers(ws: FlowWorkspace): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (cmdline.some((a) => a.endsWith("slow-server.mjs")) && cmdline.includes(ws.files)) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

function journal(ws: FlowWorkspace, runId: string): Array<Record<string, unknown>> {
  const file = join(ws.dir, ".flow/runs", runId, "journal.ndjson");
  if (!existsSync(file)) return [];
  return readFileSync(join(ws.dir, ".flow/runs", runId, "journal.ndjson"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const waitAndAppend = [
  { tool: "slow__wait_for", args: { file: "release" } },
  { tool: "slow__append_line", args: { file: "log.txt", line: "after" } },
];

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 20));
}

describe("Ctrl-C of flow run", () => {
  it("reaches flow, not its MCP servers: the read-only call in flight finishes and is journaled, exit 130, resume passes", async () => {
    // Regression: stdio servers were spawned in flow's process group, so the terminal's SIGINT killed
    // them and the call in flight was journaled as server_crashed (and replayed as such on resume).
    const ws = flowWorkspace();
    ws.writePrd([{ mcpTools: { step1: ["slow"] }, calls: { step1: waitAndAppend } }]);
    const run = ws.spawnFlow(["run", "prd.json", "--json", "--run-id", "int1"], { detached: true });
    await run.next((e) => e.type === "tool.called" && e.tool === "slow__wait_for");
    const pid = run.child.pid ?? 0;
    process.kill(-pid, "SIGINT");
    await until(() => run.stderr().includes("stopping"));
    expect(slowServers(ws)).toHaveLength(1);
    writeFileSync(join(ws.files, "release"), "");
    expect(await run.exit).toBe(130);
    expect(run.stderr()).toContain("flow resume int1");
    const finished = journal(ws, "int1").filter((l) => l.state === "finished");
    expect(finished).toHaveLength(1);
    expect(finished[0]).toMatchObject({
      key: "int1/US-001/step1/1",
      result: { content: [{ text: "release exists" }] },
    });
    expect(JSON.stringify(finished[0])).not.toContain("isError");
    expect(run.events.at(-1)).toMatchObject({ type: "run.finished", status: "aborted" });

    const resumed = await ws.flow(["resume", "int1", "--json"]);
    expect(resumed.code).toBe(0);
    expect(ws.read("log.txt")).toBe("after\n");
    const events = parseEvents(resumed.stdout);
    expect(events.find((e) => e.type === "tool.result" && e.replayed)).toMatchObject({ tool: "slow__wait_for" });
  });

  it("a second Ctrl-C exits 130 at once, leaves no server running, and the resume runs the read-only call again", async () => {
    const ws = flowWorkspace();
    ws.writePrd([{ mcpTools: { step1: ["slow"] }, calls: { step1: waitAndAppend } }]);
    const run = ws.spawnFlow(["run", "prd.json", "--json", "--run-id", "int2"], { detached: true });
    await run.next((e) => e.type === "tool.called" && e.tool === "slow__wait_for");
    const pid = run.child.pid ?? 0;
    process.kill(-pid, "SIGINT");
    await until(() => run.stderr().includes("stopping"));
    process.kill(-pid, "SIGINT");
    expect(await run.exit).toBe(130);
    expect(run.stderr()).toContain("flow resume int2");
    // The call never finished, and a read-only call is journaled only with its result: nothing of it
    // is in the journal, so the resume runs it again.
    expect(journal(ws, "int2")).toEqual([]);
    await until(() => slowServers(ws).length === 0);

    writeFileSync(join(ws.files, "release"), "");
    const resumed = await ws.flow(["resume", "int2", "--json"]);
    expect(resumed.code).toBe(0);
    const called = parseEvents(resumed.stdout).filter((e) => e.type === "tool.called");
    expect(called.map((e) => e.type === "tool.called" && e.tool)).toEqual(["slow__wait_for", "slow__append_line"]);
  });

  it("on resume, a read-only call journaled as server_crashed runs again instead of replaying the failure", async () => {
    // Regression: resume replayed every finished call, so a read-only call whose server died (a
    // Ctrl-C that reached it, a crash) failed its step again on every resume.
    const ws = flowWorkspace();
    ws.writePrd([{ mcpTools: { step1: ["slow"] }, calls: { step1: waitAndAppend } }]);
    const run = ws.spawnFlow(["run", "prd.json", "--json", "--run-id", "int3"], { detached: true });
    await run.next((e) => e.type === "tool.called" && e.tool === "slow__wait_for");
    process.kill(-(run.child.pid ?? 0), "SIGINT");
    await until(() => run.stderr().includes("stopping"));
    // The server dies under the call in flight: its failure is journaled, the run stops aborted.
    for (const server of slowServers(ws)) process.kill(server, "SIGKILL");
    expect(await run.exit).toBe(130);
    expect(journal(ws, "int3").find((l) => l.state === "finished")).toMatchObject({
      result: { isError: true, code: "server_crashed" },
    });

    writeFileSync(join(ws.files, "release"), "");
    const resumed = await ws.flow(["resume", "int3", "--json"]);
    expect(resumed.code).toBe(0);
    const events = parseEvents(resumed.stdout);
    expect(events.filter((e) => e.type === "tool.result" && e.replayed)).toEqual([]);
    expect(events.filter((e) => e.type === "tool.called").map((e) => e.type === "tool.called" && e.tool)).toEqual([
      "slow__wait_for",
      "slow__append_line",
    ]);
    expect(ws.read("log.txt")).toBe("after\n");
  });
});
