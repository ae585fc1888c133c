#!/usr/bin/env node
// Records prd/examples/demo/model.cassette.json: runs the demo with `--record`, its model-driven story
// (US-006) answered by meshflow's scripted model server speaking the Anthropic Messages API through the
// real @ai-sdk/anthropic provider. Run it again after changing what the model is sent (the development
// agent's instructions.md, the story, the filesystem server's tools): the demo replays the cassette,
// and a changed request is a replay_mismatch.
//
// To record from a real provider instead: ANTHROPIC_API_KEY=… node scripts/demo.mjs -- --record <file>
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const { ScriptedModelServer } = await import(join(root, "packages/model/dist/testing.js"));

const countJs = `import { openTasks } from "./todo.js";

/** How many tasks are still open. */
export function countOpen(tasks) {
  return openTasks(tasks).length;
}
`;
const countTest = `import assert from "node:assert/strict";
import test from "node:test";
import { countOpen } from "../src/count.js";
import { completeTask, createTask } from "../src/todo.js";

test("no tasks, none open", () => {
  assert.equal(countOpen([]), 0);
});

test("done tasks are not counted", () => {
  assert.equal(countOpen([createTask("a", 1), completeTask(createTask("b", 2)), createTask("c", 3)]), 2);
});
`;

const server = await ScriptedModelServer.start({
  apiKey: "scripted",
  script: [
    {
      text: "I will read the task model first, to build on openTasks.",
      toolCalls: [{ name: "filesystem__read_text_file", input: { path: "src/todo.js" } }],
    },
    {
      text: "openTasks already filters the open tasks; countOpen counts them. Writing the module and its test.",
      toolCalls: [
        { name: "filesystem__write_file", input: { path: "src/count.js", content: countJs } },
        { name: "filesystem__write_file", input: { path: "test/count.test.js", content: countTest } },
      ],
    },
    {
      toolCalls: [
        {
          name: "step_pass",
          input: { summary: "added countOpen(tasks) in src/count.js on top of openTasks, with a unit test" },
        },
      ],
    },
  ],
});
const cassette = join(root, "prd/examples/demo/model.cassette.json");
const code = await new Promise((resolve) => {
  const child = spawn(
    process.execPath,
    [join(root, "scripts/demo.mjs"), "--", "--record", cassette, "--model-base-url", server.baseUrl],
    { stdio: "inherit", env: { ...process.env, ANTHROPIC_API_KEY: "scripted", FLOW_MODEL_API_KEY: "" } },
  );
  child.on("close", (exit) => resolve(exit ?? 1));
});
await server.close();
process.stdout.write(`\nrecord-demo-cassette: ${server.requests.length} model turns recorded in ${cassette}\n`);
process.exit(code);
