import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadRoutingTable, type McpConfig } from "@meshflow/core";
import { InlineExecutor } from "@meshflow/mcp";
import { describe, expect, it } from "vitest";
import { startRun } from "../runSession.js";
import { defineSpecialist } from "../specialists/defineSpecialist.js";
import { FileRunStore } from "../store/FileRunStore.js";
import type { ToolPlane } from "../ToolPlane.js";
import { Git } from "./Git.js";
import { bookkeeping, prdWorkflow } from "./prdWorkflow.js";
import { StoryMemory } from "./StoryMemory.js";

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

/** A development step that learns, a quality step that reports its memory in its summary. */
const specialists = new Map([
  [
    "development-agent",
    defineSpecialist({
      name: "development-agent",
      description: "learns",
      async think(ctx) {
        ctx.log.learn(`learned in ${ctx.story.id}`);
        return ctx.story.id === "US-2" ? ctx.fail("broken on purpose") : ctx.pass(`built ${ctx.story.id}`);
      },
    }),
  ],
  [
    "quality-agent",
    defineSpecialist({
      name: "quality-agent",
      description: "reports memory",
      async think(ctx) {
        const { stories, learnings } = ctx.memory;
        const texts = learnings.map((l) => l.text);
        return ctx.pass(
          `steps ${ctx.memory.length}; stories ${stories.map((s) => s.storyId).join(",") || "-"}; learnings ${texts.join(",") || "-"}`,
        );
      },
    }),
  ],
]);

describe("prdWorkflow", () => {
  it("appends each story to the progress log and the story memory; later steps recall earlier stories and learnings", async () => {
    const dir = mkdtempSync(join(tmpdir(), "meshflow-workflow-"));
    const file = join(dir, "prd-x.json");
    const userStories = [1, 2, 3].map((i) => ({
      id: `US-${i}`,
      title: `Story ${i}`,
      mavenSteps: [1, 5],
      priority: i,
      passes: false,
      notes: "",
    }));
    writeFileSync(file, `${JSON.stringify({ project: "T", userStories }, null, 2)}\n`);
    const store = new FileRunStore(join(dir, ".flow"));
    const summaries: string[] = [];
    const session = await startRun(
      {
        plane: noTools,
        store,
        specialists,
        routing: loadRoutingTable(),
        mcpConfig,
        hooks: prdWorkflow({ prdFile: file, storeRoot: store.root }),
        onEvent: (e) => {
          if (e.type === "step.finished" && e.step === 5) summaries.push(`${e.storyId}: ${e.summary}`);
        },
      },
      { prdFile: file, record: { agents: [] } },
    );
    const summary = await session.done;
    expect(summary.counts).toMatchObject({ passed: 2, failed: 1 });
    // US-2 failed: not a finished story to recall, but its learning counts.
    expect(summaries).toEqual([
      "US-1: steps 1; stories -; learnings -",
      "US-3: steps 1; stories US-1; learnings learned in US-2,learned in US-1",
    ]);
    const progress = readFileSync(join(dir, "prd-x.progress.md"), "utf8");
    expect(progress).toMatch(/^# Progress of prd-x\.json\n/);
    expect(progress).toContain("## ✗ US-2 Story 2 (failed)");
    expect(progress).toContain("- summary: step 1 failed: broken on purpose");
    expect(progress).toContain("- files changed: none recorded");
    expect(new StoryMemory(store.root).entries(file).map((e) => [e.storyId, e.status, e.learnings])).toEqual([
      ["US-1", "passed", ["learned in US-1"]],
      ["US-2", "failed", ["learned in US-2"]],
      ["US-3", "passed", ["learned in US-3"]],
    ]);
  });
});

describe("bookkeeping", () => {
  it("counts the runtime's own files around PRDs as no one's change, the write-back's temp files included", async () => {
    const dir = mkdtempSync(join(tmpdir(), "meshflow-bookkeeping-"));
    execFileSync("git", ["init", "-q"], { cwd: dir });
    const git = await Git.find(dir);
    if (!git) throw new Error("git init failed");
    // Regression: a coalesced PRD mark was being written (its temp file existed) while `git status`
    // ran, so the temp file was taken for the story's work and `git add` of it failed once it was gone.
    const ours = bookkeeping(git, [join(git.root, "prds/prd-a.json")], join(git.root, ".flow"));
    const paths = [
      "prds/prd-a.json",
      "prds/prd-b.json",
      "prds/x.prd.json",
      "prds/prd-a.progress.md",
      "prds/.prd-a.json.lock",
      "prds/.prd-a.json.20864.38.tmp",
      "prds/archive/2026-prd-a.progress.md",
      ".flow/runs/r1/events.ndjson",
      "src/a.ts",
      "prds/notes.md",
      "prd-a.json",
    ];
    expect(paths.filter((p) => !ours(p))).toEqual(["src/a.ts", "prds/notes.md", "prd-a.json"]);
  });
});
