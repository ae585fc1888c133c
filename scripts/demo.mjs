#!/usr/bin/env node
// `npm run demo`: runs the demo PRD (prd/examples/demo) with the shipped specialists on a temporary
// copy, so the repository stays as it is, then checks the run against prd/examples/demo/expected.json.
//
// Exit codes: 0 when the run ended exactly as expected (the green stories passed and the planted
// problem was caught, so `flow run` itself exited 1); 1 when the outcome differed (each difference
// is printed); 2 or 3 when `flow` could not run at all (its own usage or environment codes).
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
// An argument names another copy of the demo folder (the demo's own tests plant a different outcome there);
// arguments after `--` go to `flow run` (scripts/record-demo-cassette.mjs records the cassette that way).
const dashes = process.argv.indexOf("--");
const own = dashes < 0 ? process.argv.slice(2) : process.argv.slice(2, dashes);
const flowArgs = dashes < 0 ? [] : process.argv.slice(dashes + 1);
const source = own[0] ? resolve(own[0]) : join(root, "prd", "examples", "demo");
const expected = JSON.parse(readFileSync(join(source, "expected.json"), "utf8"));
const flowBin = join(root, "packages", "cli", "bin", "flow.js");
if (!existsSync(join(root, "packages", "cli", "dist", "bundle", "bin.js"))) {
  process.stderr.write("demo: meshflow is not built yet: run `npm ci` (or `npm run build`) first\n");
  process.exit(3);
}

const dir = mkdtempSync(join(tmpdir(), "meshflow-demo-"));
cpSync(source, dir, { recursive: true, filter: (path) => !relative(source, path).startsWith(".flow") });
const store = join(dir, ".flow");
process.stdout.write(`demo: running ${relative(root, join(source, "prd.json"))} on a copy in ${dir}\n\n`);

const env = { ...process.env, MESHFLOW_HOME: root, FLOW_MEMORY_FILE: join(store, "memory.jsonl") };
// The demo runs with the default routing and the shipped specialists and skills, whatever the shell says.
for (const name of ["FLOW_ROUTING", "FLOW_MCP_CONFIG", "FLOW_AGENTS", "FLOW_SKILLS", "FLOW_HOME", "FLOW_MODEL"])
  delete env[name];
const args = [
  flowBin,
  "run",
  "prd.json",
  "--mcp-config",
  ".mcp.json",
  "--agents",
  join(root, "agents"),
  "--skills",
  join(root, "skills"),
  "--store",
  store,
  // The model-driven story is answered from the recording beside the PRD: no key, no network.
  ...(flowArgs.includes("--record") ? [] : ["--replay", "model.cassette.json"]),
  ...flowArgs,
];
const code = await new Promise((resolve, reject) => {
  // flow's own "run folder:" line names the folder relative to the copy; the demo prints it whole at the
  // end, so flow's is left out here (it said the same thing twice). Everything else on stderr passes.
  const child = spawn(process.execPath, args, { cwd: dir, env, stdio: ["inherit", "inherit", "pipe"] });
  let pending = "";
  child.stderr.on("data", (chunk) => {
    const lines = (pending + chunk.toString("utf8")).split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) if (!line.startsWith("run folder: ")) process.stderr.write(`${line}\n`);
  });
  child.stderr.on("end", () => {
    if (pending && !pending.startsWith("run folder: ")) process.stderr.write(pending);
  });
  child.on("error", reject);
  child.on("close", (exit, signal) => resolve(exit ?? (signal ? 130 : 1)));
});

const runsDir = join(store, "runs");
const runs = existsSync(runsDir) ? readdirSync(runsDir) : [];
if (code === 2 || code === 3 || runs.length !== 1) {
  process.stderr.write(`\ndemo: flow could not run the demo (exit ${code}); nothing to compare. Files: ${dir}\n`);
  process.exit(code === 2 || code === 3 ? code : 1);
}
const runFolder = join(runsDir, runs[0]);
const events = readFileSync(join(runFolder, "events.ndjson"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((line) => JSON.parse(line));
const stories = new Map(events.filter((e) => e.type === "story.finished").map((e) => [e.storyId, e.status]));
const steps = events.filter((e) => e.type === "step.finished");
const prd = JSON.parse(readFileSync(join(dir, "prd.json"), "utf8"));

const differences = [];
if (code !== expected.flowExitCode) differences.push(`flow exited ${code}, expected ${expected.flowExitCode}`);
for (const [id, status] of Object.entries(expected.stories)) {
  const got = stories.get(id) ?? "not run";
  if (got !== status) differences.push(`${id} ${got}, expected ${status}`);
  const marked = prd.userStories.find((s) => s.id === id)?.passes === true;
  if (marked !== (status === "passed")) differences.push(`${id} has passes: ${marked} in the updated PRD`);
}
const caught = steps.find((e) => e.storyId === expected.caught.story && e.step === expected.caught.step);
if (caught?.status !== "failed" || !caught.summary.includes(expected.caught.summary))
  differences.push(
    `${expected.caught.story} step ${expected.caught.step} did not report "${expected.caught.summary}"` +
      (caught ? ` (it said: ${caught.status}: ${caught.summary})` : ""),
  );

const passed = [...stories].filter(([, s]) => s === "passed").map(([id]) => id);
process.stdout.write("\n");
process.stdout.write(`run folder:  ${runFolder}\n`);
process.stdout.write(`updated PRD: ${join(dir, "prd.json")} (passes: true on ${passed.join(", ") || "no story"})\n`);
process.stdout.write(`inspect:     npx flow status ${runs[0]} --store ${store}\n\n`);
if (differences.length) {
  process.stderr.write(`demo: the run did NOT end as expected (prd/examples/demo/expected.json):\n`);
  for (const d of differences) process.stderr.write(`  - ${d}\n`);
  process.exit(1);
}
process.stdout.write(
  `demo: as expected — ${passed.join(", ")} passed; ${expected.caught.story} caught the planted problem: ` +
    `${expected.caught.summary}.\n` +
    `      (flow run exits ${code} because a story failed; npm run demo exits 0 because that is the expected outcome.)\n`,
);
