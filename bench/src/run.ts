import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Row } from "./measure.js";
import { cliSuite } from "./suites/cli.js";
import { consoleSuite } from "./suites/console.js";
import { gatewaySuite } from "./suites/gateway.js";
import { harnessSuite } from "./suites/harness.js";
import { mcpSuite } from "./suites/mcp.js";
import { modelSuite } from "./suites/model.js";
import { modelEconomySuite } from "./suites/modelEconomy.js";
import { parallelSuite } from "./suites/parallel.js";
import { parallelGitSuite } from "./suites/parallelGit.js";
import { queueSuite } from "./suites/queue.js";
import { resolverSuite } from "./suites/resolver.js";
import { runMcpSuite } from "./suites/runMcp.js";
import { runtimeSuite } from "./suites/runtime.js";
import { scaleSuite } from "./suites/scale.js";
import { sessionsSuite } from "./suites/sessions.js";
import { workspaceSuite } from "./suites/workspace.js";

/** Every suite by name; `npm run bench -- <name…>` runs a subset. */
const SUITES: Record<string, () => Promise<Row[]>> = {
  cli: cliSuite,
  console: consoleSuite,
  gateway: gatewaySuite,
  harness: harnessSuite,
  mcp: mcpSuite,
  model: modelSuite,
  "model-economy": modelEconomySuite,
  parallel: parallelSuite,
  "parallel-git": parallelGitSuite,
  queue: queueSuite,
  resolver: resolverSuite,
  "run-mcp": runMcpSuite,
  runtime: runtimeSuite,
  scale: scaleSuite,
  sessions: sessionsSuite,
  workspace: workspaceSuite,
};

function format(rows: readonly Row[]): string {
  const lines = rows.map((r) => {
    const ratio = r.baseline ? `${(r.value / r.baseline.value).toFixed(2)}× ${r.baseline.label}` : "";
    const goal = r.goal ? `goal ${r.goal} ${r.pass ? "✓" : "✗"}` : "";
    return `${r.suite.padEnd(9)} ${r.case.padEnd(50)} ${r.value.toFixed(2).padStart(10)} ${r.unit.padEnd(10)} ${ratio.padEnd(30)} ${goal}`;
  });
  return lines.join("\n");
}

const wanted = process.argv.slice(2);
const names = wanted.length ? wanted : Object.keys(SUITES);
const unknown = names.filter((n) => !SUITES[n]);
if (unknown.length) {
  console.error(`unknown suite(s): ${unknown.join(", ")}; known: ${Object.keys(SUITES).join(", ")}`);
  process.exit(2);
}
const rows: Row[] = [];
for (const name of names) {
  const suite = SUITES[name];
  if (!suite) continue;
  process.stderr.write(`running ${name}…\n`);
  const result = await suite();
  rows.push(...result);
  console.log(format(result));
}
const dir = fileURLToPath(new URL("../results/", import.meta.url));
mkdirSync(dir, { recursive: true });
const file = `${dir}${new Date().toISOString().replace(/[:.]/g, "-")}.json`;
writeFileSync(`${file}.tmp`, JSON.stringify({ node: process.version, rows }, null, 2));
renameSync(`${file}.tmp`, file);
console.log(`\nresults: ${file}`);
if (rows.some((r) => r.pass === false)) process.exitCode = 1;
