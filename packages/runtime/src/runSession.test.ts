import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadRoutingTable, type McpConfig, type RunEvent } from "@meshflow/core";
import { InlineExecutor } from "@meshflow/mcp";
import { describe, expect, it } from "vitest";
import { resumeRun, startRun } from "./runSession.js";
import { defineSpecialist, type Specialist } from "./specialists/defineSpecialist.js";
import { FileRunStore } from "./store/FileRunStore.js";
import type { RunStore } from "./store/RunStore.js";
import type { ToolPlane } from "./ToolPlane.js";

const noTools: ToolPlane = {
  servers: () => [],
  discover: async () => ({ tools: [], failures: [] }),
  repertoire: (tools) => [...tools],
  resolve: (name) => {
    throw Object.assign(new Error(`no tool "${name}"`), { name: "MeshflowError", code: "tool_not_found" });
  },
  executor: new InlineExecutor(async () => ({ content: [] })),
  close: async () => {},
};
const mcpConfig: McpConfig = { file: undefined, source: "none", servers: new Map(), invalid: new Map(), problems: [] };

function specialists(think: Record<string, "pass" | "fail" | "plain" | "wait">): Map<string, Specialist> {
  const map = new Map<string, Specialist>();
  for (const [name, how] of Object.entries(think))
    map.set(
      name,
      defineSpecialist({
        name,
        description: `${name} for tests`,
        ...(how === "plain"
          ? {}
          : {
              think: async (ctx) => {
                // "wait": a step that takes a while, as one waiting on a tool does.
                if (how === "wait") await new Promise((resolve) => setTimeout(resolve, 15));
                return how === "fail" ? ctx.fail("nope") : ctx.pass(`${name} did step ${ctx.step}`);
              },
            }),
      }),
    );
  return map;
}

function prd(stories: Array<Record<string, unknown>>): string {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-run-"));
  const file = join(dir, "prd.json");
  const userStories = stories.map((s, i) => ({
    id: `US-${i + 1}`,
    title: `Story ${i + 1}`,
    mavenSteps: [1, 5],
    priority: 1,
    passes: false,
    notes: "",
    ...s,
  }));
  writeFileSync(file, `${JSON.stringify({ project: "T", extra: { keep: true }, userStories }, null, 2)}\n`);
  return file;
}

async function run(
  file: string,
  think: Record<string, "pass" | "fail" | "plain">,
  options: { failFast?: boolean; stories?: string[] } = {},
) {
  const events: RunEvent[] = [];
  const store = new FileRunStore(join(file, "..", ".flow"));
  const deps = { plane: noTools, store, specialists: specialists(think), routing: loadRoutingTable(), mcpConfig };
  const session = await startRun(
    { ...deps, onEvent: (e) => events.push(e) },
    { prdFile: file, record: { agents: [] }, ...options },
  );
  const summary = await session.done;
  return { summary, events, store };
}

describe("startRun", () => {
  it("runs every step, passes the gate and writes passes: true keeping the other bytes", async () => {
    const file = prd([{ verify: [{ run: [process.execPath, "-e", "process.exit(0)"] }] }]);
    const before = readFileSync(file, "utf8");
    const { summary, events } = await run(file, { "development-agent": "pass", "quality-agent": "pass" });
    expect(summary.status).toBe("passed");
    expect(events.map((e) => e.type)).toEqual([
      "run.started",
      "story.started",
      "step.started",
      "step.finished",
      "step.started",
      "step.finished",
      "gate.finished",
      "story.finished",
      "run.finished",
    ]);
    const after = readFileSync(file, "utf8");
    const note = `Passed in meshflow run ${summary.runId} (evidence: .flow/runs/${summary.runId}/evidence.ndjson).`;
    expect(after).toBe(
      before.replace('"passes": false', '"passes": true').replace('"notes": ""', `"notes": "${note}"`),
    );
  });

  it("a failing step stops the story and leaves the PRD byte-identical", async () => {
    const file = prd([{}, { mavenSteps: [5] }]);
    const before = readFileSync(file, "utf8");
    const { summary, events } = await run(file, { "development-agent": "fail", "quality-agent": "pass" });
    expect(summary.status).toBe("failed");
    expect(summary.counts).toEqual({ passed: 1, failed: 1, blocked: 0, skipped: 0 });
    expect(readFileSync(file, "utf8")).not.toBe(before); // the second story passed
    const finished = events.filter((e) => e.type === "story.finished").map((e) => [e.storyId, e.status]);
    expect(finished).toEqual([
      ["US-1", "failed"],
      ["US-2", "passed"],
    ]);
  });

  it("a specialist without think() and without scripted calls blocks with the reason", async () => {
    const file = prd([{}]);
    const before = readFileSync(file, "utf8");
    const { summary, events } = await run(file, { "development-agent": "plain", "quality-agent": "pass" });
    expect(summary.status).toBe("failed");
    expect(summary.counts.blocked).toBe(1);
    const step = events.find((e) => e.type === "step.finished");
    expect(step).toMatchObject({ status: "blocked" });
    expect(step?.type === "step.finished" && step.summary).toContain("no plan of its own");
    expect(readFileSync(file, "utf8")).toBe(before);
  });

  it("a failing verify command keeps passes: false", async () => {
    const file = prd([{ verify: [{ run: [process.execPath, "-e", "console.log('boom'); process.exit(3)"] }] }]);
    const before = readFileSync(file, "utf8");
    const { summary, events } = await run(file, { "development-agent": "pass", "quality-agent": "pass" });
    expect(summary.status).toBe("failed");
    expect(events.find((e) => e.type === "gate.finished")).toMatchObject({ passed: false });
    expect(readFileSync(file, "utf8")).toBe(before);
  });

  it("--fail-fast starts no story after a failed one; --story runs only the named stories; passes: true is skipped", async () => {
    const file = prd([{ mavenSteps: [1] }, { mavenSteps: [5] }, { mavenSteps: [5], passes: true }]);
    const fast = await run(file, { "development-agent": "fail", "quality-agent": "pass" }, { failFast: true });
    expect(
      fast.events.filter((e) => e.type === "story.started").map((e) => e.type === "story.started" && e.storyId),
    ).toEqual(["US-1"]);
    expect(fast.summary.counts).toEqual({ passed: 0, failed: 1, blocked: 0, skipped: 0 });
    const some = await run(
      file,
      { "development-agent": "fail", "quality-agent": "pass" },
      { stories: ["US-2", "US-3"] },
    );
    expect(some.summary.status).toBe("passed");
    expect(
      some.events
        .filter((e) => e.type === "story.finished")
        .map((e) => e.type === "story.finished" && [e.storyId, e.status]),
    ).toEqual([
      ["US-2", "passed"],
      ["US-3", "skipped"],
    ]);
    const unknown = await run(file, { "development-agent": "pass", "quality-agent": "pass" }, { stories: ["US-9"] });
    expect(unknown.summary.error?.code).toBe("usage");
  });

  it("an invalid PRD is refused before any run is created", async () => {
    const file = prd([{ mavenSteps: [12] }]);
    const { summary } = await run(file, { "development-agent": "pass", "quality-agent": "pass" });
    expect(summary.status).toBe("refused");
    expect(summary.error?.code).toBe("prd_invalid");
    expect(summary.runId).toBeUndefined();
  });
});

describe("resumeRun", () => {
  it("continues an aborted run from its snapshot without re-running finished steps", async () => {
    const file = prd([{ mavenSteps: [1, 5, 7] }]);
    const store = new FileRunStore(join(file, "..", ".flow"));
    const calls: string[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const map = new Map<string, Specialist>([
      [
        "development-agent",
        defineSpecialist({
          name: "development-agent",
          description: "d",
          think: async (ctx) => {
            calls.push(`dev${ctx.step}`);
            if (ctx.step === 7 && calls.filter((c) => c === "dev7").length === 1) await gate;
            return ctx.pass("ok");
          },
        }),
      ],
      [
        "quality-agent",
        defineSpecialist({
          name: "quality-agent",
          description: "q",
          think: async (ctx) => {
            calls.push("q");
            return ctx.pass("ok");
          },
        }),
      ],
    ]);
    const deps = { plane: noTools, store, specialists: map, routing: loadRoutingTable(), mcpConfig };
    const events: RunEvent[] = [];
    const first = await startRun(
      {
        ...deps,
        onEvent: (e) => {
          events.push(e);
          if (e.type === "step.started" && e.step === 7) setTimeout(() => first.abort(), 10);
        },
      },
      { prdFile: file, record: { agents: [] } },
    );
    const aborted = await first.done;
    release();
    expect(aborted.status).toBe("aborted");
    expect(calls).toEqual(["dev1", "q", "dev7"]);
    const second = await resumeRun(deps, aborted.runId ?? "");
    const resumed = await second.done;
    expect(resumed.status).toBe("passed");
    expect(calls).toEqual(["dev1", "q", "dev7", "dev7"]);
    expect(readFileSync(file, "utf8")).toContain('"passes": true');
  });
});

describe("startRun when the runtime itself throws", () => {
  it("ends the run failed with the error as an event; done resolves; the PRD is unchanged", async () => {
    // Regression: an exception in a machine action (describeStep → repertoire → an enricher) was
    // rethrown by xstate as an uncaught error and took the whole process down.
    const file = prd([{ mavenSteps: [1], mcpTools: {} }]);
    const before = readFileSync(file, "utf8");
    const exploding: ToolPlane = {
      ...noTools,
      repertoire: () => {
        throw new Error("enricher exploded");
      },
    };
    const events: RunEvent[] = [];
    const store = new FileRunStore(join(file, "..", ".flow"));
    const session = await startRun(
      {
        plane: exploding,
        store,
        specialists: specialists({ "development-agent": "pass" }),
        routing: loadRoutingTable(),
        mcpConfig,
        onEvent: (e) => events.push(e),
      },
      { prdFile: file, record: { agents: [] } },
    );
    const summary = await session.done;
    expect(summary.status).toBe("failed");
    expect(summary.error?.message).toContain("enricher exploded");
    expect(events.at(-1)).toMatchObject({
      type: "run.finished",
      status: "failed",
      error: { message: expect.stringContaining("enricher exploded") },
    });
    expect(readFileSync(file, "utf8")).toBe(before);
    const { record } = await store.read(summary.runId ?? "");
    expect(record.status).toBe("failed");
  });

  it("a store write that fails later (disk full) ends the run failed with its error; no event goes out unwritten", async () => {
    const file = prd([{}, {}, {}, {}]);
    const files = new FileRunStore(join(file, "..", ".flow"));
    let snapshots = 0;
    // The run store's own handle, whose second snapshot write fails as a full disk would.
    const store: RunStore = {
      create: async (record) =>
        new Proxy(await files.create(record), {
          get(handle, key) {
            if (key === "saveSnapshot")
              return (snapshot: unknown) => {
                if (++snapshots === 2)
                  throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
                handle.saveSnapshot(snapshot);
              };
            const value = Reflect.get(handle, key, handle);
            return typeof value === "function" ? value.bind(handle) : value;
          },
        }),
      open: (runId) => files.open(runId),
      read: (runId) => files.read(runId),
      list: () => files.list(),
    };
    const events: RunEvent[] = [];
    const session = await startRun(
      {
        plane: noTools,
        store,
        specialists: specialists({ "development-agent": "wait", "quality-agent": "wait" }),
        routing: loadRoutingTable(),
        mcpConfig,
        onEvent: (e) => events.push(e),
      },
      { prdFile: file, record: { agents: [] } },
    );
    const summary = await session.done;
    expect(snapshots).toBeGreaterThanOrEqual(2);
    expect(summary.status).toBe("failed");
    expect(summary.error?.message).toContain("ENOSPC");
    expect(events.at(-1)).toMatchObject({
      type: "run.finished",
      error: { message: expect.stringContaining("ENOSPC") },
    });
    // What went out before the failure had been written; the events of the unsaved state never went out.
    const written = (await files.read(summary.runId ?? "")).events;
    for (const event of events.slice(0, -1)) expect(written).toContainEqual(event);
    expect(events.filter((e) => e.type === "story.finished").length).toBeLessThan(4);
  });
});
