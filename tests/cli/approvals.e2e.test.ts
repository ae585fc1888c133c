import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RunEvent } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { flowWorkspace, parseEvents } from "../helpers/flowWorkspace.js";
import { ROOT } from "../helpers/runFlow.js";

/** A scripted `write_file` of filesystem (destructiveHint) into the workspace's files. */
function write(dir: string, name: string, content = `${name}\n`) {
  return { tool: "filesystem__write_file", args: { path: join(dir, name), content } };
}

/** The lines of a run's approvals book. */
function book(dir: string, runId: string): Array<Record<string, unknown>> {
  const file = join(dir, ".flow/runs", runId, "approvals.ndjson");
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const of = <T extends RunEvent["type"]>(events: RunEvent[], type: T) =>
  events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);

describe("flow run --approve", () => {
  it("pauses (exit 4) at a destructive call; flow approve from another process, flow resume: the call runs once and the story passes", async () => {
    const ws = flowWorkspace();
    ws.writePrd([{ mcpTools: { step1: ["filesystem"] }, calls: { step1: [write(ws.files, "a.txt")] } }]);
    const run = await ws.flow(["run", "prd.json", "--json", "--approve", "destructive", "--run-id", "r1"]);
    expect(run.code).toBe(4);
    expect(run.stderr).toContain("run r1 paused: every story in flight waits for a person's approval");
    expect(run.stderr).toContain("r1/US-001/step1/1  US-001: filesystem__write_file");
    expect(run.stderr).toContain("flow approve r1");
    const events = parseEvents(run.stdout);
    expect(of(events, "approval.requested")).toMatchObject([
      {
        storyId: "US-001",
        step: 1,
        key: "r1/US-001/step1/1",
        tool: "filesystem__write_file",
        specialist: "development-agent",
      },
    ]);
    expect(of(events, "tool.called")).toEqual([]);
    expect(of(events, "story.finished")).toEqual([]);
    expect(existsSync(join(ws.files, "a.txt"))).toBe(false);

    const status = await ws.flow(["status", "r1"]);
    expect(status.stdout).toContain("awaiting_approval");
    expect(status.stdout).toContain("r1/US-001/step1/1  US-001 step 1: filesystem__write_file");

    const approved = await ws.flow(["approve", "r1", "US-001/step1/1", "--reason", "checked the path"]);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain("approved r1/US-001/step1/1 (checked the path)");
    const decided = await ws.flow(["status", "r1", "--json"]);
    const json = JSON.parse(decided.stdout);
    expect(json.approvals.pending).toEqual([]);
    expect(json.approvals.decisions).toMatchObject([
      { key: "r1/US-001/step1/1", approved: true, reason: "checked the path" },
    ]);
    expect(json.approvals.decisions[0].by).toMatch(/^flow approve \(.+@.+, pid \d+\)$/);

    const resumed = await ws.flow(["resume", "r1", "--json"]);
    expect(resumed.code).toBe(0);
    const after = parseEvents(resumed.stdout);
    expect(of(after, "approval.decided")).toMatchObject([{ key: "r1/US-001/step1/1", approved: true }]);
    expect(of(after, "tool.called")).toHaveLength(1);
    expect(of(after, "story.finished")).toMatchObject([{ storyId: "US-001", status: "passed" }]);
    expect(ws.read("a.txt")).toBe("a.txt\n");
    const text = await ws.flow(["status", "r1"]);
    expect(text.stdout).toMatch(/r1\/US-001\/step1\/1 {2}approved \S+ by flow approve .*: checked the path/);
  });

  it("--deny --reason: the step gets approval_denied with the reason and the story does not pass", async () => {
    const ws = flowWorkspace();
    ws.writePrd([{ mcpTools: { step1: ["filesystem"] }, calls: { step1: [write(ws.files, "a.txt")] } }]);
    expect((await ws.flow(["run", "prd.json", "--approve", "destructive", "--run-id", "r2"])).code).toBe(4);
    const denied = await ws.flow(["approve", "r2", "--all", "--deny", "--reason", "not on a Friday"]);
    expect(denied.code).toBe(0);
    const resumed = await ws.flow(["resume", "r2", "--json"]);
    expect(resumed.code).toBe(1);
    const events = parseEvents(resumed.stdout);
    expect(of(events, "tool.refused")).toMatchObject([{ code: "approval_denied" }]);
    expect(of(events, "tool.refused")[0]?.message).toContain("not on a Friday");
    const step = of(events, "step.finished")[0];
    expect(step?.status).toBe("blocked");
    expect(step?.summary).toContain("approval_denied");
    expect(step?.summary).toContain("not on a Friday");
    expect(of(events, "tool.called")).toEqual([]);
    expect(existsSync(join(ws.files, "a.txt"))).toBe(false);
  });

  it("refuses a decision once the call's arguments changed: the call waits again", async () => {
    const ws = flowWorkspace({ agents: join(ROOT, "tests/fixtures/agents-approvals") });
    ws.writePrd([{ mcpTools: { step1: ["filesystem"] } }]);
    const target = join(ws.files, "out.txt");
    const call = (content: string) =>
      writeFileSync(join(ws.dir, "call.json"), JSON.stringify({ path: target, content }));
    call("as approved\n");
    const first = await ws.flow(["run", "prd.json", "--approve", "destructive", "--run-id", "r3"]);
    expect(first.code).toBe(4);
    expect((await ws.flow(["approve", "r3", "--all"])).code).toBe(0);
    call("something else\n");
    const resumed = await ws.flow(["resume", "r3", "--json"]);
    expect(resumed.code).toBe(4);
    const events = parseEvents(resumed.stdout);
    expect(of(events, "tool.called")).toEqual([]);
    const again = of(events, "approval.requested");
    expect(again).toHaveLength(1);
    expect(again[0]?.stale?.by).toMatch(/^flow approve/);
    expect(again[0]?.args).toMatchObject({ content: "something else\n" });
    expect(existsSync(target)).toBe(false);
    // The changed call is what waits now; a decision for it runs it.
    expect((await ws.flow(["approve", "r3", "--all"])).code).toBe(0);
    const last = await ws.flow(["resume", "r3"]);
    expect(last.code).toBe(0);
    expect(readFileSync(target, "utf8")).toBe("something else\n");
  });

  it("survives kill -9 while a story awaits approval (--wait-for-approval): approve, resume, the call runs once", async () => {
    const ws = flowWorkspace();
    ws.writePrd([{ mcpTools: { step1: ["filesystem"] }, calls: { step1: [write(ws.files, "k.txt")] } }]);
    const run = ws.spawnFlow([
      "run",
      "prd.json",
      "--json",
      "--approve",
      "all",
      "--wait-for-approval",
      "--run-id",
      "r4",
    ]);
    await run.next((e) => e.type === "approval.requested");
    run.child.kill("SIGKILL");
    await run.exit;
    expect(book(ws.dir, "r4")).toMatchObject([{ type: "requested", key: "r4/US-001/step1/1" }]);
    expect((await ws.flow(["approve", "r4", "r4/US-001/step1/1"])).code).toBe(0);
    const resumed = await ws.flow(["resume", "r4", "--json"]);
    expect(resumed.code).toBe(0);
    expect(of(parseEvents(resumed.stdout), "tool.called")).toHaveLength(1);
    expect(ws.read("k.txt")).toBe("k.txt\n");
  });

  it("--wait-for-approval: the waiting process goes on once flow approve decides from another process", async () => {
    const ws = flowWorkspace();
    ws.writePrd([{ mcpTools: { step1: ["filesystem"] }, calls: { step1: [write(ws.files, "w.txt")] } }]);
    const run = ws.spawnFlow([
      "run",
      "prd.json",
      "--json",
      "--approve",
      "destructive",
      "--wait-for-approval",
      "--run-id",
      "r5",
    ]);
    await run.next((e) => e.type === "approval.requested");
    expect((await ws.flow(["approve", "r5", "--all"])).code).toBe(0);
    expect(await run.exit).toBe(0);
    expect(of(run.events, "tool.called")).toHaveLength(1);
    expect(ws.read("w.txt")).toBe("w.txt\n");
  });

  it("--parallel 3: two stories finish while the third waits; exit 4, then approve and resume", async () => {
    const ws = flowWorkspace();
    const echo = (m: string) => ({ tool: "everything__echo", args: { message: m } });
    ws.writePrd([
      { mcpTools: { step1: ["everything"] }, calls: { step1: [echo("one")] } },
      { mcpTools: { step1: ["everything"] }, calls: { step1: [echo("two")] } },
      { mcpTools: { step1: ["filesystem"] }, calls: { step1: [write(ws.files, "three.txt")] } },
    ]);
    const run = await ws.flow([
      "run",
      "prd.json",
      "--json",
      "--parallel",
      "3",
      "--approve",
      "destructive",
      "--run-id",
      "r6",
    ]);
    expect(run.code).toBe(4);
    const events = parseEvents(run.stdout);
    expect(of(events, "story.finished").map((e) => [e.storyId, e.status])).toEqual(
      expect.arrayContaining([
        ["US-001", "passed"],
        ["US-002", "passed"],
      ]),
    );
    expect(of(events, "story.finished")).toHaveLength(2);
    expect(of(events, "approval.requested").map((e) => e.storyId)).toEqual(["US-003"]);
    const status = JSON.parse((await ws.flow(["status", "r6", "--json"])).stdout);
    expect(status.stories.map((s: { id: string; status: string }) => [s.id, s.status])).toEqual([
      ["US-001", "passed"],
      ["US-002", "passed"],
      ["US-003", "awaiting_approval"],
    ]);
    expect((await ws.flow(["approve", "r6", "--all"])).code).toBe(0);
    const resumed = await ws.flow(["resume", "r6"]);
    expect(resumed.code).toBe(0);
    expect(ws.read("three.txt")).toBe("three.txt\n");
  });
});

describe("flow run approvals rules", () => {
  it("asks for the calls the rules file names (tool and argument pattern) and lets the others run", async () => {
    const ws = flowWorkspace();
    ws.writePrd([
      {
        mcpTools: { step1: ["filesystem"] },
        calls: { step1: [write(ws.files, "free.txt"), write(ws.files, "guarded.txt", "push it\n")] },
      },
    ]);
    writeFileSync(
      join(ws.dir, "rules.yaml"),
      "rules:\n  - tool: write_file\n    args:\n      content: push\n    reason: pushes need a person\n",
    );
    const run = await ws.flow(["run", "prd.json", "--json", "--approvals", "rules.yaml", "--run-id", "r7"]);
    expect(run.code).toBe(4);
    const events = parseEvents(run.stdout);
    expect(of(events, "tool.called").map((e) => e.key)).toEqual(["r7/US-001/step1/1"]);
    expect(of(events, "approval.requested")).toMatchObject([
      { key: "r7/US-001/step1/2", rule: expect.stringContaining("rule 1 of") },
    ]);
    expect(of(events, "approval.requested")[0]?.rule).toContain("pushes need a person");
    expect(ws.read("free.txt")).toBe("free.txt\n");
    const record = JSON.parse(readFileSync(join(ws.dir, ".flow/runs/r7/run.json"), "utf8"));
    expect(record.options.approvals).toMatchObject({ approve: "none", rules: [{ tool: "write_file" }] });
  });

  it("refuses an invalid rules file naming the file and the JSON path (exit 2), running nothing", async () => {
    const ws = flowWorkspace();
    ws.writePrd([{ mcpTools: { step1: ["filesystem"] }, calls: { step1: [write(ws.files, "a.txt")] } }]);
    writeFileSync(join(ws.dir, "rules.yaml"), "rules:\n  - tool: write_file\n    args:\n      content: '(unclosed'\n");
    const run = await ws.flow(["run", "prd.json", "--approvals", "rules.yaml"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/rules\.yaml: \$\.rules\[0\]\.args\.content: not a valid regular expression/);
    expect(existsSync(join(ws.files, "a.txt"))).toBe(false);
  });
});

describe("flow approve bad input", () => {
  it("an unknown run or call key is a usage error (exit 2) naming the keys that wait; a run waiting for nothing exits 1", async () => {
    const ws = flowWorkspace();
    ws.writePrd([{ mcpTools: { step1: ["filesystem"] }, calls: { step1: [write(ws.files, "a.txt")] } }]);
    expect((await ws.flow(["run", "prd.json", "--approve", "destructive", "--run-id", "r8"])).code).toBe(4);
    const unknownRun = await ws.flow(["approve", "nosuch", "--all"]);
    expect(unknownRun.code).toBe(2);
    const unknownKey = await ws.flow(["approve", "r8", "US-001/step1/9"]);
    expect(unknownKey.code).toBe(2);
    expect(unknownKey.stderr).toContain("run r8 has no call US-001/step1/9 waiting for approval");
    expect(unknownKey.stderr).toContain("it waits for: r8/US-001/step1/1 (US-001 step 1: filesystem__write_file)");
    const none = await ws.flow(["approve", "r8"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("r8/US-001/step1/1");
    expect(book(ws.dir, "r8").filter((l) => l.type === "decided")).toEqual([]);

    expect((await ws.flow(["approve", "r8", "--all"])).code).toBe(0);
    const nothing = await ws.flow(["approve", "r8", "--all"]);
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain("run r8 waits for no approval");
  });
});

describe("flow plan --approve", () => {
  it("shows which scripted calls would wait for approval: by rule at once, by destructiveHint once discovered", async () => {
    const ws = flowWorkspace();
    ws.writePrd([
      {
        mcpTools: { step1: ["filesystem", "everything"] },
        calls: {
          step1: [{ tool: "everything__echo", args: { message: "hi" } }, write(ws.files, "a.txt", "git push\n")],
        },
      },
    ]);
    const plain = await ws.flow(["plan", "prd.json", "--approve", "destructive"]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain("call 2 filesystem__write_file needs approval if the tool is destructive");
    expect(plain.stdout).toContain("call 1 everything__echo needs approval if the tool is destructive");
    const discovered = await ws.flow(["plan", "prd.json", "--approve", "destructive", "--discover", "--json"]);
    expect(discovered.code).toBe(0);
    const step = JSON.parse(discovered.stdout).stories[0].steps[0];
    expect(step.approvals).toEqual([
      { call: 1, tool: "everything__echo", needs: "no" },
      {
        call: 2,
        tool: "filesystem__write_file",
        needs: "yes",
        reason: "--approve destructive (the tool is destructiveHint)",
      },
    ]);
    writeFileSync(
      join(ws.dir, "rules.yaml"),
      "rules:\n  - server: filesystem\n    args:\n      content: '^git push'\n",
    );
    const ruled = await ws.flow(["plan", "prd.json", "--approvals", "rules.yaml"]);
    expect(ruled.stdout).toMatch(/call 2 filesystem__write_file needs approval \(rule 1 of .*rules\.yaml\)/);
    expect(ruled.stdout).not.toContain("call 1 everything__echo needs");
  });
});
