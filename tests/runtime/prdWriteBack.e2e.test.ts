import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { flowWorkspace } from "../helpers/flowWorkspace.js";
import { ROOT, runNode } from "../helpers/runFlow.js";

const EDITOR = join(ROOT, "tests/fixtures/editors/prd-editor.mjs");
const STORIES = 8;

/** Stories that each wait for a release file the editor creates, then append a line. */
function waitingStories() {
  return Array.from({ length: STORIES }, (_, i) => ({
    mcpTools: { step1: ["slow"] },
    calls: {
      step1: [
        { tool: "slow__wait_for", args: { file: `release-${i}` } },
        { tool: "slow__append_line", args: { file: "log.txt", line: `story ${i}` } },
      ],
    },
  }));
}

describe("flow run writing passes back into the PRD", () => {
  // Regression: the write-back read the PRD, edited it and renamed over it without checking that the
  // file had changed meanwhile, so an edit saved during a run (by rename or in place) was lost.
  it.each(["rename", "inplace"])(
    "keeps every edit a concurrent editor saves %s, and every mark lands",
    async (mode) => {
      const ws = flowWorkspace();
      ws.writePrd(waitingStories());
      const run = ws.spawnFlow(["run", "prd.json", "--json", "--run-id", "edited"]);
      // Edits start once the run has loaded the PRD (an in-place save is half-written for a moment).
      await run.next((e) => e.type === "tool.called");
      const editor = runNode([EDITOR, ws.prd, ws.files, String(STORIES), "300", mode], { cwd: ws.dir });
      const [code, edited] = await Promise.all([run.exit, editor]);
      expect(edited.stderr).toBe("");
      expect(
        code,
        JSON.stringify(run.events.filter((e) => e.type === "run.finished" || e.type === "story.finished")),
      ).toBe(0);
      const saved = Number(edited.stdout.trim());
      expect(saved).toBeGreaterThan(STORIES);
      const prd = JSON.parse(readFileSync(ws.prd, "utf8")) as {
        edits: number[];
        custom: unknown;
        userStories: Array<{ passes: boolean; notes: string }>;
      };
      // Every edit is kept, in order — but one: a rename-based save that lands in the instant between the
      // write-back's last check and its own rename is replaced (no portable call swaps two files
      // atomically), and on a loaded machine a process can be paused in that instant. The old
      // write-back lost an edit at nearly every mark; the re-check and retry leave only that instant.
      const all = Array.from({ length: saved }, (_, i) => i);
      expect(prd.edits.filter((e, i) => i > 0 && e <= (prd.edits[i - 1] ?? -1))).toEqual([]);
      expect(all.filter((e) => !prd.edits.includes(e)).length).toBeLessThanOrEqual(1);
      expect(prd.custom).toEqual({ keep: [1, 2] });
      expect(prd.userStories.map((s) => s.passes)).toEqual(Array(STORIES).fill(true));
      for (const story of prd.userStories) expect(story.notes).toContain("Passed in meshflow run edited");
      expect(readdirSync(ws.dir).filter((name) => name.endsWith(".tmp"))).toEqual([]);
    },
  );

  // Regression: the write-back renamed a temp file over the symlink, replacing it by a plain file and
  // leaving its target unmarked; the temp file of a killed writer stayed behind for good.
  it("marks a symlinked PRD in its target, keeps the link, the mode, and removes a dead writer's temp file", async () => {
    const ws = flowWorkspace();
    const text = ws.writePrd([
      {
        mcpTools: { step1: ["slow"] },
        calls: { step1: [{ tool: "slow__append_line", args: { file: "log.txt", line: "x" } }] },
      },
    ]);
    const shared = join(ws.dir, "shared");
    mkdirSync(shared);
    const target = join(shared, "feature.json");
    renameSync(ws.prd, target);
    chmodSync(target, 0o640);
    symlinkSync(target, ws.prd);
    // What a writer killed mid-write leaves: its temp file, named after its (now dead) pid.
    const stale = join(shared, ".feature.json.999999999.0.tmp");
    writeFileSync(stale, "");
    const result = await ws.flow(["run", "prd.json", "--run-id", "linked"]);
    expect(result.stderr).not.toContain("could not mark");
    expect(result.code).toBe(0);
    expect(lstatSync(ws.prd).isSymbolicLink()).toBe(true);
    const marked = JSON.parse(readFileSync(target, "utf8")) as { userStories: Array<{ passes: boolean }> };
    expect(marked.userStories[0]?.passes).toBe(true);
    expect(readFileSync(target, "utf8")).not.toBe(text);
    expect(statSync(target).mode & 0o777).toBe(0o640);
    expect(readdirSync(shared)).toEqual(["feature.json"]);
    expect(readdirSync(ws.dir).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });
});
