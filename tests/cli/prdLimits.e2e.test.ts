import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURE_AGENTS, testStories } from "../helpers/flowWorkspace.js";
import { runFlow } from "../helpers/runFlow.js";

// Regression: a PRD was read whole, without a bound, by every command (1 M stories, 278 MB: flow
// validate took 45 s and 1.4 GB; a 1 GiB file failed with "Invalid string length" after reading it).
// Its size is now checked before it is read and its stories counted as they are split off.

let dir: string;
const redisDown = "redis://127.0.0.1:1";
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "meshflow-prd-limits-"));
  writeFileSync(join(dir, ".mcp.json"), JSON.stringify({ mcpServers: {} }));
  // A sparse 1 GiB file: no disk used, but a size far over the 256 MiB default.
  const fd = openSync(join(dir, "huge.json"), "w");
  ftruncateSync(fd, 1024 * 1024 * 1024);
  closeSync(fd);
  writeFileSync(join(dir, "four.json"), JSON.stringify({ project: "P", userStories: testStories([{}, {}, {}, {}]) }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const flow = (args: string[], env: Record<string, string> = {}) =>
  runFlow(args, { cwd: dir, env: { FLOW_AGENTS: FIXTURE_AGENTS, ...env } });

/** Each command that reads a PRD, as a user would start it on `file`. */
const commands = (file: string): string[][] => [
  ["validate", file],
  ["plan", file],
  ["run", file, "--mcp-config", ".mcp.json"],
  ["enqueue", file, "--redis", redisDown],
];

describe("PRD size limits", () => {
  it("refuses a 1 GiB PRD from its size, before reading it, in validate, plan, run and enqueue", async () => {
    for (const args of commands("huge.json")) {
      const result = await flow(args);
      expect(result.code, args.join(" ")).toBe(1);
      expect(result.stderr).toContain(
        "huge.json: 1073741824 bytes, more than the PRD limit of 268435456; raise it with --max-prd-bytes <bytes> or FLOW_MAX_PRD_BYTES",
      );
    }
  }, 120_000);

  it("refuses a PRD over --max-prd-stories (or FLOW_MAX_PRD_STORIES) in validate, plan, run and enqueue", async () => {
    const message =
      "four.json: more than 3 stories in $.userStories, the PRD limit; raise it with --max-prd-stories <n> or FLOW_MAX_PRD_STORIES";
    for (const args of commands("four.json")) {
      const byFlag = await flow([...args, "--max-prd-stories", "3"]);
      expect(byFlag.code, args.join(" ")).toBe(1);
      expect(byFlag.stderr).toContain(message);
      const byEnv = await flow(args, { FLOW_MAX_PRD_STORIES: "3" });
      expect(byEnv.code, args.join(" ")).toBe(1);
      expect(byEnv.stderr).toContain(message);
    }
    const json = await flow(["validate", "four.json", "--max-prd-stories", "3", "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: "prd_too_large" } });
    expect((await flow(["validate", "four.json", "--max-prd-stories", "4"])).code).toBe(0);
    const bytes = await flow(["validate", "four.json", "--max-prd-bytes", "100"]);
    expect(bytes.code).toBe(1);
    expect(bytes.stderr).toMatch(
      /four\.json: \d+ bytes, more than the PRD limit of 100; raise it with --max-prd-bytes/,
    );
  }, 120_000);

  it("refuses 100,001 stories by default, and a limit that is not a number is a usage error", async () => {
    const story = testStories([{}])[0];
    const stories = Array.from({ length: 100_001 }, (_, i) => ({ ...story, id: `US-${i}` }));
    writeFileSync(join(dir, "many.json"), JSON.stringify({ project: "P", userStories: stories }));
    const result = await flow(["validate", "many.json"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("many.json: more than 100000 stories in $.userStories, the PRD limit");
    const typo = await flow(["validate", "four.json"], { FLOW_MAX_PRD_STORIES: "lots" });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('must be a positive whole number of stories, not "lots"');
  }, 120_000);

  it("shows both limits and their defaults in --help", async () => {
    for (const command of ["validate", "plan", "run", "enqueue"]) {
      const help = (await flow([command, "--help"])).stdout.replace(/\s+/g, " ");
      expect(help, command).toContain("--max-prd-stories <n>");
      expect(help, command).toContain("(default: 100000, env: FLOW_MAX_PRD_STORIES)");
      expect(help, command).toContain("--max-prd-bytes <bytes>");
      expect(help, command).toContain("(default: 268435456 (256 MiB), env: FLOW_MAX_PRD_BYTES)");
    }
  }, 60_000);
});
