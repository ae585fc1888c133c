// Child process: a LangGraph.js supervisor graph with MemorySaver walks a PRD's stories; each step's
// specialist node makes the step's scripted tool call through the MCP SDK client over stdio to
// server-everything — the same calls `flow run` makes. Prints {calls, ms, maxRssKb} as JSON.
import { readFileSync } from "node:fs";
import { Annotation, END, MemorySaver, START, StateGraph } from "@langchain/langgraph";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

interface Story {
  id: string;
  mavenSteps: number[];
  calls: Record<string, Array<{ tool: string; args: Record<string, unknown> }>>;
}

const [prdFile, serverEntry] = process.argv.slice(2);
if (!prdFile || !serverEntry) throw new Error("usage: langgraphMcp <prd.json> <server-everything entry>");
const start = performance.now();
const prd = JSON.parse(readFileSync(prdFile, "utf8")) as { userStories: Story[] };
const client = new Client({ name: "bench-langgraph", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [serverEntry], stderr: "ignore" }));
let calls = 0;

const State = Annotation.Root({
  story: Annotation<Story>,
  next: Annotation<number>({ reducer: (_, b) => b, default: () => 0 }),
  outcomes: Annotation<Array<{ step: number; status: string; summary: string }>>({
    reducer: (a, b) => a.concat(b),
    default: () => [],
  }),
});

async function specialist(state: typeof State.State) {
  const step = state.story.mavenSteps[state.next] ?? 0;
  const outcomes: Array<{ step: number; status: string; summary: string }> = [];
  for (const call of state.story.calls[`step${step}`] ?? []) {
    const result = await client.callTool({ name: call.tool.replace(/^everything__/, ""), arguments: call.args });
    calls++;
    outcomes.push({ step, status: result.isError ? "failed" : "passed", summary: `${call.tool} done` });
  }
  return { outcomes, next: state.next + 1 };
}

const graph = new StateGraph(State)
  .addNode("supervisor", async () => ({}))
  .addNode("development", specialist)
  .addEdge(START, "supervisor")
  .addConditionalEdges("supervisor", (state) => (state.next < state.story.mavenSteps.length ? "development" : END), [
    "development",
    END,
  ])
  .addEdge("development", "supervisor")
  .compile({ checkpointer: new MemorySaver() });

for (const story of prd.userStories) await graph.invoke({ story }, { configurable: { thread_id: story.id } });
await client.close();
const ms = performance.now() - start;
process.stdout.write(`${JSON.stringify({ calls, ms, maxRssKb: process.resourceUsage().maxRSS })}\n`);
