// Child process: the LangGraph.js peer written to be fast — one graph invocation walks every story
// and step of a PRD (one thread in MemorySaver). The supervisor is the routing function after each
// specialist turn (no node of its own, so one superstep and one checkpoint per step), and the state
// holds only the cursor and the current story's outcomes, so each checkpoint stays small. Each step's
// specialist node makes the step's scripted tool call through the MCP SDK client over stdio to
// server-everything — the same calls `flow run` makes. Prints {calls, passed, ms, maxRssKb} as JSON.
import { readFileSync } from "node:fs";
import { Annotation, END, MemorySaver, START, StateGraph } from "@langchain/langgraph";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

interface Story {
  id: string;
  mavenSteps: number[];
  calls: Record<string, Array<{ tool: string; args: Record<string, unknown> }>>;
}
interface Outcome {
  step: number;
  status: string;
  summary: string;
}

const [prdFile, serverEntry] = process.argv.slice(2);
if (!prdFile || !serverEntry) throw new Error("usage: langgraphSupervisor <prd.json> <server-everything entry>");
const start = performance.now();
const stories = (JSON.parse(readFileSync(prdFile, "utf8")) as { userStories: Story[] }).userStories;
const client = new Client({ name: "bench-langgraph-supervisor", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [serverEntry], stderr: "ignore" }));
let calls = 0;

const State = Annotation.Root({
  /** Index of the story being worked on. */
  story: Annotation<number>({ reducer: (_, b) => b, default: () => 0 }),
  /** Index of its next step. */
  step: Annotation<number>({ reducer: (_, b) => b, default: () => 0 }),
  /** Outcomes of the current story's steps (replaced when the next story starts). */
  outcomes: Annotation<Outcome[]>({ reducer: (_, b) => b, default: () => [] }),
  passed: Annotation<number>({ reducer: (_, b) => b, default: () => 0 }),
});

async function specialist(state: typeof State.State): Promise<Partial<typeof State.State>> {
  const story = stories[state.story];
  if (!story) throw new Error(`no story ${state.story}`);
  const step = story.mavenSteps[state.step] ?? 0;
  const outcomes: Outcome[] = [];
  for (const call of story.calls[`step${step}`] ?? []) {
    const result = await client.callTool({ name: call.tool.replace(/^everything__/, ""), arguments: call.args });
    calls++;
    outcomes.push({ step, status: result.isError ? "failed" : "passed", summary: `${call.tool} done` });
  }
  const all = state.outcomes.concat(outcomes);
  if (state.step + 1 < story.mavenSteps.length) return { step: state.step + 1, outcomes: all };
  const passed = all.every((o) => o.status === "passed") ? state.passed + 1 : state.passed;
  return { story: state.story + 1, step: 0, outcomes: [], passed };
}

/** The supervisor: the next story's next step, or the end. */
const supervisor = (state: typeof State.State) => (state.story < stories.length ? "development" : END);

const graph = new StateGraph(State)
  .addNode("development", specialist)
  .addConditionalEdges(START, supervisor, ["development", END])
  .addConditionalEdges("development", supervisor, ["development", END])
  .compile({ checkpointer: new MemorySaver() });

const steps = stories.reduce((n, s) => n + s.mavenSteps.length, 0);
const final = await graph.invoke({}, { configurable: { thread_id: "prd" }, recursionLimit: steps + 10 });
await client.close();
const ms = performance.now() - start;
process.stdout.write(
  `${JSON.stringify({ calls, passed: final.passed, ms, maxRssKb: process.resourceUsage().maxRSS })}\n`,
);
