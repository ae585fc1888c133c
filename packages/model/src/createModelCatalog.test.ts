import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Story } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { createModelCatalog } from "./createModelCatalog.js";
import { ScriptedModelServer } from "./testing/ScriptedModelServer.js";

const story = (model?: string) =>
  ({ id: "US-001", title: "t", mavenSteps: [1], ...(model ? { model } : {}) }) as unknown as Story;

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("createModelCatalog", () => {
  it("chooses --model, then the story's model, then the PRD's, then FLOW_MODEL", () => {
    const env = { FLOW_MODEL: "openai:from-env" };
    const plain = createModelCatalog({ env });
    expect(plain.nameFor(story(), undefined)).toBe("openai:from-env");
    expect(plain.nameFor(story(), "anthropic:from-prd")).toBe("anthropic:from-prd");
    expect(plain.nameFor(story("openai:from-story"), "anthropic:from-prd")).toBe("openai:from-story");
    const flagged = createModelCatalog({ env, model: "anthropic:from-flag" });
    expect(flagged.nameFor(story("openai:from-story"), "anthropic:from-prd")).toBe("anthropic:from-flag");
    expect(createModelCatalog({ env: {} }).nameFor(story(), undefined)).toBeUndefined();
  });

  it("refuses a model name that is not <provider>:<model-id>", () => {
    expect(() => createModelCatalog({ env: {}, model: "gpt-4" })).toThrow(/--model: "gpt-4" is not a model name/);
    expect(() => createModelCatalog({ env: { FLOW_MODEL: "mistral:x" } })).toThrow(/FLOW_MODEL/);
  });

  it("warns once per provider when a set key variable is not sent", async () => {
    // openai-compatible sent only FLOW_MODEL_API_KEY: a user's OPENAI_API_KEY was ignored without a word.
    const server = await ScriptedModelServer.start();
    try {
      const warnings: string[] = [];
      const catalog = createModelCatalog({
        env: { OPENAI_API_KEY: "sk-user" },
        baseUrl: server.url,
        warn: (m) => warnings.push(m),
      });
      await catalog.check(["openai-compatible:llama", "openai-compatible:qwen"]);
      catalog.get("openai-compatible:llama");
      expect(warnings).toEqual([
        "OPENAI_API_KEY is set but not sent to openai-compatible models, which read only FLOW_MODEL_API_KEY: set FLOW_MODEL_API_KEY to send a key",
      ]);
      const both: string[] = [];
      createModelCatalog({
        env: { OPENAI_API_KEY: "sk-a", FLOW_MODEL_API_KEY: "sk-b" },
        warn: (m) => both.push(m),
      }).get("openai:gpt-x");
      expect(both).toEqual([
        "OPENAI_API_KEY is set but not sent to openai models: FLOW_MODEL_API_KEY comes first and is sent instead",
      ]);
      const quiet: string[] = [];
      createModelCatalog({ env: { OPENAI_API_KEY: "sk-a" }, warn: (m) => quiet.push(m) }).get("openai:gpt-x");
      expect(quiet).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it("check: a missing key is model_unavailable naming the variables", async () => {
    const catalog = createModelCatalog({ env: {} });
    await expect(catalog.check(["anthropic:claude-x"])).rejects.toMatchObject({
      code: "model_unavailable",
      message: expect.stringContaining("ANTHROPIC_API_KEY"),
    });
    await expect(catalog.check(["openai:gpt-x"])).rejects.toThrow(/OPENAI_API_KEY or FLOW_MODEL_API_KEY/);
  });

  it("check: an unreachable endpoint is model_unavailable naming the URL; a reachable one passes", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const down = createModelCatalog({ env: { OPENAI_API_KEY: "k" }, baseUrl: url });
    await expect(down.check(["openai:gpt-x"])).rejects.toMatchObject({
      code: "model_unavailable",
      message: expect.stringContaining(url),
    });
    const server = await ScriptedModelServer.start();
    try {
      const up = createModelCatalog({ env: {}, baseUrl: server.baseUrl });
      await expect(up.check(["openai-compatible:llama"])).resolves.toBeUndefined();
    } finally {
      await server.close();
    }
  });

  it("check: an openai-compatible model without a base URL is refused", async () => {
    await expect(createModelCatalog({ env: {} }).check(["openai-compatible:llama"])).rejects.toThrow(
      /--model-base-url/,
    );
  });
});
