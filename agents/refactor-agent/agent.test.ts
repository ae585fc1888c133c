import { createSpecialistHarness, type SpecialistHarness } from "@meshflow/runtime/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FixtureFiles,
  filesystemServer,
  fixtureFiles,
  memoryServer,
  workspaceServer,
} from "../../tests/helpers/agentFixtures.js";
import refactorAgent from "./agent.js";

const lines = (n: number, word: string) =>
  Array.from({ length: n }, (_, i) => `export const ${word}${i} = ${i};`).join("\n");

const SHARED_BLOCK = [
  "function normaliseTitle(title) {",
  "  const trimmed = title.trim();",
  "  const collapsed = trimmed.replace(/\\s+/g, ' ');",
  "  const capital = collapsed.charAt(0).toUpperCase();",
  "  const result = capital + collapsed.slice(1);",
  "  return result.length > 80 ? result.slice(0, 80) : result;",
  "}",
].join("\n");

describe("refactor-agent", () => {
  let ws: FixtureFiles;
  let harness: SpecialistHarness;

  beforeAll(async () => {
    ws = fixtureFiles({
      "src/todo.js": `${lines(40, "todo")}\n`,
      "src/format.js": `${SHARED_BLOCK}\nexport { normaliseTitle };\n`,
      "src/legacy/import.js": `// copied from format.js\n${SHARED_BLOCK}\n`,
      "generated/big.js": `${lines(450, "big")}\n`,
      "assets/logo.png": Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]),
      "README.md": "# fixture\n",
    });
    harness = await createSpecialistHarness({
      servers: {
        workspace: workspaceServer(ws.root),
        filesystem: filesystemServer(ws.root),
        memory: memoryServer(ws.memoryFile),
      },
    });
  });
  afterAll(async () => {
    await harness?.close();
    ws?.cleanup();
  });

  it("passes a scope whose files are all within the limits, with the measurements as evidence", async () => {
    const run = await harness.run(refactorAgent, {
      step: 3,
      stepServers: ["workspace"],
      story: { agentConfig: { "refactor-agent": { paths: ["src"] } } },
    });
    expect(run.status).toBe("passed");
    expect(run.summary).toMatch(/^3 files, \d+ lines, 1 duplicated block; every file within 400 lines/);
    const evidence = run.evidence.at(-1) as {
      totals: { files: number };
      duplicates: string[];
      tools: { list: string };
    };
    expect(evidence.totals.files).toBe(3);
    expect(evidence.tools.list).toBe("workspace__file_stats");
    expect(evidence.duplicates).toEqual(["6 lines in 2 places: src/format.js:1-6, src/legacy/import.js:2-7"]);
  });

  it("fails on a file over the line limit and lists it as evidence (workspace server)", async () => {
    const run = await harness.run(refactorAgent, { step: 4, stepServers: ["workspace"] });
    expect(run.status).toBe("failed");
    expect(run.summary).toContain("1 file over the limits: generated/big.js: 450 lines > 400");
    expect((run.evidence.at(-1) as { oversized: string[] }).oversized).toEqual(["generated/big.js: 450 lines > 400"]);
    // Only read-only file tools were called.
    expect(new Set(run.calls.map((c) => c.tool))).toEqual(new Set(["workspace__file_stats", "workspace__read_file"]));
  });

  it("reaches the same verdict through the filesystem server's tools (found by capability)", async () => {
    const run = await harness.run(refactorAgent, { step: 6, stepServers: ["filesystem"] });
    expect(run.status).toBe("failed");
    expect(run.summary).toContain("generated/big.js: 450 lines > 400");
    expect((run.evidence.at(-1) as { tools: unknown }).tools).toEqual({
      list: "filesystem__directory_tree",
      read: "filesystem__read_text_file",
    });
  });

  it("takes limits from the story: a byte limit, and duplicated blocks that fail the step", async () => {
    const run = await harness.run(refactorAgent, {
      step: 3,
      stepServers: ["workspace"],
      story: {
        agentConfig: { "refactor-agent": { paths: ["src"], maxBytes: 300, duplicates: { maxBlocks: 0 } } },
      },
    });
    expect(run.status).toBe("failed");
    expect(run.summary).toMatch(/src\/todo\.js: \d+ bytes > 300/);
    expect(run.summary).toContain("1 duplicated blocks (limit 0)");
  });

  it("blocks the step on invalid settings, naming the field", async () => {
    const run = await harness.run(refactorAgent, {
      step: 3,
      stepServers: ["workspace"],
      story: { id: "US-042", agentConfig: { "refactor-agent": { maxLines: "many" } } },
    });
    expect(run.status).toBe("blocked");
    expect(run.summary).toMatch(/^US-042: invalid settings .*agentConfig\["refactor-agent"\].*maxLines: /);
    expect(run.calls).toEqual([]);
  });

  it("blocks when the repertoire has no file tools, and when the scope names a missing folder", async () => {
    const none = await harness.run(refactorAgent, { step: 3, stepServers: ["memory"] });
    expect(none.status).toBe("blocked");
    expect(none.summary).toContain("no tool to list files with");

    const missing = await harness.run(refactorAgent, {
      step: 3,
      stepServers: ["workspace"],
      story: { agentConfig: { "refactor-agent": { paths: ["nowhere"] } } },
    });
    expect(missing.status).toBe("blocked");
    expect(missing.summary).toContain("workspace__file_stats failed (not_found)");
  });
});
