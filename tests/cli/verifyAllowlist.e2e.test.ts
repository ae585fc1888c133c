import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FLOW_BIN, runFlow } from "../helpers/runFlow.js";

// The first hour of a new user, as they walk it: `flow init` in a project without a test script writes
// a workspace server that allows nothing; they add a test script and `npm test` as the story's verify.
// `flow prd lint`, `flow run --dry-run` and `flow run` itself say, before step 5 runs, that its
// run_command would refuse `npm` (the allowlist the server states on the tool), and the args that allow it.

interface McpFile {
  mcpServers: Record<string, { command: string; args: string[] }>;
}

interface PrdFile {
  userStories: Array<Record<string, unknown>>;
}

const readJson = <T>(file: string) => JSON.parse(readFileSync(file, "utf8")) as T;
const writeJson = (file: string, value: unknown) => writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);

/** A fresh git project with a package.json without scripts, after `flow init --yes`. */
async function initialisedProject() {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-verify-allow-"));
  execFileSync("git", ["init", "-q", "-b", "main"], { cwd: dir });
  writeJson(join(dir, "package.json"), { name: "first-hour", scripts: {} });
  const env = { FLOW_AGENTS: undefined, FLOW_SKILLS: undefined, FLOW_MODEL: undefined, FLOW_HOME: undefined };
  const flow = (args: readonly string[]) => runFlow(args, { cwd: dir, env });
  const init = await flow(["init", "--yes"]);
  expect(init.code, init.stderr).toBe(0);
  const mcpFile = join(dir, ".mcp.json");
  const config = readJson<McpFile>(mcpFile);
  const workspace = config.mcpServers.workspace;
  // What init wrote: meshflow's workspace server, started through npx, with no --allow.
  expect(workspace?.args).toEqual(["--no", "--", "flow", "workspace-server", "--root", "${FLOW_WORKSPACE:-.}"]);
  // The same server from the built binary (this project has no node_modules/.bin/flow for npx).
  if (workspace) Object.assign(workspace, { command: process.execPath, args: [FLOW_BIN, ...workspace.args.slice(3)] });
  writeJson(mcpFile, config);
  return { dir, flow, mcpFile, prdFile: join(dir, "prd/prd.json") };
}

describe("a verify command the workspace server does not allow", () => {
  it("is named before the run with the args that allow it; with them added, the run passes", async () => {
    const project = await initialisedProject();
    writeJson(join(project.dir, "package.json"), {
      name: "first-hour",
      scripts: { test: "node -e \"console.log('tests pass')\"" },
    });
    const prd = readJson<PrdFile>(project.prdFile);
    const [first] = prd.userStories;
    expect(first).toMatchObject({ id: "US-001", mavenSteps: [5], mcpTools: { step5: ["workspace"] } });
    Object.assign(first ?? {}, { verify: [{ run: ["npm", "test"] }] });
    writeJson(project.prdFile, prd);
    const reason =
      'verify "npm test" would be refused by workspace__run_command in step 5 (quality-agent): MCP server "workspace" does not allow "npm" (allowed: none); to allow it, add "--allow", "npm" to the args of MCP server "workspace" in .mcp.json';

    const lint = await project.flow(["prd", "lint", "prd/prd.json"]);
    expect(lint.code).toBe(1);
    expect(lint.stdout).toContain(
      `prd/prd.json: $.userStories[0].verify[0]: warning: US-001: ${reason} [verify-not-allowed]`,
    );

    const run = await project.flow(["run", "prd/prd.json"]);
    expect(run.code).toBe(1);
    // Said at the start, as the first line on stderr (and not again among the warnings at the end).
    expect(run.stderr.split("\n")[0]).toBe(`flow: US-001: ${reason}`);
    expect(run.stderr.match(/would be refused/g)).toHaveLength(1);
    // What the notice foretold: step 5 blocked on the server's refusal.
    expect(run.stdout).toContain(
      'US-001 step 5 ⊘ blocked: verify "npm test" could not run through workspace__run_command: command_not_allowed',
    );

    // Many stories sharing the command: one notice naming the first ones and counting the rest.
    const more = [2, 3, 4, 5].map((n) => ({ ...first, id: `US-00${n}`, priority: n, passes: false }));
    writeJson(project.prdFile, { ...prd, userStories: [{ ...first, passes: false }, ...more] });
    const dry = await project.flow(["run", "prd/prd.json", "--dry-run"]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain(`flow: warning: US-001, US-002, US-003 and 2 more stories: ${reason}`);

    // The fix the notice names: the run now passes, and says nothing of it.
    writeJson(project.prdFile, { ...prd, userStories: [{ ...first, passes: false }] });
    const config = readJson<McpFile>(project.mcpFile);
    config.mcpServers.workspace?.args.push("--allow", "npm");
    writeJson(project.mcpFile, config);
    const fixed = await project.flow(["run", "prd/prd.json"]);
    expect(fixed.stderr).not.toContain("would be refused");
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(readJson<PrdFile>(project.prdFile).userStories[0]).toMatchObject({ id: "US-001", passes: true });
  }, 60_000);
});
