import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { MeshflowError } from "@meshflow/core";

/** What a project's package.json says about it: its name and how its tests run. */
export interface ProjectFacts {
  name: string;
  /** argv of the test command, e.g. ["npm", "test"]; undefined without a test script. */
  test: string[] | undefined;
}

/**
 * The project in `dir` by its package.json (`flow init`, `flow prd convert`, `flow prd lint`): its name
 * (else the folder's) and `npm test` when it has a real test script (npm's placeholder only fails).
 */
export function readProjectFacts(dir: string): ProjectFacts {
  const file = join(dir, "package.json");
  let pkg: { name?: unknown; scripts?: Record<string, unknown> } = {};
  if (existsSync(file)) {
    try {
      pkg = JSON.parse(readFileSync(file, "utf8")) as typeof pkg;
    } catch (cause) {
      throw new MeshflowError("json_invalid", `${file}: not valid JSON (${(cause as Error).message})`, { cause });
    }
  }
  const name = typeof pkg.name === "string" && pkg.name ? pkg.name : (dir.split(/[\\/]/).pop() ?? "project");
  const script = pkg.scripts?.test;
  // npm's placeholder test script only fails: no verify command from it.
  const usable = typeof script === "string" && script.trim() !== "" && !script.includes("no test specified");
  return { name, test: usable ? ["npm", "test"] : undefined };
}
