import { existsSync } from "node:fs";
import { join } from "node:path";
import { ScriptedModelServer } from "@meshflow/model/testing";
import { afterEach, describe, expect, it } from "vitest";
import { parseEvents } from "../helpers/flowWorkspace.js";
import { modelWorkspace } from "../helpers/modelWorkspace.js";

const KEY = "sk-test-meshflow";
let server: ScriptedModelServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The JSON text of `{"path":…,"content":{"a":{"a":…{}}}}`, `depth` levels under content: no serializer of ours can make it. */
function deepArguments(path: string, depth: number): string {
  return `{"path":${JSON.stringify(path)},"content":${'{"a":'.repeat(depth)}{}${"}".repeat(depth)}}`;
}

describe("model tool arguments nested 5,000 deep", () => {
  // Regression: the provider parsed the arguments and the tool's schema was checked against them by
  // recursive walks before meshflow's limits ran, so the step failed with "Maximum call stack size
  // exceeded" instead of the call being refused.
  it("fail that call with invalid_arguments naming the path; the model reads the refusal and goes on", async () => {
    server = await ScriptedModelServer.start({ script: [], apiKey: KEY });
    const ws = modelWorkspace(server, KEY);
    server.enqueue(
      {
        toolCalls: [
          { name: "filesystem__write_file", input: {}, inputText: deepArguments(join(ws.files, "x.txt"), 5000) },
        ],
      },
      { toolCalls: [{ name: "step_block", input: { reason: "the write was refused" } }] },
    );
    ws.writePrd([
      {
        title: "Deep",
        description: "d",
        mavenSteps: [7],
        mcpTools: { step7: ["filesystem"] },
        model: "openai:gpt-test",
      },
    ]);
    const run = await ws.flow(["run", "prd.json", "--json"]);
    expect(run.stdout + run.stderr).not.toContain("Maximum call stack");
    const events = parseEvents(run.stdout);
    const step = events.find((e) => e.type === "step.finished");
    expect(step).toMatchObject({ status: "blocked" });
    // The refusal went back to the model as that call's result.
    const refusal = server.requests[1]?.toolResults[0]?.text ?? "";
    expect(refusal).toContain("invalid_arguments");
    expect(refusal).toMatch(/\$\.content(\.a)+: nested deeper than 64 levels/);
    expect(existsSync(join(ws.files, "x.txt"))).toBe(false);
  });
});
