import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PrestartedServers } from "@meshflow/mcp/prestart";
import { afterEach, describe, expect, it } from "vitest";
import { prestartFor, prestartForResume } from "./prestart.js";

const opened: PrestartedServers[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((o) => o.close()));
});

/** A folder with an MCP config of two servers (`node -e` waiting on stdin) and PRDs naming them. */
function project(prds: Record<string, Array<{ id: string; servers: string[]; passes?: boolean }>>) {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-prestart-"));
  const wait = { command: process.execPath, args: ["-e", "process.stdin.resume()"] };
  writeFileSync(join(dir, ".mcp.json"), JSON.stringify({ mcpServers: { one: wait, two: wait } }));
  for (const [file, stories] of Object.entries(prds)) {
    mkdirSync(join(dir, file, ".."), { recursive: true });
    const userStories = stories.map((s) => ({ id: s.id, passes: s.passes ?? false, mcpTools: { step1: s.servers } }));
    writeFileSync(join(dir, file), JSON.stringify({ userStories }));
  }
  return dir;
}

function started(file: string | undefined, options: Parameters<typeof prestartFor>[1]): number[] {
  const result = prestartFor(file, options);
  if (result) opened.push(result);
  return result?.pids() ?? [];
}

describe("prestartFor", () => {
  it("starts the servers the stories to run name, once each", () => {
    const dir = project({
      "prd.json": [
        { id: "A", servers: ["one"] },
        { id: "B", servers: ["one", "two"] },
      ],
    });
    const mcpConfig = join(dir, ".mcp.json");
    expect(started(join(dir, "prd.json"), { mcpConfig })).toHaveLength(2);
    expect(started(join(dir, "prd.json"), { mcpConfig, story: ["A"] })).toHaveLength(1);
  });

  it("takes every PRD of a folder", () => {
    const dir = project({
      "prds/prd-a.json": [{ id: "A", servers: ["one"] }],
      "prds/b.prd.json": [{ id: "B", servers: ["two"] }],
    });
    expect(started(join(dir, "prds"), { mcpConfig: join(dir, ".mcp.json") })).toHaveLength(2);
  });

  it("starts nothing for passed stories, unknown servers, --rerun-failed or a file it cannot read", () => {
    const dir = project({
      "prd.json": [
        { id: "A", servers: ["one"], passes: true },
        { id: "B", servers: ["nowhere"] },
      ],
    });
    const mcpConfig = join(dir, ".mcp.json");
    expect(started(join(dir, "prd.json"), { mcpConfig })).toEqual([]);
    expect(started(join(dir, "prd.json"), { mcpConfig, rerunFailed: "x" })).toEqual([]);
    expect(started(join(dir, "missing.json"), { mcpConfig })).toEqual([]);
    expect(started(undefined, { mcpConfig })).toEqual([]);
  });
});

describe("prestartForResume", () => {
  it("starts the servers of the run's PRD and stories, as its record names them", () => {
    const dir = project({
      "prd.json": [
        { id: "A", servers: ["one"] },
        { id: "B", servers: ["two"] },
      ],
    });
    const store = join(dir, ".flow");
    mkdirSync(join(store, "runs", "r1"), { recursive: true });
    const record = { prd: join(dir, "prd.json"), options: { mcpConfig: join(dir, ".mcp.json"), stories: ["B"] } };
    writeFileSync(join(store, "runs", "r1", "run.json"), JSON.stringify(record));
    const resumed = (runId: string, mcpConfig?: string) => {
      const result = prestartForResume(runId, { store, mcpConfig });
      if (result) opened.push(result);
      return result?.pids() ?? [];
    };
    expect(resumed("r1")).toHaveLength(1);
    // An MCP config given to flow resume wins: this one names no server of the PRD.
    writeFileSync(join(dir, "other.json"), JSON.stringify({ mcpServers: {} }));
    expect(resumed("r1", join(dir, "other.json"))).toEqual([]);
    expect(resumed("missing")).toEqual([]);
    expect(resumed("../r1")).toEqual([]);
  });
});
