import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runSpecialist } from "../testing/SpecialistHarness.js";
import { defineSpecialist } from "./defineSpecialist.js";
import { extendSpecialist } from "./extendSpecialist.js";

function counterServer() {
  let n = 0;
  const server = new McpServer({ name: "counter", version: "1.0.0" });
  server.registerTool("increment", { description: "Adds one", annotations: { idempotentHint: false } }, async () => ({
    content: [{ type: "text" as const, text: String(++n) }],
  }));
  return server;
}

const Schema = z.strictObject({
  threshold: z.number(),
  labels: z.array(z.string()),
  nested: z.strictObject({ a: z.number(), b: z.number() }),
});

const base = defineSpecialist({
  name: "count-agent",
  description: "passes when the counter reaches its threshold",
  steps: [4],
  config: { threshold: 1, labels: ["base"], nested: { a: 1, b: 2 } },
  configSchema: Schema,
  async think(ctx) {
    const result = await ctx.call("increment", {});
    const value = Number(result.content[0]?.text);
    return value >= (ctx.config.threshold as number)
      ? ctx.pass(`reached ${value}`, ctx.config)
      : ctx.fail(`only ${value}`, ctx.config);
  },
});

describe("extendSpecialist", () => {
  it("merges its settings over the base's and keeps everything it does not override", async () => {
    const strict = extendSpecialist(base, { name: "strict-count-agent", config: { threshold: 5, nested: { b: 9 } } });
    expect(strict).toMatchObject({ name: "strict-count-agent", steps: [4], description: base.description });
    expect(strict.config).toEqual({ threshold: 5, labels: ["base"], nested: { a: 1, b: 9 } });
    expect(base.config).toEqual({ threshold: 1, labels: ["base"], nested: { a: 1, b: 2 } });
    const run = await runSpecialist(strict, { servers: { counter: counterServer } });
    expect(run).toMatchObject({ status: "failed", summary: "only 1" });
    const baseRun = await runSpecialist(base, { servers: { counter: counterServer } });
    expect(baseRun).toMatchObject({ status: "passed", summary: "reached 1" });
  });

  it("hands an overriding think() the base's think(), so it can run it and change the outcome", async () => {
    const wrapped = extendSpecialist(base, {
      async think(ctx, inherited) {
        const first = await inherited(ctx);
        const second = await inherited(ctx);
        return first.status === "passed" && second.status === "passed"
          ? ctx.pass(`twice: ${first.summary}, ${second.summary}`)
          : ctx.fail("not twice");
      },
    });
    const run = await runSpecialist(wrapped, { servers: { counter: counterServer } });
    expect(run).toMatchObject({ status: "passed", summary: "twice: reached 1, reached 2" });
    expect(run.calls.map((c) => c.key.split("/").at(-1))).toEqual(["1", "2"]);
  });

  it("a base without think() hands on its scripted-calls plan", async () => {
    const scripted = defineSpecialist({ name: "plain-agent", description: "scripted", steps: [4] });
    const logged = extendSpecialist(scripted, {
      async think(ctx, inherited) {
        const outcome = await inherited(ctx);
        return { ...outcome, summary: `logged: ${outcome.summary}` };
      },
    });
    const run = await runSpecialist(logged, {
      servers: { counter: counterServer },
      story: { calls: { step4: [{ tool: "increment" }] } },
    });
    expect(run).toMatchObject({ status: "passed", summary: "logged: 1 scripted call succeeded" });
  });

  it("validates the result like defineSpecialist does", () => {
    expect(() => extendSpecialist(base, { config: { threshold: "high" } })).toThrow(
      /^invalid config of specialist "count-agent": threshold: /,
    );
    expect(() => extendSpecialist(base, { name: "Bad Name" })).toThrow(
      /name: a specialist name is lower-case kebab-case/,
    );
  });
});

describe("extendSpecialist (types)", () => {
  it("keeps the base's settings type for the override's ctx.config", () => {
    const base = defineSpecialist({
      name: "typed-agent",
      description: "typed settings",
      steps: [5],
      config: { level: 2 },
      configSchema: z.object({ level: z.number() }),
    });
    const extended = extendSpecialist(base, {
      name: "typed-agent-strict",
      config: { level: 3 },
      async think(ctx, baseThink) {
        // Compiles only while ctx.config is typed from the base's schema (unknown otherwise)…
        const level: number = ctx.config.level;
        // …and not as `any` either: a number is not a string.
        // @ts-expect-error
        const wrong: string = ctx.config.level;
        return level > 0 && wrong !== "" ? baseThink(ctx) : ctx.block("never");
      },
    });
    expect(extended.name).toBe("typed-agent-strict");
    expect(extended.config).toEqual({ level: 3 });
  });
});
