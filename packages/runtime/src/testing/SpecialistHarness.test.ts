import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineSpecialist } from "../specialists/defineSpecialist.js";
import { createSpecialistHarness, runSpecialist, type SpecialistHarness } from "./SpecialistHarness.js";

/** A notes server: a read-only reader and a destructive writer over an in-process map. */
function notesServer(notes: Map<string, string>) {
  return () => {
    const server = new McpServer({ name: "notes", version: "1.0.0" });
    server.registerTool(
      "read_text_file",
      { description: "Read a note", inputSchema: { path: z.string() }, annotations: { readOnlyHint: true } },
      async ({ path }) => ({ content: [{ type: "text" as const, text: notes.get(path) ?? "" }] }),
    );
    server.registerTool(
      "write_file",
      {
        description: "Write a note",
        inputSchema: { path: z.string(), content: z.string() },
        annotations: { readOnlyHint: false, destructiveHint: true },
      },
      async ({ path, content }) => {
        notes.set(path, content);
        return { content: [{ type: "text" as const, text: "written" }] };
      },
    );
    return server;
  };
}

const probe = defineSpecialist({
  name: "probe-agent",
  description: "reports what it sees",
  steps: [4],
  config: { limit: 3 },
  configSchema: z.strictObject({ limit: z.number().int() }),
  async think(ctx) {
    return ctx.pass("seen", {
      readers: ctx.toolsWith("filesystem_read").map((t) => t.qualifiedName),
      writers: ctx.toolsWith("filesystem_write").map((t) => t.qualifiedName),
      capabilities: ctx.capabilitiesOf("notes__write_file"),
      config: ctx.config,
      story: ctx.story.id,
      step: ctx.step,
    });
  },
});

describe("createSpecialistHarness", () => {
  const notes = new Map([["a.md", "# A"]]);
  let harness: SpecialistHarness;
  beforeAll(async () => {
    harness = await createSpecialistHarness({ servers: { notes: notesServer(notes) } });
  });
  afterAll(() => harness?.close());

  it("gives think() the step's repertoire with capabilities (skills/ found above the working directory) and settings", async () => {
    const run = await harness.run(probe);
    expect(run).toMatchObject({ status: "passed", step: 4, story: { id: "US-TEST", mcpTools: { step4: ["notes"] } } });
    expect(run.evidence).toEqual([
      {
        readers: ["notes__read_text_file"],
        writers: ["notes__write_file"],
        capabilities: ["filesystem_write"],
        config: { limit: 3 },
        story: "US-TEST",
        step: 4,
      },
    ]);
    expect(harness.tools.map((t) => t.qualifiedName)).toEqual(["notes__read_text_file", "notes__write_file"]);
  });

  it("puts the story's agentConfig over the specialist's config, and blocks on invalid settings without calling anything", async () => {
    const run = await harness.run(probe, { story: { id: "US-9", agentConfig: { "probe-agent": { limit: 7 } } } });
    expect((run.evidence[0] as { config: unknown }).config).toEqual({ limit: 7 });
    const invalid = await harness.run(probe, { story: { id: "US-9", agentConfig: { "probe-agent": { limit: "x" } } } });
    expect(invalid.status).toBe("blocked");
    expect(invalid.summary).toMatch(/^US-9: invalid settings .*: limit: /);
  });

  it("refuses a step that is not in the story's mavenSteps", async () => {
    await expect(harness.run(probe, { step: 5, story: { mavenSteps: [4] } })).rejects.toThrow(
      "step 5 is not in the test story's mavenSteps [4]",
    );
  });
});

describe("runSpecialist", () => {
  it("gives ctx.memory the earlier steps as an array and the recalled stories and learnings", async () => {
    const recaller = defineSpecialist({
      name: "recall-agent",
      description: "reports its memory",
      steps: [5],
      async think(ctx) {
        ctx.log.learn("memory was read");
        return ctx.pass(
          `${ctx.memory.map((m) => m.step).join(",")} | ${ctx.memory.stories.map((s) => s.storyId).join(",")} | ${ctx.memory.learnings.map((l) => l.text).join(",")}`,
        );
      },
    });
    const recalled = {
      prd: "prd-auth.json",
      storyId: "US-001",
      title: "Login",
      status: "passed" as const,
      summary: "done",
      files: [],
      learnings: ["tabs"],
      runId: "r0",
      time: "2026-01-01T00:00:00.000Z",
    };
    const run = await runSpecialist(recaller, {
      servers: {},
      skillsDir: false,
      memory: [
        { step: 1, specialist: "development-agent", outcome: { status: "passed", summary: "ok", evidence: [] } },
      ],
      recall: {
        stories: [recalled],
        learnings: [{ prd: "prd-auth.json", storyId: "US-001", text: "tabs", time: recalled.time }],
      },
    });
    expect(run.summary).toBe("1 | US-001 | tabs");
  });

  it("without a skills folder, tools have no capabilities and every step tool is in the repertoire", async () => {
    const run = await runSpecialist(probe, { servers: { notes: notesServer(new Map()) }, skillsDir: false });
    expect(run.evidence[0]).toMatchObject({ readers: [], writers: [], capabilities: [] });
    expect(run.repertoire).toHaveLength(2);
  });

  it("asks confirmDestructive before a destructive call; a declined call is refused, marked, never run, and blocks the step", async () => {
    const notes = new Map<string, string>();
    const asked: string[] = [];
    const writer = defineSpecialist({ name: "writer-agent", description: "writes", steps: [2] });
    const run = await runSpecialist(writer, {
      servers: { notes: notesServer(notes) },
      confirmDestructive: async (call) => {
        asked.push(`${call.tool} ${JSON.stringify(call.args)}`);
        return { allow: false, code: "confirmation_declined", reason: "not today" };
      },
      story: {
        calls: {
          step2: [
            { tool: "read_text_file", args: { path: "a.md" } },
            { tool: "write_file", args: { path: "a.md", content: "x" } },
          ],
        },
      },
    });
    expect(asked).toEqual(['notes__write_file {"path":"a.md","content":"x"}']);
    expect(notes.size).toBe(0);
    expect(run.status).toBe("blocked");
    expect(run.summary).toBe(
      "call 2 of 2 (write_file) failed: confirmation_declined: notes__write_file is destructive and was not run: not today",
    );
    expect(run.calls.at(-1)).toMatchObject({
      tool: "notes__write_file",
      code: "confirmation_declined",
      destructive: true,
    });
    expect(run.events.at(-1)).toMatchObject({ type: "tool.refused", code: "confirmation_declined", destructive: true });
  });
});
