import type { StepItem, StoryReport } from "@meshflow/runtime/host";
import { percentile } from "../toolLatency.js";

// The mesh a run used, from its story reports: the chief analyst routes steps to specialists,
// specialists call MCP servers' tools and consult one another. Each edge counts what went along it,
// its errors and the median time, and knows the stories that used it (to highlight one story's path).

/** A box of the graph. */
export interface GraphNode {
  /** `chief`, `specialist:<name>` or `server:<name>`. */
  id: string;
  kind: "chief" | "specialist" | "server";
  label: string;
}

/** An arrow of the graph. */
export interface GraphEdge {
  /** `<from>-><to>`. */
  id: string;
  from: string;
  to: string;
  /** `route`: steps the chief gave a specialist; `tools`: tool calls; `consult`: consultations. */
  kind: "route" | "tools" | "consult";
  count: number;
  /** Failed or blocked steps and consultations; calls that errored or were refused. */
  errors: number;
  /** Median duration, when any was recorded. */
  p50Ms?: number;
  /** Stories that used the edge. */
  stories: string[];
}

/** The mesh of a run. */
export interface MeshGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

/** The chief analyst's node id. */
const CHIEF = "chief";

/** The server a qualified tool name (`server__tool`) belongs to; a name the resolver never qualified has none. */
function serverOf(tool: string): string | undefined {
  const at = tool.indexOf("__");
  return at > 0 ? tool.slice(0, at) : undefined;
}

/** The p50 of durations, as the health page's tool latencies compute it; undefined without any. */
function median(values: number[]): number | undefined {
  return values.length
    ? percentile(
        [...values].sort((a, b) => a - b),
        0.5,
      )
    : undefined;
}

const span = (start?: string, end?: string): number | undefined => {
  if (!start || !end) return undefined;
  const d = Date.parse(end) - Date.parse(start);
  return Number.isNaN(d) ? undefined : Math.max(0, d);
};

/**
 * The mesh graph of a run's stories (detailed reports: calls are read from their items).
 *
 * @example
 * const graph = buildMeshGraph(detail.tree.stories);
 * graph.edges.find((e) => e.kind === "consult"); // development-agent → quality-agent
 */
export function buildMeshGraph(stories: readonly StoryReport[]): MeshGraph {
  const nodes = new Map<string, GraphNode>([[CHIEF, { id: CHIEF, kind: "chief", label: "chief analyst" }]]);
  const edges = new Map<string, GraphEdge & { durations: number[]; storySet: Set<string> }>();
  const node = (kind: "specialist" | "server", name: string): string => {
    const id = `${kind}:${name}`;
    if (!nodes.has(id)) nodes.set(id, { id, kind, label: name });
    return id;
  };
  const edge = (from: string, to: string, kind: GraphEdge["kind"], story: string, failed: boolean, ms?: number) => {
    const id = `${from}->${to}`;
    let e = edges.get(id);
    if (!e) {
      e = { id, from, to, kind, count: 0, errors: 0, stories: [], durations: [], storySet: new Set() };
      edges.set(id, e);
    }
    e.count++;
    if (failed) e.errors++;
    if (ms !== undefined) e.durations.push(ms);
    e.storySet.add(story);
  };
  const calls = (from: string, items: readonly StepItem[] | undefined, story: string) => {
    for (const item of items ?? []) {
      if (item.kind !== "call") continue;
      const server = serverOf(item.tool) ?? "unresolved";
      edge(
        from,
        node("server", server),
        "tools",
        story,
        item.status === "error" || item.status === "refused",
        item.durationMs,
      );
    }
  };
  for (const story of stories)
    for (const step of story.steps) {
      const specialist = node("specialist", step.specialist);
      const failed = step.status === "failed" || step.status === "blocked";
      edge(CHIEF, specialist, "route", story.id, failed, span(step.startedAt, step.finishedAt));
      calls(specialist, step.items, story.id);
      for (const consult of step.consults ?? []) {
        const consulted = node("specialist", consult.specialist);
        const asked = node("specialist", consult.by);
        const bad = consult.status === "failed" || consult.status === "blocked";
        edge(asked, consulted, "consult", story.id, bad, span(consult.startedAt, consult.finishedAt));
        calls(consulted, consult.items, story.id);
      }
    }
  return {
    nodes: [...nodes.values()],
    edges: [...edges.values()].map(({ durations, storySet, ...e }) => {
      const p50 = median(durations);
      return { ...e, stories: [...storySet], ...(p50 !== undefined ? { p50Ms: p50 } : {}) };
    }),
  };
}
