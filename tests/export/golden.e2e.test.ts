import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { npmServerEntry, writeMcpConfig } from "../helpers/mcpServers.js";
import { ROOT, runFlow } from "../helpers/runFlow.js";

// Golden files: the shipped specialists (agents/) exported for every harness and format, with the real
// filesystem and memory servers and the shipped skills. `UPDATE_GOLDEN=1 npx vitest run tests/export/golden`
// rewrites them after an intended change; review the diff like code.
const GOLDEN = join(ROOT, "tests/fixtures/export-golden");
const HARNESSES = ["claude-code", "opencode", "copilot"] as const;
const FORMATS = ["md", "json", "yaml"] as const;
const update = process.env.UPDATE_GOLDEN === "1";

let work: string;
let config: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "meshflow-golden-"));
  const root = join(work, "workspace");
  mkdirSync(root);
  config = writeMcpConfig(work, {
    filesystem: npmServerEntry("server-filesystem", [root]),
    memory: npmServerEntry("server-memory", [], { MEMORY_FILE_PATH: join(work, "memory.jsonl") }),
  });
});

function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.push(relative(dir, path).split("\\").join("/"));
    }
  };
  walk(dir);
  return out;
}

async function exportTo(harness: string, format: string): Promise<string> {
  const out = join(work, `${harness}-${format}`);
  const result = await runFlow(
    [
      "export",
      "agents",
      ...["--harness", harness, "--format", format, "--out", out],
      ...["--agents", join(ROOT, "agents"), "--skills", join(ROOT, "skills"), "--mcp-config", config],
      ...["--cache", join(work, "cache.json")],
    ],
    { cwd: work },
  );
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return out;
}

describe("flow export agents: golden files of the shipped specialists", () => {
  for (const harness of HARNESSES)
    it(`${harness}: md, json and yaml match tests/fixtures/export-golden/${harness}`, async () => {
      const outs = await Promise.all(FORMATS.map((format) => exportTo(harness, format)));
      FORMATS.forEach((format, i) => {
        const out = outs[i] as string;
        const golden = join(GOLDEN, harness, format);
        if (update) {
          rmSync(golden, { recursive: true, force: true });
          cpSync(out, golden, { recursive: true });
        }
        const written = files(out);
        expect(written.length).toBeGreaterThan(0);
        expect(written).toEqual(files(golden));
        for (const file of written)
          expect(readFileSync(join(out, file), "utf8"), `${harness}/${format}/${file}`).toBe(
            readFileSync(join(golden, file), "utf8"),
          );
      });
    });
});
