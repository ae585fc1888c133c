import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { prdSchemaRef } from "../builtin.js";
import { EXIT, type ExitCode } from "../exitCodes.js";
import { type Output, printJson } from "../output.js";
import { type ProjectFacts, readProjectFacts } from "./projectFacts.js";

/** Options of `flow init`. */
export interface InitOptions {
  /** Ask nothing: take every answer from package.json. */
  yes?: boolean;
  json?: boolean;
  /** The project folder (default: the working folder). */
  dir?: string;
}

/** What `flow init` did with one file. */
interface InitFile {
  file: string;
  status: "written" | "kept" | "updated";
}

/** The commands `flow init` suggests next. */
const INIT_NEXT = ["npx flow validate prd/prd.json", "npx flow plan prd/prd.json", "npx flow run prd/prd.json"];

async function ask(facts: ProjectFacts, output: Output): Promise<ProjectFacts> {
  const { createInterface } = await import("node:readline/promises");
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const name = (await rl.question(`project name (${facts.name}): `)).trim() || facts.name;
    const shown = facts.test?.join(" ") ?? "none";
    const answer = (await rl.question(`test command, run as the story's verify (${shown}; "none" for none): `)).trim();
    const test = answer === "" ? facts.test : answer === "none" ? undefined : answer.split(/\s+/);
    return { name, test };
  } finally {
    rl.close();
    output.err("");
  }
}

function mcpConfig(test: string[] | undefined): unknown {
  const allow = test?.[0] ? ["--allow", test[0]] : [];
  return {
    mcpServers: {
      // `${FLOW_WORKSPACE:-.}`: the project, or the story's own worktree when `--parallel` isolates stories.
      filesystem: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "${FLOW_WORKSPACE:-.}"] },
      memory: {
        command: "npx",
        args: ["-y", "@modelcontextprotocol/server-memory"],
        // Relative to the config's folder (flow makes a `./` env value absolute there), so the file
        // travels with the project: the memory server itself would resolve it against its own package.
        env: { MEMORY_FILE_PATH: "${FLOW_MEMORY_FILE:-./.flow/memory.jsonl}" },
      },
      // `--no`: never fetch an unrelated package named "flow" from the registry; `--`: the rest is flow's.
      workspace: {
        command: "npx",
        args: ["--no", "--", "flow", "workspace-server", "--root", "${FLOW_WORKSPACE:-.}", ...allow],
      },
    },
  };
}

function firstPrd(facts: ProjectFacts, schema: string): unknown {
  const verify = facts.test ? [{ name: "tests", run: facts.test }] : undefined;
  return {
    $schema: schema,
    project: facts.name,
    branchName: "flow/first-run",
    description: `First meshflow PRD of ${facts.name}, written by flow init.`,
    userStories: [
      {
        id: "US-001",
        title: facts.test ? `The tests of ${facts.name} pass` : `Check ${facts.name}`,
        description: facts.test
          ? `As a maintainer I want \`${facts.test.join(" ")}\` to pass, run by the quality specialist and by the completion gate.`
          : "As a maintainer I want the project checked (add a test script to package.json, then a verify command here).",
        acceptanceCriteria: facts.test ? [`\`${facts.test.join(" ")}\` exits 0`] : ["The project has tests"],
        mavenSteps: [5],
        mcpTools: { step5: ["workspace"] },
        ...(verify ? { verify } : {}),
        priority: 1,
        passes: false,
        notes: "",
      },
    ],
  };
}

/** Writes `file` only when it does not exist yet. */
function writeNew(dir: string, file: string, text: string, done: InitFile[]): void {
  const path = join(dir, file);
  if (existsSync(path)) {
    done.push({ file, status: "kept" });
    return;
  }
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text, { flag: "wx" });
  done.push({ file, status: "written" });
}

/** Each `.gitignore` line that ignores a folder named `name` at the project's top (e.g. `.flow`, `/.flow/`). */
const ignoreLines = (name: string) => [name, `${name}/`, `/${name}`, `/${name}/`, `**/${name}`, `**/${name}/`];

/**
 * `.flow/` in `.gitignore`, and `node_modules/` in a project with a package.json: a run reads every
 * file git neither tracks nor ignores before and after each story, to tell which files it changed.
 */
function ignoreOwn(dir: string, done: InitFile[]): void {
  const path = join(dir, ".gitignore");
  const wanted = [".flow", ...(existsSync(join(dir, "package.json")) ? ["node_modules"] : [])];
  if (!existsSync(path)) {
    writeFileSync(path, wanted.map((name) => `${name}/\n`).join(""), { flag: "wx" });
    done.push({ file: ".gitignore", status: "written" });
    return;
  }
  const text = readFileSync(path, "utf8");
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  const missing = wanted.filter((name) => !ignoreLines(name).some((line) => lines.includes(line)));
  if (!missing.length) {
    done.push({ file: ".gitignore", status: "kept" });
    return;
  }
  appendFileSync(
    path,
    `${text === "" || text.endsWith("\n") ? "" : "\n"}${missing.map((name) => `${name}/\n`).join("")}`,
  );
  done.push({ file: ".gitignore", status: "updated" });
}

/**
 * `flow init`: sets a project up for meshflow — `.mcp.json` (filesystem, memory and meshflow's workspace
 * server allowing the test command), a first PRD `prd/prd.json` built from package.json, `.flow/` (and
 * `node_modules/` beside a package.json) in `.gitignore`. An existing file is never overwritten: it is named as kept and left alone.
 */
export async function initCommand(options: InitOptions, output: Output): Promise<ExitCode> {
  const dir = resolve(options.dir ?? ".");
  let facts = readProjectFacts(dir);
  if (!options.yes && !options.json && process.stdin.isTTY && process.stderr.isTTY) facts = await ask(facts, output);
  const done: InitFile[] = [];
  writeNew(dir, ".mcp.json", `${JSON.stringify(mcpConfig(facts.test), null, 2)}\n`, done);
  const prd = firstPrd(facts, prdSchemaRef(join(dir, "prd")));
  writeNew(dir, join("prd", "prd.json"), `${JSON.stringify(prd, null, 2)}\n`, done);
  ignoreOwn(dir, done);
  if (options.json) {
    printJson(output, { dir, files: done, next: INIT_NEXT });
    return EXIT.ok;
  }
  for (const { file, status } of done)
    output.out(status === "kept" ? `kept    ${file} (exists; left alone)` : `${status.padEnd(7)} ${file}`);
  if (!facts.test)
    output.err("flow: note: package.json has no test script: add one, then a verify command to prd/prd.json");
  output.out("\nnext:");
  for (const command of INIT_NEXT) output.out(`  ${command}`);
  return EXIT.ok;
}
