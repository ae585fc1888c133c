import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverEntry } from "../helpers/flowWorkspace.js";
import { ROOT, runFlow, runNode } from "../helpers/runFlow.js";

/** Runs a node script in `cwd` with an environment free of the outer vitest's variables. */
async function node(args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  const env = {
    ...Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith("VITEST") && !["NODE_ENV", "FORCE_COLOR"].includes(k)),
    ),
    NO_COLOR: "1",
  };
  const run = await runNode(args, { cwd, env });
  return { code: run.code, output: run.stdout + run.stderr };
}

describe("flow new specialist", () => {
  // A project as an agent developer has it: ESM, meshflow installed (node_modules), the skills folder.
  let project: string;
  beforeAll(() => {
    project = mkdtempSync(join(tmpdir(), "meshflow-scaffold-"));
    symlinkSync(join(ROOT, "node_modules"), join(project, "node_modules"));
    symlinkSync(join(ROOT, "skills"), join(project, "skills"));
    writeFileSync(join(project, "package.json"), '{ "name": "my-agents", "private": true, "type": "module" }\n');
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: "NodeNext",
          moduleResolution: "NodeNext",
          target: "ES2022",
          noEmit: true,
          skipLibCheck: true,
          types: ["node"],
        },
        include: ["agents/**/*.ts"],
      }),
    );
  });
  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it("scaffolds agent.ts, README.md and a test; the generated test passes unchanged, the code type-checks", async () => {
    const created = await runFlow(["new", "specialist", "docs-agent", "--steps", "9"], { cwd: project });
    expect(created.stderr).toBe("");
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(
      "created agents/docs-agent/agent.ts\ncreated agents/docs-agent/README.md\ncreated agents/docs-agent/agent.test.ts\n",
    );
    expect(readdirSync(join(project, "agents"))).toEqual(["docs-agent"]);
    expect(statSync(join(project, "agents/docs-agent")).mode & 0o777).toBe(0o755);
    expect(readFileSync(join(project, "agents/docs-agent/agent.ts"), "utf8")).toContain('name: "docs-agent"');

    const tests = await node([join(ROOT, "node_modules/vitest/vitest.mjs"), "run", "--root", project], project);
    expect(tests.output).toMatch(/Tests\D+3 passed \(3\)/);
    expect(tests.code).toBe(0);

    const types = await node([join(ROOT, "node_modules/typescript/bin/tsc"), "-p", project], project);
    expect(types.output).toBe("");
    expect(types.code).toBe(0);
  });

  it("loads in a real run: routed a step, it checks the story's files through the filesystem server", async () => {
    writeFileSync(join(project, "routing.yaml"), "steps:\n  9: docs-agent\n");
    const work = mkdtempSync(join(project, "files-"));
    writeFileSync(join(work, "GUIDE.md"), "# Guide\n");
    writeFileSync(
      join(project, ".mcp.json"),
      JSON.stringify({
        mcpServers: {
          filesystem: {
            command: process.execPath,
            args: [serverEntry("@modelcontextprotocol/server-filesystem"), work],
          },
        },
      }),
    );
    const story = (id: string, names: string[]) => ({
      id,
      title: id,
      mavenSteps: [9],
      mcpTools: { step9: ["filesystem"] },
      agentConfig: { "docs-agent": { files: names.map((n) => join(work, n)) } },
      priority: 1,
      passes: false,
      notes: "",
    });
    writeFileSync(
      join(project, "prd.json"),
      JSON.stringify(
        { project: "docs", userStories: [story("US-001", ["GUIDE.md"]), story("US-002", ["MISSING.md"])] },
        null,
        2,
      ),
    );
    const run = await runFlow(["run", "prd.json", "--routing", "routing.yaml", "--json"], { cwd: project });
    const finished = run.stdout
      .split("\n")
      .filter((l) => l.includes('"story.finished"'))
      .map((l) => JSON.parse(l) as { storyId: string; status: string; summary: string });
    expect(finished.map((e) => [e.storyId, e.status])).toEqual([
      ["US-001", "passed"],
      ["US-002", "failed"],
    ]);
    expect(finished[1]?.summary).toContain("MISSING.md: ENOENT");
    expect(run.code).toBe(1);
  });

  it("refuses a bad name and an existing folder (exit 2), leaving the folder as it was", async () => {
    const bad = await runFlow(["new", "specialist", "Docs_Agent"], { cwd: project });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"Docs_Agent" is not a specialist name: use lower-case kebab-case');
    const before = readFileSync(join(project, "agents/docs-agent/agent.ts"), "utf8");
    const again = await runFlow(["new", "specialist", "docs-agent"], { cwd: project });
    expect(again.code).toBe(2);
    expect(again.stderr).toBe("flow: agents/docs-agent already exists\n");
    expect(readFileSync(join(project, "agents/docs-agent/agent.ts"), "utf8")).toBe(before);
    expect(readdirSync(join(project, "agents"))).toEqual(["docs-agent"]);
  });
});
