import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RunEvent } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { flowWorkspace, parseEvents } from "../helpers/flowWorkspace.js";

// Each test kills a real `flow run` with SIGKILL at a chosen point, resumes it with `flow resume`, and
// asserts on the servers' resulting state (lines in a file, entities in server-memory's file).

const entity = (name: string) => ({ name, entityType: "feature", observations: [] });
const append = (line: string) => ({ tool: "slow__append_line", args: { file: "log.txt", line } });

async function killAt(ws: ReturnType<typeof flowWorkspace>, match: (e: RunEvent) => boolean, ready?: () => boolean) {
  const run = ws.spawnFlow(["run", "prd.json", "--json", "--run-id", "crash"]);
  await run.next(match);
  if (ready) while (!ready()) await new Promise((r) => setTimeout(r, 20));
  run.child.kill("SIGKILL");
  await run.exit;
  return run.events;
}

describe("flow resume after SIGKILL", () => {
  it("between side-effecting calls: journaled calls are not run again, the rest run once", async () => {
    const ws = flowWorkspace();
    ws.writePrd([
      {
        mcpTools: { step1: ["slow", "memory"] },
        calls: {
          step1: [
            append("one"),
            { tool: "memory__create_entities", args: { entities: [entity("first")] } },
            { tool: "slow__wait_for", args: { file: "release" } },
            append("two"),
            { tool: "memory__create_entities", args: { entities: [entity("second")] } },
          ],
        },
      },
    ]);
    // Killed while the run waits in a read-only call, after two side effects.
    await killAt(ws, (e) => e.type === "tool.called" && e.tool === "slow__wait_for");
    expect(ws.read("log.txt")).toBe("one\n");
    expect(ws.entities()).toEqual(["first"]);
    writeFileSync(join(ws.files, "release"), "");

    const resumed = await ws.flow(["resume", "crash", "--json"]);
    expect(resumed.code).toBe(0);
    expect(ws.read("log.txt")).toBe("one\ntwo\n");
    expect(ws.entities()).toEqual(["first", "second"]);
    const events = parseEvents(resumed.stdout);
    expect(events[0]).toMatchObject({ type: "run.resumed" });
    const replayed = events
      .filter((e) => e.type === "tool.result" && e.replayed)
      .map((e) => e.type === "tool.result" && e.tool);
    expect(replayed).toEqual(["slow__append_line", "memory__create_entities"]);
    // The read-only call whose outcome was unknown ran again; the others ran for the first time.
    const called = events.filter((e) => e.type === "tool.called").map((e) => e.type === "tool.called" && e.tool);
    expect(called).toEqual(["slow__wait_for", "slow__append_line", "memory__create_entities"]);
    expect(JSON.parse(readFileSync(ws.prd, "utf8")).userStories[0].passes).toBe(true);
  });

  it("during a non-idempotent call whose effect happened: blocked with outcome_unknown, never run twice", async () => {
    const ws = flowWorkspace();
    const before = ws.writePrd([
      {
        mcpTools: { step1: ["slow"] },
        calls: {
          step1: [{ tool: "slow__append_line_then_wait", args: { file: "log.txt", line: "once", waitFor: "release" } }],
        },
      },
    ]);
    await killAt(
      ws,
      (e) => e.type === "tool.called",
      () => existsSync(join(ws.files, "log.txt")),
    );
    writeFileSync(join(ws.files, "release"), "");
    const resumed = await ws.flow(["resume", "crash", "--json"]);
    expect(resumed.code).toBe(1);
    expect(ws.read("log.txt")).toBe("once\n");
    const events = parseEvents(resumed.stdout);
    expect(events.filter((e) => e.type === "tool.called")).toEqual([]);
    expect(events.find((e) => e.type === "tool.refused")).toMatchObject({
      code: "outcome_unknown",
      tool: "slow__append_line_then_wait",
      key: "crash/US-001/step1/1",
    });
    expect(events.find((e) => e.type === "step.finished")).toMatchObject({ status: "blocked" });
    expect(readFileSync(ws.prd, "utf8")).toBe(before);
    const status = await ws.flow(["status", "crash"]);
    expect(status.stdout).toContain("refused slow__append_line_then_wait: outcome_unknown");
  });

  it("between steps: the finished step is skipped, the next runs; filesystem and memory state exact", async () => {
    const ws = flowWorkspace();
    ws.writePrd([
      {
        mavenSteps: [1, 7],
        mcpTools: { step1: ["slow", "memory"], step7: ["slow", "filesystem"] },
        calls: {
          step1: [append("step1"), { tool: "memory__create_entities", args: { entities: [entity("one")] } }],
          step7: [
            { tool: "slow__wait_for", args: { file: "release" } },
            append("step7"),
            { tool: "filesystem__write_file", args: { path: join(ws.files, "done.txt"), content: "done\n" } },
          ],
        },
      },
    ]);
    // Events are published only after the state they describe is persisted: once step 1 is reported
    // finished, no resume runs it again, wherever the kill lands after that.
    const first = await killAt(ws, (e) => e.type === "step.finished" && e.step === 1);
    expect(first.filter((e) => e.type === "step.finished")).toHaveLength(1);
    writeFileSync(join(ws.files, "release"), "");
    const resumed = await ws.flow(["resume", "crash", "--json"]);
    expect(resumed.code).toBe(0);
    const events = parseEvents(resumed.stdout);
    expect(events.filter((e) => e.type === "step.started").map((e) => e.type === "step.started" && e.step)).toEqual([
      7,
    ]);
    expect(ws.read("log.txt")).toBe("step1\nstep7\n");
    expect(ws.read("done.txt")).toBe("done\n");
    expect(ws.entities()).toEqual(["one"]);
    const again = await ws.flow(["resume", "crash"]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("already finished");
  });

  it("Ctrl-C: the call in flight finishes and is recorded, the resume command is printed, resume completes", async () => {
    const ws = flowWorkspace();
    ws.writePrd([
      {
        mcpTools: { step1: ["slow"] },
        calls: {
          step1: [
            { tool: "slow__append_line_then_wait", args: { file: "log.txt", line: "one", waitFor: "release" } },
            append("two"),
          ],
        },
      },
    ]);
    const run = ws.spawnFlow(["run", "prd.json", "--json", "--run-id", "stopped"]);
    let stderr = "";
    run.child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString("utf8");
    });
    await run.next((e) => e.type === "tool.called");
    run.child.kill("SIGINT");
    while (!stderr.includes("stopping")) await new Promise((r) => setTimeout(r, 20));
    writeFileSync(join(ws.files, "release"), "");
    expect(await run.exit).toBe(130);
    expect(stderr).toContain("flow resume stopped");
    expect(run.events.at(-1)).toMatchObject({ type: "run.finished", status: "aborted" });
    expect(ws.read("log.txt")).toBe("one\n");

    const resumed = await ws.flow(["resume", "stopped", "--json"]);
    expect(resumed.code).toBe(0);
    expect(ws.read("log.txt")).toBe("one\ntwo\n");
    const events = parseEvents(resumed.stdout);
    expect(events.find((e) => e.type === "tool.result" && e.replayed)).toMatchObject({
      tool: "slow__append_line_then_wait",
    });
  });
});
