import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext } from "playwright-core";
import { type Row, stats } from "../measure.js";

/** Stories of the big run, and the lanes they ran in (`--parallel 4`). */
const STORIES = 2_000;
const LANES = 4;
/** First paint of the timeline must come within this (ms), on this machine. */
const GOAL_MS = 1_000;

/**
 * Writes run `big` into the store at `root`: 2,000 stories, four at a time, each one step with a
 * model turn and three tool calls (the third refused every 50th story, the step failed every 97th).
 */
export function writeBigRun(root: string): string {
  const runId = "big";
  const dir = join(root, "runs", runId);
  mkdirSync(dir, { recursive: true });
  const start = Date.parse("2026-02-01T00:00:00Z");
  const at = (ms: number) => new Date(start + ms).toISOString();
  const ids = Array.from({ length: STORIES }, (_, i) => `US-${String(i + 1).padStart(4, "0")}`);
  const lines: string[] = [];
  const base = { runId };
  const push = (e: Record<string, unknown>) => lines.push(JSON.stringify({ ...base, ...e }));
  push({ time: at(0), type: "run.started", prd: "/work/prd/big.json", stories: ids });
  let failed = 0;
  ids.forEach((storyId, i) => {
    const t0 = Math.floor(i / LANES) * 1_000 + (i % LANES) * 37;
    const status = i % 97 === 0 ? "failed" : "passed";
    if (status === "failed") failed++;
    const s = { storyId };
    push({ ...s, time: at(t0), type: "story.started" });
    push({ ...s, time: at(t0 + 1), type: "step.started", step: 1, specialist: "development-agent", tools: 9 });
    push({
      ...s,
      time: at(t0 + 120),
      type: "model.turn",
      step: 1,
      turn: 1,
      provider: "openai",
      model: "gpt-test",
      inputTokens: 1_200,
      outputTokens: 80,
      latencyMs: 110,
      toolCalls: ["memory__read_graph"],
      costUsd: 0.0021,
    });
    for (const seq of [1, 2, 3]) {
      const key = `${runId}/${storyId}/step1/${seq}`;
      const tool = `memory__tool_${seq}`;
      const time = at(t0 + 120 + seq * 200);
      if (seq === 3 && i % 50 === 0) {
        push({ ...s, time, type: "tool.refused", step: 1, key, tool, code: "tool_not_allowed", message: "no" });
        continue;
      }
      push({ ...s, time, type: "tool.called", step: 1, key, tool, argsDigest: "d", destructive: false });
      push({
        ...s,
        time: at(t0 + 120 + seq * 200 + 150),
        type: "tool.result",
        step: 1,
        key,
        tool,
        isError: false,
        resultDigest: "r",
        durationMs: 150,
      });
    }
    push({ ...s, time: at(t0 + 900), type: "step.finished", step: 1, status, summary: "done", calls: 3 });
    push({ ...s, time: at(t0 + 950), type: "story.finished", status, summary: "done" });
  });
  const end = at(Math.ceil(STORIES / LANES) * 1_000);
  push({
    time: end,
    type: "run.finished",
    status: failed ? "failed" : "passed",
    passed: STORIES - failed,
    failed,
    blocked: 0,
  });
  writeFileSync(join(dir, "events.ndjson"), `${lines.join("\n")}\n`);
  const record = {
    runId,
    prd: "/work/prd/big.json",
    prdDigest: "sha256:0",
    stories: ids,
    options: { agents: [], failFast: false, parallel: LANES },
    status: failed ? "failed" : "passed",
    createdAt: at(0),
    updatedAt: end,
    pid: 1,
    counts: { passed: STORIES - failed, failed, blocked: 0, skipped: 0 },
  };
  writeFileSync(join(dir, "run.json"), JSON.stringify(record, null, 2));
  return runId;
}

/** Time to the first bar (or story) shown, the page's JS heap and DOM nodes then. */
async function paint(
  context: BrowserContext,
  url: string,
  ready: string,
): Promise<{ ms: number; heap: number; nodes: number }> {
  const page = await context.newPage();
  try {
    await page.goto(url);
    await page.locator(ready).first().waitFor({ timeout: 60_000 });
    // The page's own clock: milliseconds since its navigation started.
    const ms = await page.evaluate("performance.now()");
    const cdp = await context.newCDPSession(page);
    await cdp.send("Performance.enable");
    const { metrics } = await cdp.send("Performance.getMetrics");
    const metric = (name: string) => metrics.find((m) => m.name === name)?.value ?? 0;
    return { ms: Number(ms), heap: metric("JSHeapUsedSize"), nodes: metric("Nodes") };
  } finally {
    await page.close();
  }
}

/**
 * The timeline of a 2,000-story run in chromium: time from navigation to the first bar drawn, the
 * page's JS heap and DOM nodes then, against the run's tree view of the same run in the same browser
 * (which draws every story). Goal: first paint ≤ 1 s.
 */
export async function timelineRows(context: BrowserContext, consoleUrl: string, runId: string): Promise<Row[]> {
  const timeline = `${consoleUrl}#/runs/${runId}?view=timeline`;
  const tree = `${consoleUrl}#/runs/${runId}`;
  const t: Array<{ ms: number; heap: number; nodes: number }> = [];
  const b: Array<{ ms: number; heap: number; nodes: number }> = [];
  // Alternating, after one untimed load of each (the server's first read of the run).
  await paint(context, timeline, ".waterfall .bar");
  await paint(context, tree, "details[data-story]");
  for (let i = 0; i < 5; i++) {
    t.push(await paint(context, timeline, ".waterfall .bar"));
    b.push(await paint(context, tree, "details[data-story]"));
  }
  const p50 = (xs: number[]) => stats(xs).p50;
  const ms = p50(t.map((x) => x.ms));
  const treeMs = p50(b.map((x) => x.ms));
  const mb = (bytes: number) => bytes / 1024 / 1024;
  const heap = mb(p50(t.map((x) => x.heap)));
  const treeHeap = mb(p50(b.map((x) => x.heap)));
  return [
    {
      suite: "console",
      case: `timeline first paint, ${STORIES} stories, p50`,
      value: ms,
      unit: "ms",
      baseline: { label: "tree view, same run", value: treeMs },
      goal: `≤ ${GOAL_MS} ms`,
      pass: ms <= GOAL_MS,
    },
    {
      suite: "console",
      case: `timeline JS heap, ${STORIES} stories, p50`,
      value: heap,
      unit: "MB",
      baseline: { label: "tree view, same run", value: treeHeap },
    },
    {
      suite: "console",
      case: `timeline DOM nodes, ${STORIES} stories, p50`,
      value: p50(t.map((x) => x.nodes)),
      unit: "nodes",
      baseline: { label: "tree view, same run", value: p50(b.map((x) => x.nodes)) },
    },
  ];
}
