import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { flowWorkspace } from "../helpers/flowWorkspace.js";
import { ROOT, runNode } from "../helpers/runFlow.js";

const EDITOR = join(ROOT, "tests/fixtures/editors/busy-editor.mjs");
const STORIES = 400;

interface Prd {
  userStories: Array<{ id: string; description: string; passes: boolean; notes: string }>;
}

const readPrd = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Prd;

/** The ids of `passed` whose story in the PRD is not marked passed by run `runId`. */
function unmarked(file: string, passed: readonly string[], runId: string): string[] {
  const byId = new Map(readPrd(file).userStories.map((s) => [s.id, s]));
  return passed.filter((id) => {
    const story = byId.get(id);
    return !(story?.passes === true && story.notes.includes(`Passed in meshflow run ${runId} `));
  });
}

describe("flow run marking a PRD an editor keeps saving", () => {
  // Regression: the write-back's last write was checked against nothing after it landed, so a save
  // holding text read before it (the editor's buffer) dropped its marks and the run still exited 0
  // without a word; a write that gave up pointed at `flow resume`, which refused a finished run. A
  // save in place that landed between the write-back's check and its rename went into the file the
  // rename replaced and was lost.
  it("marks every passed story or exits 1 naming them and `flow mark`, which marks them; no save is lost", async () => {
    const ws = flowWorkspace();
    ws.writePrd(
      Array.from({ length: STORIES }, () => ({
        mcpTools: { step1: ["slow"] },
        calls: { step1: [{ tool: "slow__sleep", args: { ms: 0 } }] },
      })),
    );
    const run = ws.spawnFlow(["run", "prd.json", "--json", "--run-id", "edited"]);
    // The editor starts once the run has loaded the PRD, and stops once the run has ended (or after
    // 5,000 saves or a minute, whichever comes first).
    await run.next((e) => e.type === "tool.called");
    const editor = runNode([EDITOR, ws.prd, String(run.child.pid), "5000", "60000"], { cwd: ws.dir });
    const [code, edited] = await Promise.all([run.exit, editor]);
    expect(edited.stderr).toBe("");
    const passed = run.events.flatMap((e) => (e.type === "story.finished" && e.status === "passed" ? [e.storyId] : []));
    expect(passed).toHaveLength(STORIES);
    const missing = unmarked(ws.prd, passed, "edited");
    const { saves, last } = JSON.parse(edited.stdout) as {
      saves: number;
      last: { index: number; description: string; mode: string; savedAt: number };
    };
    // The run's last check of its marks comes after its run.finished event; a save that landed after
    // that event may have come after the check too (a loaded machine can hold an editor's buffer that
    // long), which nothing running can notice. Any save before it was the run's to catch.
    const finished = run.events.find((e) => e.type === "run.finished");
    const lateSave = finished !== undefined && last.savedAt >= Date.parse(finished.time);
    if (code === 0 && lateSave && missing.length) {
      // The run's record still holds the marks, and flow mark writes them.
      const marked = await ws.flow(["mark", "edited"]);
      expect(marked.code, marked.stderr).toBe(0);
      expect(unmarked(ws.prd, passed, "edited")).toEqual([]);
    } else if (code === 0) expect(missing).toEqual([]);
    else {
      // Marks the editor kept dropping: the run says so, names the command that writes them, and it does.
      expect(code, run.stderr()).toBe(1);
      expect(missing.length).toBeGreaterThan(0);
      expect(run.stderr()).toContain("flow mark edited");
      const marked = await ws.flow(["mark", "edited"]);
      expect(marked.code, marked.stderr).toBe(0);
      expect(unmarked(ws.prd, passed, "edited")).toEqual([]);
    }
    // The editor's last save, made while the run wrote its marks, is kept (a save in place that lands
    // in the file the run's rename replaces is found there and written again).
    expect(saves).toBeGreaterThan(10);
    expect(readPrd(ws.prd).userStories[last.index]?.description, JSON.stringify(last)).toBe(last.description);
  }, 120_000);
});

describe("flow mark and flow resume of a finished run whose marks did not land", () => {
  // Regression: a run that could not write a mark said `flow resume` would, but `flow resume` of a
  // finished run only answered "already finished; nothing to resume" (exit 2).
  it("the run exits 1 naming the story and flow mark; flow resume writes it once the story is back", async () => {
    const ws = flowWorkspace();
    // The PRD sits where the filesystem server may write: story 1 replaces it by one without itself
    // (a person removing a story mid-run), so its mark has nowhere to land.
    const prd = join(ws.files, "prd.json");
    const second = {
      id: "US-002",
      title: "Story 2",
      description: "",
      acceptanceCriteria: [],
      mavenSteps: [1],
      priority: 2,
      passes: false,
      notes: "",
      mcpTools: { step1: ["slow"] },
      calls: { step1: [{ tool: "slow__sleep", args: { ms: 0 } }] },
    };
    const without = `${JSON.stringify({ project: "E2E", branchName: "flow/e2e", userStories: [second] }, null, 2)}\n`;
    ws.writePrd([
      {
        mcpTools: { step1: ["filesystem"] },
        calls: { step1: [{ tool: "filesystem__write_file", args: { path: prd, content: without } }] },
      },
      second,
    ]);
    writeFileSync(prd, readFileSync(ws.prd, "utf8"));
    const run = await ws.flow(["run", "files/prd.json", "--run-id", "gone"]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(
      `${prd}: US-001 passed but not marked passed: ${prd}: "US-001" no longer in userStories`,
    );
    expect(run.stderr).toContain("write the marks with: flow mark gone");
    expect(unmarked(prd, ["US-002"], "gone")).toEqual([]);
    // While the story is still gone, flow mark says so (exit 1) and changes nothing.
    const early = await ws.flow(["mark", "gone", "--json"]);
    expect(early.code).toBe(1);
    expect(JSON.parse(early.stdout)).toMatchObject({ runId: "gone", passed: 2, marked: [], unmarked: ["US-001"] });
    // The person puts the story back: resuming the finished run writes its mark.
    const data = JSON.parse(readFileSync(prd, "utf8")) as { userStories: unknown[] };
    const first = (JSON.parse(readFileSync(ws.prd, "utf8")) as Prd).userStories[0];
    writeFileSync(prd, `${JSON.stringify({ ...data, userStories: [first, ...data.userStories] }, null, 2)}\n`);
    const resumed = await ws.flow(["resume", "gone"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(`${prd}: marked US-001 passed (run gone); 1 already were`);
    expect(unmarked(prd, ["US-001", "US-002"], "gone")).toEqual([]);
    // Nothing is missing any more: the run is simply finished, and flow mark has nothing to write.
    expect((await ws.flow(["resume", "gone"])).code).toBe(2);
    const again = await ws.flow(["mark", "gone"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("the 2 stories run gone passed are marked already");
  });
});
