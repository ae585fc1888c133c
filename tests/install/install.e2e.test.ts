import { execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers/runFlow.js";

const exec = promisify(execFile);

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

async function run(command: string, args: string[], cwd: string, timeout = 120_000): Promise<Result> {
  try {
    const { stdout, stderr } = await exec(command, args, { cwd, env: userEnv(), timeout, maxBuffer: 32 << 20 });
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

// The user's path, walked as a user walks it: every published workspace packed to a tarball (after
// `npm run build`), a fresh project outside the repository, the tarballs installed there with npm, and
// the `flow` binary run through npx. Third-party packages come from the npm cache (or the registry).
describe("@meshflow/cli installed from packed tarballs", { timeout: 120_000 }, () => {
  let work: string;
  let project: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "meshflow-install-"));
    const tarballs = join(work, "tarballs");
    mkdirSync(tarballs);
    for (const p of PUBLISHED) {
      const packed = await run("npm", ["pack", "--silent", "--pack-destination", tarballs], join(ROOT, "packages", p));
      expect(packed.code, packed.stderr).toBe(0);
    }
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
    expect(readFileSync(join(project, ".gitignore"), "utf8")).toContain(".flow/");
    const prd = JSON.parse(readFileSync(join(project, "prd", "prd.json"), "utf8"));
    expect(prd.project).toBe("my-app");
    expect(prd.userStories[0].verify).toEqual([{ name: "tests", run: ["npm", "test"] }]);

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
