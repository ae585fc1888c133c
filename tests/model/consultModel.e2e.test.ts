import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RunEvent } from "@meshflow/core";
import { ScriptedModelServer } from "@meshflow/model/testing";
import { afterEach, describe, expect, it } from "vitest";
import { parseEvents } from "../helpers/flowWorkspace.js";
import { modelWorkspace } from "../helpers/modelWorkspace.js";

// A model-driven development-agent consults the shipped security-agent through its consult tool:
// the model is the scripted server over real HTTP (OpenAI wire format), the files the real
// filesystem server's.

const KEY = "sk-test-meshflow";
let server: ScriptedModelServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const call = (name: string, input: Record<string, unknown>) => ({ toolCalls: [{ name, input }] });

describe("consult_<specialist> tools of a model", () => {
  it("the model asks security-agent, which finds a planted secret; its answer comes back as the tool result", async () => {
    server = await ScriptedModelServer.start({ script: [], apiKey: KEY });
    const ws = modelWorkspace(server, KEY);
    writeFileSync(join(ws.files, "deploy.js"), 'const aws = "AKIAIOSFODNN7EXAMPLE";\n');
    server.enqueue(
      // development-agent's first turn: ask security-agent.
      call("consult_security-agent", { question: "Is the workspace free of secrets?" }),
      // security-agent's own model turn (consulted), before its scan.
      call("step_pass", { summary: "looked around" }),
      // development-agent reads the answer and gives up.
      call("step_fail", { summary: "security review found a secret" }),
    );
    ws.writePrd([
      {
        mavenSteps: [7],
        mcpTools: { step7: ["filesystem"] },
        model: "openai:gpt-test",
        consult: { "development-agent": ["security-agent"] },
      },
    ]);
    const run = await ws.flow(["run", "prd.json", "--json"]);
    expect(run.code).toBe(1);
    const events = parseEvents(run.stdout);
    const of = <T extends RunEvent["type"]>(type: T) =>
      events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);
    expect(of("consult.started")[0]).toMatchObject({
      specialist: "security-agent",
      by: "development-agent",
      question: "Is the workspace free of secrets?",
    });
    expect(of("consult.done")[0]).toMatchObject({ status: "failed" });
    // The consulted model turn is the consultation's, numbered in its own journal.
    expect(of("model.turn").map((t) => [t.consult ?? "step", t.turn])).toEqual([
      ["step", 1],
      ["US-001/step7/security-agent.1", 1],
      ["step", 2],
    ]);
    expect(of("step.finished")[0]).toMatchObject({ status: "failed" });
    // What the models were offered and told.
    const [first, consulted, second] = server.requests;
    const names = (r: typeof first) =>
      ((r?.body ?? {}) as { tools?: Array<{ function: { name: string } }> }).tools?.map((t) => t.function.name) ?? [];
    expect(names(first)).toContain("consult_security-agent");
    expect(names(consulted)).not.toContain("consult_development-agent");
    expect(JSON.stringify(consulted?.body)).toContain("Is the workspace free of secrets?");
    expect(JSON.stringify(second?.body)).toContain("security-agent failed: 1 finding at or above medium: deploy.js:1");
  });
});
