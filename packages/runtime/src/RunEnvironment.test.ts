import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { McpConfig } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { RunEnvironment } from "./RunEnvironment.js";

const noServers: McpConfig = { file: undefined, source: "none", servers: new Map(), invalid: new Map(), problems: [] };

function project(): { agents: string; store: string } {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-env-"));
  mkdirSync(join(dir, "agents", "quality-agent"), { recursive: true });
  writeFileSync(
    join(dir, "agents", "quality-agent", "agent.ts"),
    `import { defineSpecialist } from "@meshflow/runtime";
export default defineSpecialist({ name: "quality-agent", description: "checks", steps: [5] });
`,
  );
  return { agents: join(dir, "agents"), store: join(dir, ".flow") };
}

describe("RunEnvironment", () => {
  it("opens with every part a run needs, and closes the plane before what the host opened, once", async () => {
    const { agents, store } = project();
    const closed: string[] = [];
    const env = await RunEnvironment.open({
      mcpConfig: noServers,
      agents: [agents],
      store,
      callsPerMinute: 0,
      models: async () => undefined,
      onClose: async () => {
        closed.push("host");
      },
    });
    const parts = await env.parts();
    expect([...parts.specialists.keys()]).toEqual(["quality-agent"]);
    expect(parts.store).toBe(env.store);
    expect(env.store.root).toBe(store);
    expect(parts.routing.steps.get(5)).toBe("quality-agent");
    expect(parts.plane.servers()).toEqual([]);
    expect(env.agents).toEqual([agents]);
    await env.close();
    await env.close();
    expect(closed).toEqual(["host"]);
  });

  it("closes what the host opened when a part cannot load", async () => {
    const closed: string[] = [];
    const missing = join(tmpdir(), "meshflow-no-such-agents");
    await expect(
      RunEnvironment.open({
        mcpConfig: noServers,
        agents: [missing],
        store: mkdtempSync(join(tmpdir(), "meshflow-env-")),
        onClose: async () => {
          closed.push("host");
        },
      }),
    ).rejects.toThrow(/meshflow-no-such-agents/);
    expect(closed).toEqual(["host"]);
  });

  it("loads nothing until a part is asked for; a missing optional folder loads no specialist", async () => {
    const missing = join(tmpdir(), "meshflow-no-agents-here");
    const env = new RunEnvironment({
      mcpConfig: noServers,
      agents: [missing],
      specialists: { optional: [missing] },
      store: mkdtempSync(join(tmpdir(), "meshflow-env-")),
    });
    expect((await env.specialists()).size).toBe(0);
    expect(await env.models({ model: "anthropic:any" })).toBeUndefined();
    await env.close();
  });
});
