import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { median, type Row } from "../measure.js";

const STORIES = 2_000;
const ROUNDS = 3;

interface Sample {
  steps: number;
  ms: number;
  maxRssKb: number;
}

/** Runs one side in its own process, so its peak RSS is its own. */
function runWorker(file: string): Sample {
  const worker = fileURLToPath(new URL(`./runtime/${file}`, import.meta.url));
  const result = spawnSync(process.execPath, [worker, String(STORIES)], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`${file} exited ${result.status ?? result.signal}: ${result.stderr}`);
  const sample = JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "{}") as Sample;
  if (sample.steps !== STORIES * 3) throw new Error(`${file} ran ${sample.steps} steps, expected ${STORIES * 3}`);
  return sample;
}

/**
 * Routing throughput: 2,000 stories × 3 steps through no-op code specialists. meshflow runs its
 * chief-analyst machine with the file run store on (events, snapshots, evidence, PRD write-back);
 * LangGraph.js runs a supervisor graph with MemorySaver. Each side runs in its own child process
 * (honest peak RSS), alternating, ROUNDS times; medians are compared.
 */
export async function runtimeSuite(): Promise<Row[]> {
  const meshflow: Sample[] = [];
  const langgraph: Sample[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    meshflow.push(runWorker("meshflowWorker.js"));
    langgraph.push(runWorker("langgraphWorker.js"));
  }
  const rate = (s: Sample) => (s.steps / s.ms) * 1000;
  const mRate = median(meshflow.map(rate));
  const lRate = median(langgraph.map(rate));
  const mRss = median(meshflow.map((s) => s.maxRssKb / 1024));
  const lRss = median(langgraph.map((s) => s.maxRssKb / 1024));
  return [
    { suite: "runtime", case: "LangGraph supervisor + MemorySaver, 6,000 steps", value: lRate, unit: "steps/s" },
    {
      suite: "runtime",
      case: "meshflow run (run store on), 6,000 steps",
      value: mRate,
      unit: "steps/s",
      baseline: { label: "LangGraph", value: lRate },
      goal: "≥ 10×",
      pass: mRate >= 10 * lRate,
    },
    { suite: "runtime", case: "LangGraph peak RSS", value: lRss, unit: "MB" },
    {
      suite: "runtime",
      case: "meshflow peak RSS",
      value: mRss,
      unit: "MB",
      baseline: { label: "LangGraph", value: lRss },
      goal: "≤ 0.5×",
      pass: mRss <= 0.5 * lRss,
    },
  ];
}
