import { existsSync } from "node:fs";
import { join } from "node:path";
import { ScriptedModelServer, type ScriptedReply } from "@meshflow/model/testing";
import { afterEach, describe, expect, it } from "vitest";
import { prdProject } from "../helpers/prdProject.js";
import { ROOT } from "../helpers/runFlow.js";
import { flowOnTerminal } from "../helpers/terminalFlow.js";

// `flow prd new` as a user runs it: the built binary in a fresh project with real MCP servers, the
// model played by a scripted server speaking the OpenAI wire format over real HTTP, reached through
// the real provider package.

const KEY = "sk-test-prd-new";
let server: ScriptedModelServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function drafting(script: ScriptedReply[] = [], handler?: () => ScriptedReply) {
  server = await ScriptedModelServer.start({ script, apiKey: KEY, ...(handler ? { handler } : {}) });
  const project = prdProject();
  const env = { FLOW_MODEL_BASE_URL: server.baseUrl, OPENAI_API_KEY: KEY, FLOW_MODEL_API_KEY: undefined };
  const args = [
    "prd",
    "new",
    "--describe",
    "A to-do list: store tasks, list them, mark them done",
    "--model",
    "openai:gpt-test",
  ];
  return { project, server, run: (more: string[] = []) => project.flow([...args, ...more], env) };
}

const submit = (prd: unknown): ScriptedReply => ({ toolCalls: [{ name: "prd__submit_draft", input: { prd } }] });

/** A draft of two stories; `servers` are step 7's. */
function draft(servers: string[] = ["filesystem"]) {
  return {
    project: "prd-app",
    branchName: "flow/todo",
    description: "A to-do list.",
    userStories: [
      {
        id: "US-001",
        title: "Store tasks",
        description: "As a developer, I need tasks stored.",
        acceptanceCriteria: ["`tasks.json` holds each task's title and done flag", "`npm test` passes"],
        mavenSteps: [7, 5],
        mcpTools: { step7: servers, step5: ["workspace"] },
        verify: [{ name: "tests", run: ["npm", "test"], cwd: ".." }],
        priority: 1,
        model: "openai:gpt-test",
      },
      {
        id: "US-002",
        title: "Mark a task done",
        description: "As a user, I want to mark a task done.",
        acceptanceCriteria: ["`markDone(id)` sets `done` to true in `tasks.json`"],
        mavenSteps: [7],
        mcpTools: { step7: servers },
        verify: [{ name: "tests", run: ["npm", "test"], cwd: ".." }],
        dependsOn: ["US-001"],
        priority: 2,
        model: "openai:gpt-test",
      },
    ],
  };
}

describe("flow prd new", () => {
  it("writes a good draft: the model is told the project, steps and servers, and the loop stops once it is accepted", async () => {
    const { project, server, run } = await drafting([submit(draft())]);
    const result = await run();
    expect(result.stderr).not.toContain(KEY);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("wrote prd/prd.json (2 stories, 3 steps), drafted by openai:gpt-test in 1 turn");
    const prd = project.json("prd/prd.json") as { userStories: Array<Record<string, unknown>>; $schema?: string };
    expect(prd.userStories.map((s) => [s.id, s.passes, s.notes])).toEqual([
      ["US-001", false, ""],
      ["US-002", false, ""],
    ]);
    expect(prd.$schema).toMatch(/prd\.schema\.json$/);
    // Accepted on the first turn: no second request to finish.
    expect(server.requests).toHaveLength(1);
    const request = server.requests[0];
    expect(request?.system).toContain("prd-writer");
    expect(request?.system).toContain("- Name: prd-app");
    expect(request?.system).toContain('use {"name":"tests","run":["npm","test"],"cwd":".."} as each story\'s verify');
    expect(request?.system).toMatch(/- filesystem: filesystem_read, filesystem_write/);
    expect(request?.system).toMatch(/- 5 \(quality-agent\): Quality: .* servers that fit: workspace\./);
    expect(request?.messages[0]?.text).toContain("A to-do list: store tasks, list them, mark them done");
    expect(request?.tools.map((t) => t.name)).toEqual(["prd__submit_draft", "step_pass", "step_fail", "step_block"]);
  });

  it("sends a draft naming an unknown server back with its problems, and writes the repaired one", async () => {
    const { project, server, run } = await drafting([submit(draft(["github"])), submit(draft())]);
    project.write("notes.md", "- every task has a due date\n");
    const result = await run(["--json", "--from", "notes.md"]);
    expect(result.code).toBe(0);
    expect(server.requests[0]?.messages[0]?.text).toContain("Notes (notes.md):\n\n- every task has a due date");
    const report = JSON.parse(result.stdout) as { written: boolean; usage: { turns: number } };
    expect(report).toMatchObject({ file: "prd/prd.json", written: true, usage: { turns: 2 } });
    const feedback = server.requests[1]?.toolResults[0]?.text ?? "";
    expect(feedback).toContain("not accepted: 2 problem(s)");
    expect(feedback).toContain(
      '$.userStories[0].mcpTools.step7[0]: unknown MCP server "github" in .mcp.json; configured: filesystem, memory, workspace',
    );
    expect(feedback).toContain("one more try");
    const stories = (project.json("prd/prd.json") as { userStories: Array<{ mcpTools: object }> }).userStories;
    expect(stories[0]?.mcpTools).toEqual({ step7: ["filesystem"], step5: ["workspace"] });
  });

  it("refuses a draft still wrong after one repair, listing the problems, writing nothing", async () => {
    const { project, server, run } = await drafting([submit(draft(["github"])), submit(draft(["github"]))]);
    const result = await run();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("openai:gpt-test's draft was refused after one repair (2 problem(s))");
    expect(result.stderr).toContain(
      'prd/prd.json: $.userStories[1].mcpTools.step7[0]: unknown MCP server "github" in .mcp.json',
    );
    expect(server.requests).toHaveLength(2);
    expect(existsSync(join(project.dir, "prd/prd.json"))).toBe(false);
  });

  it("stops a model that never finishes at its budget: budget_exhausted, exit 1, nothing written", async () => {
    const { project, server, run } = await drafting([], () => ({
      toolCalls: [{ name: "prd__brainstorm", input: {} }],
    }));
    const result = await run(["--max-turns", "3"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("openai:gpt-test drafted no PRD: budget_exhausted:");
    expect(server.requests).toHaveLength(3);
    expect(server.requests[1]?.toolResults[0]?.text).toContain('unknown tool "prd__brainstorm"');
    expect(existsSync(join(project.dir, "prd/prd.json"))).toBe(false);
  });

  it("is a usage error without a description, without a model, or over an existing PRD", async () => {
    const project = prdProject({ servers: false });
    const env = { FLOW_MODEL: undefined, OPENAI_API_KEY: undefined };
    const nothing = await project.flow(["prd", "new", "--model", "openai:gpt-test"], env);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('needs --describe "…" or --from <notes.md>');
    const noModel = await project.flow(["prd", "new", "--describe", "x"], env);
    expect(noModel.code).toBe(2);
    expect(noModel.stderr).toContain("needs a model: --model <provider:model-id>, FLOW_MODEL, or --harness <name>");
    project.write("prd.json", "{}");
    const exists = await project.flow(["prd", "new", "--describe", "x", "--out", "prd.json"], env);
    expect(exists.code).toBe(2);
    expect(exists.stderr).toContain("prd.json exists: give --force to replace it");
  });
});

describe("flow prd new on a terminal", () => {
  it("shows the draft for accept, edit or regenerate: regenerated, edited in $EDITOR, then written", async () => {
    const first = draft();
    const second = {
      ...first,
      userStories: [first.userStories[0], { ...first.userStories[1], title: "Mark a task done, again" }],
    };
    server = await ScriptedModelServer.start({ script: [submit(draft()), submit(second)], apiKey: KEY });
    const project = prdProject();
    const editor = `${process.execPath} ${join(ROOT, "tests/fixtures/editors/retitle.mjs")}`;
    const terminal = flowOnTerminal(["prd", "new", "--describe", "A to-do list", "--model", "openai:gpt-test"], {
      cwd: project.dir,
      typing: true,
      env: { FLOW_MODEL_BASE_URL: server.baseUrl, OPENAI_API_KEY: KEY, EDITOR: editor, VISUAL: undefined },
    });
    const prompt = "[a]ccept and write, [e]dit, [r]egenerate, [q]uit?";
    // Typed only once the nth question is on the screen: an answer typed earlier could reach a
    // question not asked yet.
    const waitForPrompt = async (n: number) => {
      while (terminal.screen().split(prompt).length - 1 < n) await new Promise((r) => setTimeout(r, 50));
    };
    await waitForPrompt(1);
    expect(terminal.screen()).toContain("US-001  Store tasks  (priority 1)");
    expect(terminal.screen()).toContain("steps 7 (filesystem), 5 (workspace)");
    terminal.type("r\n");
    await terminal.waitFor("Mark a task done, again");
    await waitForPrompt(2);
    terminal.type("e\n");
    await terminal.waitFor("US-001  Edited title");
    await waitForPrompt(3);
    terminal.type("a\n");
    expect(await terminal.exit).toBe(0);
    const stories = (project.json("prd/prd.json") as { userStories: Array<{ title: string }> }).userStories;
    expect(stories.map((s) => s.title)).toEqual(["Edited title", "Mark a task done, again"]);
    expect(server?.requests).toHaveLength(2);
  });

  it("Ctrl-C at the question writes nothing and exits 130", async () => {
    server = await ScriptedModelServer.start({ script: [submit(draft())], apiKey: KEY });
    const project = prdProject();
    const terminal = flowOnTerminal(["prd", "new", "--describe", "A to-do list", "--model", "openai:gpt-test"], {
      cwd: project.dir,
      typing: true,
      env: { FLOW_MODEL_BASE_URL: server.baseUrl, OPENAI_API_KEY: KEY },
    });
    await terminal.waitFor("[q]uit?");
    terminal.type("\x03");
    expect(await terminal.exit).toBe(130);
    expect(terminal.screen()).toContain("flow: interrupted: nothing written");
    expect(existsSync(join(project.dir, "prd/prd.json"))).toBe(false);
  });
});
