import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join, relative, resolve } from "node:path";
import { MeshflowError, packageFile } from "@meshflow/core";
import { EXIT, type ExitCode } from "../exitCodes.js";
import { type Output, printJson } from "../output.js";

/** Options of `flow new specialist`. */
export interface NewSpecialistOptions {
  dir?: string;
  steps?: number[];
  description?: string;
  json?: boolean;
}

/** The files a scaffold writes, from `packages/cli/templates/specialist/<file>.tmpl`. */
const FILES = ["agent.ts", "README.md", "agent.test.ts"] as const;

// Works from the sources (src/commands) and the build (dist/commands): both are two levels below the package.
const TEMPLATES = packageFile(import.meta.url, "templates/specialist");

/**
 * `flow new specialist <name>`: writes `<dir>/<name>/{agent.ts,README.md,agent.test.ts}` — a working
 * specialist (reads the files its settings name through a `filesystem_read` tool) and a test that runs
 * it against an in-memory MCP server with `@meshflow/runtime/testing`. The folder appears whole or not
 * at all (written beside it, then renamed). An existing folder is never touched.
 */
export async function newSpecialistCommand(
  name: string,
  options: NewSpecialistOptions,
  output: Output,
): Promise<ExitCode> {
  if (!/^[a-z][a-z0-9-]*$/.test(name))
    throw new MeshflowError("usage", `"${name}" is not a specialist name: use lower-case kebab-case, e.g. docs-agent`);
  const parent = resolve(options.dir ?? "agents");
  const target = join(parent, name);
  if (existsSync(target))
    throw new MeshflowError("usage", `${relative(process.cwd(), target) || target} already exists`);
  const steps = [...new Set(options.steps ?? [])].sort((a, b) => a - b);
  const shown = relative(process.cwd(), target) || ".";
  const values: Record<string, string> = {
    __NAME__: name,
    __DESCRIPTION__: (options.description ?? "Checks that the files a story names exist and are not empty.").replace(
      /["\\\n]/g,
      " ",
    ),
    __STEPS__: steps.join(", "),
    __STEPS_TEXT__: steps.length ? steps.join(", ") : "none declared yet",
    __FIRST_STEP__: String(steps[0] ?? 11),
    __DIR__: shown,
  };
  mkdirSync(parent, { recursive: true });
  const staging = mkdtempSync(join(parent, `.${name}.`));
  try {
    for (const file of FILES) {
      const template = readFileSync(join(TEMPLATES, `${file}.tmpl`), "utf8");
      writeFileSync(
        join(staging, file),
        template.replace(/__[A-Z_]+__/g, (key) => values[key] ?? key),
      );
    }
    // mkdtemp makes the folder private (0700); the specialist's folder is an ordinary one.
    chmodSync(staging, 0o755);
    renameSync(staging, target);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  const created = FILES.map((f) => join(shown, f));
  if (options.json) printJson(output, { name, folder: target, files: created });
  else {
    for (const file of created) output.out(`created ${file}`);
    output.out(`\nnext: npx vitest run ${shown}`);
    output.out(
      `      route steps to it with flow run --routing <file> ({"steps": {"${values.__FIRST_STEP__}": "${name}"}})`,
    );
  }
  return EXIT.ok;
}
