import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { startConsole } from "@meshflow/console";
import { chromium } from "playwright-core";
import { type Row, stats } from "../measure.js";
import { timelineRows, writeBigRun } from "./consoleTimeline.js";

const RUNS = 1_000;
/** Rows the runs list renders first (its page size); "Show more" adds the rest. */
const SHOWN = 200;
const WEB = fileURLToPath(new URL("../../../packages/console/dist/web/", import.meta.url));
const CHROMIUM = process.env.FLOW_TEST_CHROMIUM ?? "/usr/bin/chromium";
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A run store of `RUNS` finished runs, each with one story of one step and three tool calls. */
function generateStore(): string {
  const root = mkdtempSync(join(tmpdir(), "meshflow-bench-console-"));
  const start = Date.parse("2026-01-01T00:00:00Z");
  for (let i = 0; i < RUNS; i++) {
    const runId = `bench-${String(i).padStart(4, "0")}`;
    const dir = join(root, "runs", runId);
    mkdirSync(dir, { recursive: true });
    const at = (ms: number) => new Date(start + i * 60_000 + ms).toISOString();
    const record = {
      runId,
      prd: `/work/prd/feature-${i % 17}.json`,
      prdDigest: "sha256:0",
      stories: ["US-001"],
      options: { agents: [], failFast: false },
      status: i % 9 === 0 ? "failed" : "passed",
      createdAt: at(0),
      updatedAt: at(900),
      pid: 1,
      counts: { passed: i % 9 === 0 ? 0 : 1, failed: i % 9 === 0 ? 1 : 0, blocked: 0, skipped: 0 },
    };
    writeFileSync(join(dir, "run.json"), JSON.stringify(record, null, 2));
    const base = { runId };
    const events = [
      { ...base, time: at(0), type: "run.started", prd: record.prd, stories: ["US-001"] },
      { ...base, time: at(1), type: "story.started", storyId: "US-001" },
      { ...base, time: at(2), type: "step.started", storyId: "US-001", step: 1, specialist: "dev", tools: 9 },
      ...[1, 2, 3].flatMap((seq) => {
        const key = `${runId}/US-001/step1/${seq}`;
        const tool = `memory__tool_${seq}`;
        return [
          {
            ...base,
            time: at(seq * 100),
            type: "tool.called",
            storyId: "US-001",
            step: 1,
            key,
            tool,
            argsDigest: "d",
            destructive: false,
          },
          {
            ...base,
            time: at(seq * 100 + 40),
            type: "tool.result",
            storyId: "US-001",
            step: 1,
            key,
            tool,
            isError: false,
            resultDigest: "r",
            durationMs: 40 + seq,
          },
        ];
      }),
      {
        ...base,
        time: at(800),
        type: "step.finished",
        storyId: "US-001",
        step: 1,
        status: "passed",
        summary: "ok",
        calls: 3,
      },
      {
        ...base,
        time: at(850),
        type: "story.finished",
        storyId: "US-001",
        status: "passed",
        summary: "ok",
        tokens: { input: 1200, output: 300, turns: 2 },
      },
      {
        ...base,
        time: at(900),
        type: "run.finished",
        status: record.status,
        passed: 1,
        failed: 0,
        blocked: 0,
        tokens: { input: 1200, output: 300, turns: 2 },
      },
    ];
    writeFileSync(join(dir, "events.ndjson"), `${events.map((e) => JSON.stringify(e)).join("\n")}\n`);
  }
  return root;
}

/** Bytes of the built front end (every file of dist/web), raw and gzip-compressed one by one. */
function pageWeight(): { raw: number; gzip: number; files: number } {
  let raw = 0;
  let gzip = 0;
  let files = 0;
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else {
        const body = readFileSync(path);
        raw += body.length;
        gzip += gzipSync(body, { level: 9 }).length;
        files++;
      }
    }
  };
  walk(WEB);
  return { raw, gzip, files };
}

/**
 * The console's page weight, and the time from navigation to the runs list of a 1,000-run store
 * showing its first page in chromium (first load: the server reads every run; then with its cache
 * warm), plus the list API alone; then the timeline of a 2,000-story run (first paint, heap, DOM).
 */
export async function consoleSuite(): Promise<Row[]> {
  const weight = pageWeight();
  const store = generateStore();
  const running = await startConsole({ storeRoot: store, port: 0 });
  const profile = mkdtempSync(join(tmpdir(), "meshflow-bench-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
  });
  try {
    const samples: number[] = [];
    for (let i = 0; i < 11; i++) {
      const page = await context.newPage();
      const start = performance.now();
      await page.goto(running.url);
      await page.locator(`tr[data-run="bench-${String(RUNS - 1).padStart(4, "0")}"]`).waitFor({ timeout: 60_000 });
      samples.push(performance.now() - start);
      const total = await page.getByText(`${RUNS.toLocaleString("en")} runs in the store`).count();
      const rows = await page.locator("tr[data-run]").count();
      if (total !== 1 || rows !== SHOWN)
        throw new Error(`the runs list shows ${rows} rows of ${RUNS} runs, expected ${SHOWN}`);
      await page.close();
    }
    const [cold = 0, ...warm] = samples;
    const warmStats = stats(warm);
    const apiSamples: number[] = [];
    for (let i = 0; i < 10; i++) {
      const start = performance.now();
      await (await fetch(`${running.url}api/runs`)).json();
      apiSamples.push(performance.now() - start);
    }
    const bigStore = mkdtempSync(join(tmpdir(), "meshflow-bench-console-big-"));
    const big = await startConsole({ storeRoot: bigStore, port: 0 });
    let timeline: Row[];
    try {
      timeline = await timelineRows(context, big.url, writeBigRun(bigStore));
    } finally {
      await big.close();
      rmSync(bigStore, { recursive: true, force: true });
    }
    return [
      { suite: "console", case: `page weight: ${weight.files} files of dist/web`, value: weight.raw, unit: "bytes" },
      { suite: "console", case: "page weight gzip", value: weight.gzip, unit: "bytes" },
      { suite: "console", case: `first render, ${RUNS} runs (${SHOWN} rows), cold server`, value: cold, unit: "ms" },
      {
        suite: "console",
        case: `first render, ${RUNS} runs (${SHOWN} rows), warm p50`,
        value: warmStats.p50,
        unit: "ms",
      },
      {
        suite: "console",
        case: `first render, ${RUNS} runs (${SHOWN} rows), warm p99`,
        value: warmStats.p99,
        unit: "ms",
      },
      { suite: "console", case: `GET /api/runs, ${RUNS} runs, warm p50`, value: stats(apiSamples).p50, unit: "ms" },
      ...timeline,
    ];
  } finally {
    await context.close();
    await running.close();
    rmSync(profile, { recursive: true, force: true });
    rmSync(store, { recursive: true, force: true });
  }
}
