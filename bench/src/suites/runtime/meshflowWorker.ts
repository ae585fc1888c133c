// Child process: meshflow's chief-analyst machine walks N stories × 3 steps through no-op code
// specialists, with the file run store on (events, snapshots, evidence, PRD write-back).
// Prints {steps, ms, maxRssKb} as JSON.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadRoutingTable, type McpConfig } from "@meshflow/core";
import { defineSpecialist, type Specialist } from "@meshflow/runtime";
import { createToolPlane, FileRunStore, startRun } from "@meshflow/runtime/host";
import { generatePrd } from "./generatePrd.js";

const stories = Number(process.argv[2] ?? 2000);
const dir = mkdtempSync(join(tmpdir(), "meshflow-bench-runtime-"));
const prdFile = join(dir, "prd.json");
writeFileSync(prdFile, generatePrd(stories));

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
