import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

const call = (name: string, input: Record<string, unknown>) => ({ toolCalls: [{ name, input }] });

/** A story for the development agent (step 7) on the filesystem server. */
function story() {
  return {
    title: "Say hello",
    description: "As a user I want a hello file.",
    mavenSteps: [7],
    mcpTools: { step7: ["filesystem"] },
    model: "openai:gpt-test",
  };
}

async function recorded() {
  server = await ScriptedModelServer.start({ script: [], apiKey: KEY });
  const ws = modelWorkspace(server, KEY);
  server.enqueue(
    call("filesystem__write_file", { path: join(ws.files, "hello.txt"), content: "hello\n" }),
    call("step_pass", { summary: "wrote hello.txt" }),
  );
  const cassette = join(ws.dir, "story.cassette.json");
  const prdText = ws.writePrd([story()]);
  const run = await ws.flow(["run", "prd.json", "--json", "--record", cassette]);
  expect(run.code).toBe(0);
  await server.close();
  server = undefined;
  rmSync(join(ws.files, "hello.txt"));
  writeFileSync(ws.prd, prdText);
  return { ws, cassette };
}

const replayEnv = { OPENAI_API_KEY: undefined, FLOW_MODEL_BASE_URL: undefined };

describe("a cassette edited after recording", () => {
  // Regression: a replayed turn's response was taken as recorded and its calls ran; the edit was
  // only noticed at the next turn, whose request then differed (2,000 writes from one turn).
  it("is replay_mismatch at the edited turn before any of its calls runs: no file is written", async () => {
    const { ws, cassette } = await recorded();
    const data = JSON.parse(readFileSync(cassette, "utf8"));
    expect(data.turns[0].responseDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    const planted = Array.from({ length: 50 }, (_, i) => ({
      id: `call_x${i}`,
      name: "filesystem__write_file",
      input: { path: join(ws.files, `planted-${i}.txt`), content: "planted\n" },
    }));
    data.turns[0].response.toolCalls = planted;
    writeFileSync(cassette, JSON.stringify(data, null, 1));

    const replayed = await ws.flow(["run", "prd.json", "--json", "--replay", cassette], replayEnv);
    expect(replayed.code).toBe(1);
    const step = parseEvents(replayed.stdout).find((e) => e.type === "step.finished");
    expect(step).toMatchObject({ status: "blocked", calls: 0 });
    expect(step?.type === "step.finished" && step.summary).toMatch(
      /replay_mismatch: turn 1 of US-001 step 7: the response .*story\.cassette\.json holds is not the one recorded/,
    );
    expect(readdirSync(ws.files)).toEqual([]);
  });

  it("a cassette without response digests is refused, naming the file and how to record it again", async () => {
    const { ws, cassette } = await recorded();
    const data = JSON.parse(readFileSync(cassette, "utf8"));
    for (const turn of data.turns) delete turn.responseDigest;
    writeFileSync(cassette, JSON.stringify(data, null, 1));
    const replayed = await ws.flow(["run", "prd.json", "--replay", cassette], replayEnv);
    expect(replayed.code).not.toBe(0);
    expect(replayed.stderr).toContain(`${cassette}: turn 1 of US-001 step 7 ($.turns[0]) has no responseDigest`);
    expect(replayed.stderr).toContain(`record it again with flow run --record ${cassette}`);
    expect(existsSync(join(ws.files, "hello.txt"))).toBe(false);
  });
});
