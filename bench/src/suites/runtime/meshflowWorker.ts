// Child process: meshflow's chief-analyst machine walks N stories × 3 steps through no-op code
// specialists, with the file run store on (events, snapshots, evidence, PRD write-back).
// Prints {steps, ms, maxRssKb} as JSON.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadRoutingTable, type McpConfig } from "@meshflow/core";
import { createToolPlane, defineSpecialist, FileRunStore, type Specialist, startRun } from "@meshflow/runtime";

const stories = Number(process.argv[2] ?? 2000);
const dir = mkdtempSync(join(tmpdir(), "meshflow-bench-runtime-"));
const prdFile = join(dir, "prd.json");
const userStories = Array.from({ length: stories }, (_, i) => ({
  id: `US-${String(i + 1).padStart(4, "0")}`,
  title: `Story ${i + 1}`,
  description: `As a user, I want feature ${i + 1}.`,
  acceptanceCriteria: ["Typecheck passes"],
  mavenSteps: [1, 3, 5],
  priority: 1,
  passes: false,
  notes: "",
}));
writeFileSync(prdFile, `${JSON.stringify({ project: "Bench", userStories }, null, 2)}\n`);

const noop = (name: string): Specialist =>
  defineSpecialist({ name, description: "no-op", think: async (ctx) => ctx.pass(`${name} did step ${ctx.step}`) });
const specialists = new Map(["development-agent", "refactor-agent", "quality-agent"].map((n) => [n, noop(n)]));
const mcpConfig: McpConfig = { file: undefined, source: "none", servers: new Map(), invalid: new Map(), problems: [] };
const plane = await createToolPlane({ mcpConfig });

const start = performance.now();
let steps = 0;
const session = await startRun(
  {
    plane,
    store: new FileRunStore(join(dir, ".flow")),
    specialists,
    routing: loadRoutingTable(),
    mcpConfig,
    onEvent: (e) => {
      if (e.type === "step.finished") steps++;
    },
  },
  { prdFile, record: { agents: [] } },
);
const summary = await session.done;
const ms = performance.now() - start;
await plane.close();
if (summary.status !== "passed") throw new Error(`bench run ended ${summary.status}: ${summary.error?.message ?? ""}`);
process.stdout.write(`${JSON.stringify({ steps, ms, maxRssKb: process.resourceUsage().maxRSS })}\n`);
