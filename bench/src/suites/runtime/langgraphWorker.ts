// Child process: a LangGraph.js supervisor graph with MemorySaver walks N stories × 3 steps through
// no-op specialist nodes. Prints {steps, ms, maxRssKb} as JSON.
import { Annotation, END, MemorySaver, START, StateGraph } from "@langchain/langgraph";

const stories = Number(process.argv[2] ?? 2000);
const SPECIALISTS = ["development", "refactor", "quality"] as const;
const STEPS = [1, 3, 5];

const State = Annotation.Root({
  storyId: Annotation<string>,
  next: Annotation<number>({ reducer: (_, b) => b, default: () => 0 }),
  outcomes: Annotation<Array<{ step: number; status: string; summary: string }>>({
    reducer: (a, b) => a.concat(b),
    default: () => [],
  }),
});

function specialist(step: number) {
  return async (state: typeof State.State) => ({
    outcomes: [{ step, status: "passed", summary: `${state.storyId} step ${step} done` }],
    next: state.next + 1,
  });
}

const graph = new StateGraph(State)
  .addNode("supervisor", async () => ({}))
  .addNode("development", specialist(1))
  .addNode("refactor", specialist(3))
  .addNode("quality", specialist(5))
  .addEdge(START, "supervisor")
  .addConditionalEdges("supervisor", (state) => (state.next < STEPS.length ? (SPECIALISTS[state.next] ?? END) : END), [
    ...SPECIALISTS,
    END,
  ])
  .addEdge("development", "supervisor")
  .addEdge("refactor", "supervisor")
  .addEdge("quality", "supervisor")
  .compile({ checkpointer: new MemorySaver() });

const start = performance.now();
let steps = 0;
for (let i = 0; i < stories; i++) {
  const out = await graph.invoke({ storyId: `US-${i}` }, { configurable: { thread_id: `US-${i}` } });
  steps += out.outcomes.length;
}
const ms = performance.now() - start;
process.stdout.write(`${JSON.stringify({ steps, ms, maxRssKb: process.resourceUsage().maxRSS })}\n`);
