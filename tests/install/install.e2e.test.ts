import { execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ScriptedModelServer } from "@meshflow/model/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers/runFlow.js";

const exec = promisify(execFile);
const KEY = "sk-test-meshflow-install";

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** A user's environment: none of the outer vitest's or meshflow's variables, no colour. */
function userEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !k.startsWith("VITEST") && !k.startsWith("FLOW_") && !["NODE_ENV", "FORCE_COLOR"].includes(k),
    ),
  );
  return { ...env, NO_COLOR: "1", npm_config_update_notifier: "false" };
}

async function run(
  command: string,
  args: string[],
  cwd: string,
  timeout = 120_000,
  env: Record<string, string> = {},
): Promise<Result> {
  try {
    const { stdout, stderr } = await exec(command, args, {
      cwd,
      env: { ...userEnv(), ...env },
      timeout,
      maxBuffer: 32 << 20,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: unknown; stdout?: string; stderr?: string };
    return {
      code: typeof e.code === "number" ? e.code : -1,
      stdout: e.stdout ?? "",
      stderr: e.stderr ?? String(error),
    };
  }
}

/** The version of a package this repository installed, so the temp project's install hits the npm cache. */
function installedVersion(name: string): string {
  return (JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8")) as { version: string })
    .version;
}

const PUBLISHED = readdirSync(join(ROOT, "packages")).filter((p) => {
  const pkg = JSON.parse(readFileSync(join(ROOT, "packages", p, "package.json"), "utf8")) as { private?: boolean };
  return pkg.private !== true;
});

/** The project's `$schema`, resolved from the PRD's folder as an editor resolves it. */
function schemaOf(prdFile: string): string {
  const ref = (JSON.parse(readFileSync(prdFile, "utf8")) as { $schema: string }).$schema;
  return join(prdFile, "..", ref);
}

// The user's path, walked as a user walks it: every published workspace packed to a tarball (after
// `npm run build`), a fresh project outside the repository, the tarballs installed there with npm, and
// the `flow` binary run through npx. Third-party packages come from the npm cache (or the registry).
describe("@meshflow/cli installed from packed tarballs", { timeout: 120_000 }, () => {
  let work: string;
  let project: string;
  let packed: Result;
  let tarballs: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "meshflow-install-"));
    tarballs = join(work, "tarballs");
    // What the README tells a user of a checkout: `npm run pack` (its build already done by the suite).
    packed = await run(process.execPath, [join(ROOT, "scripts", "pack.mjs"), "--out", tarballs], ROOT, 300_000);
    expect(packed.code, packed.stderr).toBe(0);
    project = join(work, "my-app");
    mkdirSync(join(project, "test"), { recursive: true });
    writeFileSync(
      join(project, "package.json"),
      `${JSON.stringify({ name: "my-app", version: "1.0.0", private: true, type: "module", scripts: { test: "node --test" } }, null, 2)}\n`,
    );
    writeFileSync(join(project, "test", "sum.test.js"), 'import test from "node:test";\ntest("adds", () => {});\n');
    const installed = await run(
      "npm",
      [
        "install",
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
        "--save-dev",
        ...readdirSync(tarballs).map((t) => join(tarballs, t)),
        `@modelcontextprotocol/server-filesystem@${installedVersion("@modelcontextprotocol/server-filesystem")}`,
        `@modelcontextprotocol/server-memory@${installedVersion("@modelcontextprotocol/server-memory")}`,
        `vitest@${installedVersion("vitest")}`,
        `typescript@${installedVersion("typescript")}`,
        `@types/node@${installedVersion("@types/node")}`,
      ],
      project,
      300_000,
    );
    expect(installed.code, installed.stderr).toBe(0);
  }, 360_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("npm run pack writes every publishable package's tarball to one folder and prints the install line", () => {
    // The README's `npm install -D @meshflow/cli` ended in E404 before the packages are published.
    expect(PUBLISHED).toEqual(expect.arrayContaining(["cli", "core", "harness", "model"]));
    const names = readdirSync(tarballs).sort();
    expect(names).toEqual(PUBLISHED.map((p) => `meshflow-${p}-${installedVersionOf(project)}.tgz`).sort());
    expect(packed.stdout).toContain(`packed ${PUBLISHED.length} packages into`);
    expect(packed.stdout).toContain(`npm install -D ${tarballs}/*.tgz`);
  });

  it("packs every published workspace with its bundles and type declarations, not the compiler's other output", () => {
    expect(PUBLISHED).toContain("cli");
    for (const p of PUBLISHED) {
      const dist = join(project, "node_modules", "@meshflow", p, "dist");
      expect(existsSync(join(dist, "bundle", "index.js")), p).toBe(true);
      expect(existsSync(join(dist, "index.d.ts")), p).toBe(true);
      // What the bundles were made from stays out of the package.
      expect(existsSync(join(dist, "index.js")), p).toBe(false);
      expect(existsSync(join(dist, ".tsbuildinfo")), p).toBe(false);
    }
    // The built-in specialists ship compiled: loaded with Node's own import(), no transpiler.
    const builtin = join(project, "node_modules", "@meshflow", "cli", "builtin", "agents", "quality-agent");
    expect(existsSync(join(builtin, "agent.js"))).toBe(true);
    expect(existsSync(join(builtin, "agent.ts"))).toBe(false);
  });

  it("gives the flow and meshflow commands", async () => {
    const version = await run("npx", ["flow", "--version"], project);
    expect(version.stdout.trim()).toBe(installedVersionOf(project));
    const second = await run("npx", ["meshflow", "--version"], project);
    expect(second.stdout.trim()).toBe(version.stdout.trim());
  });

  it("sets the project up, validates, plans and runs its first PRD with the built-in specialists", async () => {
    const init = await run("npx", ["flow", "init", "--yes"], project);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain("written .mcp.json");
    expect(init.stdout).toContain("npx flow run prd/prd.json");
    expect(readFileSync(join(project, ".gitignore"), "utf8").split("\n")).toEqual(
      expect.arrayContaining([".flow/", "node_modules/"]),
    );
    const prd = JSON.parse(readFileSync(join(project, "prd", "prd.json"), "utf8"));
    expect(prd.project).toBe("my-app");
    expect(prd.userStories[0].verify).toEqual([{ name: "tests", run: ["npm", "test"] }]);

    // What flow init wrote travels with the project: no absolute path, a $schema that resolves.
    const mcp = readFileSync(join(project, ".mcp.json"), "utf8");
    expect(mcp).not.toContain(project);
    expect(JSON.parse(mcp).mcpServers.memory.env.MEMORY_FILE_PATH).toBe("${FLOW_MEMORY_FILE:-./.flow/memory.jsonl}");
    // Rooted at the story's own worktree when `--parallel` isolates stories, at the project otherwise.
    expect(JSON.parse(mcp).mcpServers.filesystem.args.at(-1)).toBe("${FLOW_WORKSPACE:-.}");
    expect(JSON.parse(mcp).mcpServers.workspace.args).toContain("${FLOW_WORKSPACE:-.}");
    expect(prd.$schema).toBe("../node_modules/@meshflow/cli/builtin/prd.schema.json");
    expect(JSON.parse(readFileSync(schemaOf(join(project, "prd", "prd.json")), "utf8")).title).toBe("meshflow PRD");

    const again = await run("npx", ["flow", "init", "--yes", "--json"], project);
    expect(JSON.parse(again.stdout).files.map((f: { status: string }) => f.status)).toEqual(["kept", "kept", "kept"]);

    const validate = await run("npx", ["flow", "validate", "prd/prd.json"], project);
    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stdout).toContain("valid (1 story, 1 step)");

    const plan = await run("npx", ["flow", "plan", "prd/prd.json"], project);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/step 5\s+Quality\s+quality-agent\s+workspace/);

    // The three servers flow init configured start from the project (npx finds the installed ones).
    const tools = await run("npx", ["flow", "tools", "list", "--json"], project);
    expect(tools.code, tools.stderr).toBe(0);
    const servers = new Set((JSON.parse(tools.stdout) as { server: string }[]).map((t) => t.server));
    expect([...servers].sort()).toEqual(["filesystem", "memory", "workspace"]);

    const flowRun = await run("npx", ["flow", "run", "prd/prd.json"], project);
    expect(flowRun.code, flowRun.stdout + flowRun.stderr).toBe(0);
    expect(flowRun.stdout).toContain("US-001 step 5 ✓ passed");
    const after = JSON.parse(readFileSync(join(project, "prd", "prd.json"), "utf8"));
    expect(after.userStories[0].passes).toBe(true);
  });

  it("keeps the memory server's file in the project, where the relative path in .mcp.json says", async () => {
    const called = await run(
      "npx",
      [
        "flow",
        "tools",
        "call",
        "memory__create_entities",
        "--yes",
        "--args",
        JSON.stringify({ entities: [{ name: "first-hour", entityType: "note", observations: ["kept"] }] }),
      ],
      project,
    );
    expect(called.code, called.stdout + called.stderr).toBe(0);
    expect(readFileSync(join(project, ".flow", "memory.jsonl"), "utf8")).toContain("first-hour");
  });

  it("takes a folder of PRDs in validate and plan, and refuses one in reset by name", async () => {
    // validate and plan exited 2 with EISDIR on a folder; reset printed a bare EISDIR.
    const only = await run("npx", ["flow", "validate", "prd"], project);
    expect(only.code).toBe(2);
    expect(only.stderr).toContain("prd: no PRD files (prd-*.json, *.prd.json) in this folder; it holds prd.json");
    const second = JSON.parse(readFileSync(join(project, "prd", "prd.json"), "utf8"));
    second.userStories[0].id = "US-002";
    writeFileSync(join(project, "prd", "prd-second.json"), JSON.stringify(second, null, 2));
    const validate = await run("npx", ["flow", "validate", "prd"], project);
    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stdout).toContain("prd-second.json: valid (1 story, 1 step)");
    const plan = await run("npx", ["flow", "plan", "prd", "--json"], project);
    expect(plan.code, plan.stderr).toBe(0);
    expect(JSON.parse(plan.stdout).prds[0].stories[0].id).toBe("US-002");
    const reset = await run("npx", ["flow", "reset", "prd"], project);
    expect(reset.code).toBe(2);
    expect(reset.stderr).toContain("prd is a folder (its PRDs: prd-second.json); flow reset takes one PRD file");
    expect(reset.stderr).not.toContain("EISDIR");
    rmSync(join(project, "prd", "prd-second.json"));
  });

  it("runs a verify from the project's root for a PRD in prd/, and refuses a cwd outside the project", async () => {
    // "cwd": ".." was refused because the PRD sits in prd/; the project (here the folder of .mcp.json) bounds it.
    const prd = JSON.parse(readFileSync(join(project, "prd", "prd.json"), "utf8"));
    // A scripted step (the memory server's graph read) so the completion gate itself runs the command.
    const story = {
      ...prd.userStories[0],
      id: "US-ROOT",
      passes: false,
      mavenSteps: [1],
      mcpTools: { step1: ["memory"] },
      calls: { step1: [{ tool: "memory__read_graph", args: {} }] },
      verify: [{ name: "root", run: ["node", "-e", "require('fs').accessSync('package.json')"], cwd: ".." }],
    };
    // The quality specialist runs its verify through the workspace server, whose paths are relative to
    // its own root (the project): ".." from prd/ is that root, not a folder above it.
    const quality = {
      ...prd.userStories[0],
      id: "US-QUALITY",
      passes: false,
      verify: [{ name: "tests from the root", run: ["npm", "test"], cwd: ".." }],
    };
    writeFileSync(
      join(project, "prd", "root.json"),
      JSON.stringify({ ...prd, userStories: [story, quality] }, null, 2),
    );
    const ran = await run("npx", ["flow", "run", "prd/root.json"], project);
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    expect(ran.stdout).toContain("US-QUALITY step 5 ✓ passed");
    const outside = { ...story, verify: [{ run: ["node", "-e", "0"], cwd: "../.." }] };
    writeFileSync(join(project, "prd", "outside.json"), JSON.stringify({ ...prd, userStories: [outside] }, null, 2));
    const refused = await run("npx", ["flow", "validate", "prd/outside.json"], project);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`found "../..": outside the project ${project}`);
    rmSync(join(project, "prd", "root.json"));
    rmSync(join(project, "prd", "outside.json"));
  });

  it("says which key variable each provider reads, and warns once when a set one is not sent", async () => {
    const help = await run("npx", ["flow", "run", "--help"], project);
    expect(help.stdout.replace(/\s+/g, " ")).toContain("openai-compatible reads only FLOW_MODEL_API_KEY");
    const server = await ScriptedModelServer.start({ apiKey: KEY });
    try {
      const args = [
        "flow",
        "run",
        "prd/prd.json",
        "--model",
        "openai-compatible:local",
        "--model-base-url",
        server.baseUrl,
      ];
      writeFileSync(
        join(project, "prd", "prd.json"),
        readFileSync(join(project, "prd", "prd.json"), "utf8").replace('"passes": true', '"passes": false'),
      );
      // openai-compatible sends only FLOW_MODEL_API_KEY: the user's OPENAI_API_KEY is named, and the refused
      // request ends the run at once (exit 3), not story by story.
      const ignored = await run("npx", args, project, 120_000, { OPENAI_API_KEY: KEY });
      expect(ignored.code, ignored.stdout + ignored.stderr).toBe(3);
      const warning =
        "warning: OPENAI_API_KEY is set but not sent to openai-compatible models, which read only FLOW_MODEL_API_KEY";
      expect(ignored.stderr.split(warning)).toHaveLength(2);
      server.enqueue({ toolCalls: [{ name: "step_pass", input: { summary: "tests pass" } }] });
      const sent = await run("npx", args, project, 120_000, { FLOW_MODEL_API_KEY: KEY });
      expect(sent.code, sent.stdout + sent.stderr).toBe(0);
      expect(sent.stderr).not.toContain("warning:");
    } finally {
      await server.close();
    }
  });

  it("scaffolds a specialist whose generated test passes with the project's vitest", async () => {
    const created = await run("npx", ["flow", "new", "specialist", "my-agent"], project);
    expect(created.code, created.stderr).toBe(0);
    const test = await run("npx", ["vitest", "run", "agents/my-agent"], project);
    expect(test.code, test.stdout + test.stderr).toBe(0);
    expect(test.stdout).toMatch(/3 passed/);
    // It type-checks against the installed packages' declarations (their own declarations checked too).
    const checked = await run(
      "npx",
      [
        "tsc",
        "--noEmit",
        "--strict",
        "--module",
        "nodenext",
        "--moduleResolution",
        "nodenext",
        "--target",
        "es2022",
        "agents/my-agent/agent.ts",
        "agents/my-agent/agent.test.ts",
      ],
      project,
    );
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);
    // The project's own specialist is known next to the built-in ones.
    const validate = await run("npx", ["flow", "validate", "prd/prd.json", "--json"], project);
    expect(JSON.parse(validate.stdout).valid).toBe(true);
  });

  it("serves the web console's page from the installed package (no CDN, no build step)", async () => {
    const child = spawn(
      process.execPath,
      [join(project, "node_modules", "@meshflow", "cli", "bin", "flow.js"), "console", "--port", "0", "--json"],
      { cwd: project, stdio: ["ignore", "pipe", "pipe"] },
    );
    const exit = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    try {
      let stdout = "";
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on("data", (d: Buffer) => {
          stdout += d.toString("utf8");
          try {
            resolve((JSON.parse(stdout) as { url: string }).url);
          } catch {
            // Not all of it yet.
          }
        });
        void exit.then((code) => reject(new Error(`flow console exited ${code}`)));
      });
      const page = await (await fetch(url)).text();
      const script = /src="(\/assets\/[^"]+\.js)"/.exec(page)?.[1];
      expect(script, page).toBeDefined();
      expect(page).not.toMatch(/https?:\/\//);
      const asset = await fetch(new URL(script ?? "", url));
      expect(asset.status).toBe(200);
      expect(asset.headers.get("content-type")).toContain("javascript");
      expect((await fetch(new URL("/api/runs", url))).status).toBe(200);
    } finally {
      child.kill("SIGTERM");
      await exit;
    }
  });
});

function installedVersionOf(project: string): string {
  const file = join(project, "node_modules", "@meshflow", "cli", "package.json");
  return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
}
