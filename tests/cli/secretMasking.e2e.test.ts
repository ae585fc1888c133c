import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FIXTURE_AGENTS, testStories } from "../helpers/flowWorkspace.js";
import { writeMcpConfig } from "../helpers/mcpServers.js";
import { ROOT, runFlow } from "../helpers/runFlow.js";

const KEY = "k3y-5e8c1d9a7b";
// A server that fails at start and, like many CLIs, repeats the value of its bad option alone.
const rejecting = {
  command: process.execPath,
  args: [
    "-e",
    "const key = process.argv[1].split('=')[1]; console.error('invalid key ' + key + ' (from ' + process.argv[1] + ')'); process.exit(1)",
    "--",
    "--key=${TEST_KEY}",
  ],
};

// Starts, says its key on stderr, and says it again when its `crash` tool brings it down mid-call.
const leaky = {
  command: process.execPath,
  args: [join(ROOT, "tests/fixtures/servers/leaky-server.mjs"), "--key=${TEST_KEY}"],
};

function workspace() {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-secrets-"));
  writeMcpConfig(dir, { rejecting, leaky });
  const stories = testStories([
    { mcpTools: { step1: ["leaky"] }, calls: { step1: [{ tool: "leaky__crash", args: {} }] } },
  ]);
  writeFileSync(join(dir, "prd.json"), JSON.stringify({ project: "P", branchName: "b", userStories: stories }));
  const env = { TEST_KEY: KEY, FLOW_LOG_DIR: join(dir, ".flow", "logs"), FLOW_HOME: join(dir, ".flow") };
  return { dir, env };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

describe("secrets of the MCP config", () => {
  // Regression: only whole expanded arguments were masked, so a `${VAR}` value inside a larger
  // argument (`--key=${X}`) appeared in clear wherever it was repeated alone, and logs were 0644.
  it("masks a ${VAR} value inside an argument in diagnose (text and --json) and the server log", async () => {
    const { dir, env } = workspace();
    for (const args of [["diagnose"], ["diagnose", "--json"]]) {
      const result = await runFlow([...args, "--server", "rejecting"], { cwd: dir, env });
      expect(result.code).toBe(3);
      expect(result.stdout + result.stderr).toContain("invalid key *** (from ***)");
      expect(result.stdout + result.stderr).not.toContain(KEY);
    }
    const log = join(dir, ".flow", "logs", "rejecting.log");
    expect(readFileSync(log, "utf8")).toContain("invalid key ***");
    expect(readFileSync(log, "utf8")).not.toContain(KEY);
    expect(statSync(log).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, ".flow", "logs")).mode & 0o777).toBe(0o700);
  });

  it("masks it in a run's output, events, journal and logs, all owner-only", async () => {
    const { dir, env } = workspace();
    const result = await runFlow(["run", "prd.json", "--json"], {
      cwd: dir,
      env: { ...env, FLOW_AGENTS: FIXTURE_AGENTS },
    });
    expect(result.code).not.toBe(0);
    expect(result.stdout).toContain("key *** rejected");
    expect(result.stdout + result.stderr).not.toContain(KEY);
    const files = filesUnder(join(dir, ".flow"));
    expect(files.some((f) => f.endsWith("events.ndjson"))).toBe(true);
    for (const file of files) {
      expect(readFileSync(file, "utf8"), file).not.toContain(KEY);
      expect(statSync(file).mode & 0o077, file).toBe(0);
    }
    for (const folder of ["", "logs", "runs"]) expect(statSync(join(dir, ".flow", folder)).mode & 0o077).toBe(0);
  });

  // Regression: masking happened only in server logs and flow diagnose, so a ${VAR} value a tool
  // echoed in its error, or a verify command printed, reached events.ndjson, evidence, the snapshot,
  // story memory, flow status (text and --json), flow run --json and prd.progress.md.
  it("masks it in a tool's error and a verify command's output: in every file of the run and every output", async () => {
    const { dir, env } = workspace();
    const stories = testStories([
      {
        mcpTools: { step1: ["leaky"] },
        calls: { step1: [{ tool: "leaky__login", args: {} }] },
      },
      {
        mcpTools: { step1: ["leaky"] },
        calls: { step1: [{ tool: "leaky__ok", args: {} }] },
        verify: [
          {
            name: "prints the key",
            run: [process.execPath, "-e", "console.log('key: ' + process.env.TEST_KEY); process.exit(1)"],
          },
        ],
      },
    ]);
    writeFileSync(join(dir, "prd.json"), JSON.stringify({ project: "P", branchName: "b", userStories: stories }));
    const flowEnv = { ...env, FLOW_AGENTS: FIXTURE_AGENTS };
    const outputs: string[] = [];
    const run = await runFlow(["run", "prd.json", "--json"], { cwd: dir, env: flowEnv });
    outputs.push(run.stdout, run.stderr);
    expect(run.stdout).toContain("login failed: key *** is not valid");
    expect(run.stdout).toContain("key: ***");
    for (const args of [["status"], ["status", "--json"]]) {
      const status = await runFlow(args, { cwd: dir, env: flowEnv });
      outputs.push(status.stdout, status.stderr);
    }
    for (const output of outputs) expect(output).not.toContain(KEY);
    const files = filesUnder(dir);
    expect(files.some((f) => f.endsWith("events.ndjson"))).toBe(true);
    expect(files.some((f) => f.endsWith("prd.progress.md"))).toBe(true);
    for (const file of files) expect(readFileSync(file, "utf8"), file).not.toContain(KEY);
    for (const file of filesUnder(join(dir, ".flow"))) expect(statSync(file).mode & 0o077, file).toBe(0);
    // Every folder meshflow made for the run is owner-only too (.flow/cache was 0755).
    const folders = readdirSync(join(dir, ".flow"), { recursive: true, withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => join(e.parentPath, e.name));
    for (const folder of [join(dir, ".flow"), ...folders]) expect(statSync(folder).mode & 0o077, folder).toBe(0);
  });
});
