import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadPrdFile, loadRoutingTable } from "@meshflow/core";
import { type Row, timeAsync, timeProcess } from "../measure.js";

const FLOW = fileURLToPath(new URL("../../../packages/cli/bin/flow.js", import.meta.url));

/** A generated PRD of `count` stories, each with three steps and two servers. */
export function generatePrd(count: number): string {
  const userStories = Array.from({ length: count }, (_, i) => ({
    id: `US-${String(i + 1).padStart(4, "0")}`,
    title: `Story ${i + 1}`,
    description: `As a user, I want feature ${i + 1} so that it helps.`,
    acceptanceCriteria: ["Typecheck passes", "Tests pass"],
    mavenSteps: [1, 5, 7],
    mcpTools: { step1: ["filesystem"], step5: ["everything"], step7: ["filesystem", "memory"] },
    verify: [{ run: ["npm", "test"] }],
    priority: i % 5,
    passes: false,
    notes: "",
  }));
  return JSON.stringify({ project: "Generated", branchName: "flow/gen", description: "", userStories }, null, 2);
}

/** `flow validate` on 1,000 stories and `flow --help` cold start, against a bare `node` start in the same run. */
export async function cliSuite(): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-bench-cli-"));
  const big = join(dir, "prd-1000.json");
  writeFileSync(big, generatePrd(1000));

  const node = timeProcess(process.execPath, ["-e", ""], 20);
  const help = timeProcess(process.execPath, [FLOW, "--help"], 20);
  const busy = await busyRefusal(dir);
  const validate = timeProcess(process.execPath, [FLOW, "validate", big], 10);
  const routing = loadRoutingTable();
  const inProcess = await timeAsync(() => loadPrdFile(big, { routing }), 30);

  return [
    { suite: "cli", case: "node -e '' (process floor)", value: node.p50, unit: "ms p50" },
    {
      suite: "cli",
      case: "flow --help (cold start)",
      value: help.p50,
      unit: "ms p50",
      baseline: { label: "node -e ''", value: node.p50 },
    },
    {
      suite: "cli",
      case: "flow validate, 1,000 stories (process)",
      value: validate.p50,
      unit: "ms p50",
      baseline: { label: "goal 1,000 ms", value: 1000 },
      goal: "< 1.0× (well under a second)",
      pass: validate.p50 < 1000,
    },
    ...busy,
    {
      suite: "cli",
      case: "loadPrdFile, 1,000 stories (in process)",
      value: inProcess.p50,
      unit: "ms p50",
    },
  ];
}

/**
 * `flow run` of a PRD another live process holds (its lock names a running process): the `prd_busy`
 * refusal, which comes before the run's modules load and its servers start, against `flow --version`
 * in the same run; goal ≤ 300 ms for the whole process.
 */
async function busyRefusal(dir: string): Promise<Row[]> {
  const prd = join(dir, "prd-busy.json");
  writeFileSync(prd, generatePrd(5));
  const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 600_000)"], { stdio: "ignore" });
  try {
    writeFileSync(join(dir, ".prd-busy.json.lock"), JSON.stringify({ runId: "holder", pid: holder.pid }));
    const version = timeProcess(process.execPath, [FLOW, "--version"], 20);
    const refused = timeProcess(process.execPath, [FLOW, "run", prd, "--store", join(dir, ".flow")], 20, [1]);
    return [
      { suite: "cli", case: "flow --version (cold start)", value: version.p50, unit: "ms p50" },
      {
        suite: "cli",
        case: "flow run of a busy PRD (prd_busy, process)",
        value: refused.p50,
        unit: "ms p50",
        baseline: { label: "goal 300 ms", value: 300 },
        goal: `≤ 1.0× (flow --version: ${version.p50.toFixed(0)} ms)`,
        pass: refused.p50 <= 300,
      },
    ];
  } finally {
    holder.kill();
  }
}
