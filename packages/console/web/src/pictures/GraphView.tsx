import type { StoryReport } from "@meshflow/runtime/host";
import { useMemo } from "preact/hooks";
import { buildMeshGraph, type GraphEdge, type GraphNode } from "../../../src/pictures/meshGraph.js";
import { duration, plural } from "../api.js";

const BOX_W = 170;
const BOX_H = 34;
const COLUMN = { chief: 110, specialist: 600, server: 980 } as const;
const GAP = { specialist: 90, server: 60 } as const;
const TOP = 50;

interface Placed extends GraphNode {
  x: number;
  y: number;
}

function place(nodes: GraphNode[]): { placed: Map<string, Placed>; height: number } {
  const specialists = nodes.filter((n) => n.kind === "specialist");
  const servers = nodes.filter((n) => n.kind === "server");
  const height = Math.max(specialists.length * GAP.specialist, servers.length * GAP.server, 120) + TOP;
  const placed = new Map<string, Placed>();
  const column = (list: GraphNode[], x: number, gap: number) => {
    const offset = (height - list.length * gap) / 2 + gap / 2;
    for (const [i, n] of list.entries()) placed.set(n.id, { ...n, x, y: offset + i * gap });
  };
  column(
    nodes.filter((n) => n.kind === "chief"),
    COLUMN.chief,
    GAP.specialist,
  );
  column(specialists, COLUMN.specialist, GAP.specialist);
  column(servers, COLUMN.server, GAP.server);
  return { placed, height };
}

/** `3 calls · 1 error · p50 40 ms` */
function edgeLabel(e: GraphEdge): string {
  const what = e.kind === "route" ? "step" : e.kind === "consult" ? "consultation" : "call";
  const parts = [plural(e.count, what)];
  if (e.errors) parts.push(plural(e.errors, "error"));
  if (e.p50Ms !== undefined) parts.push(`p50 ${duration(e.p50Ms)}`);
  return parts.join(" · ");
}

/** The path an edge takes: left to right between columns, an arc on the left within the specialists. */
function edgePath(from: Placed, to: Placed, kind: GraphEdge["kind"]): { d: string; lx: number; ly: number } {
  if (kind === "consult") {
    const x = from.x - BOX_W / 2;
    const bend = x - 70 - Math.abs(to.y - from.y) / 4;
    return {
      d: `M ${x} ${from.y} C ${bend} ${from.y}, ${bend} ${to.y}, ${x} ${to.y}`,
      lx: bend + 10,
      ly: (from.y + to.y) / 2,
    };
  }
  const x1 = from.x + BOX_W / 2;
  const x2 = to.x - BOX_W / 2;
  const mid = (x1 + x2) / 2;
  return {
    d: `M ${x1} ${from.y} C ${mid} ${from.y}, ${mid} ${to.y}, ${x2} ${to.y}`,
    lx: mid,
    ly: (from.y + to.y) / 2 - 4,
  };
}

/**
 * The mesh a run used: the chief analyst, the specialists that worked, the MCP servers they called
 * and the consultations between specialists. Each arrow says how many steps, calls or consultations
 * went along it, how many failed and their median time. Clicking a story in the list beside it (or
 * opening `?view=graph&story=<id>`, as the timeline and the tree link to it) highlights the story's
 * path: its edges and nodes carry `data-highlight="1"`, the others are dimmed.
 */
export function GraphView({
  stories,
  story: chosen,
  graphOf,
}: {
  stories: StoryReport[];
  /** The story whose path is highlighted (from the page's URL). */
  story?: string | undefined;
  /** The page's link to the graph with a story highlighted, or none for every story. */
  graphOf: (story: string | undefined) => string;
}) {
  const graph = useMemo(() => buildMeshGraph(stories), [stories]);
  const { placed, height } = useMemo(() => place(graph.nodes), [graph]);
  const started = stories.filter((s) => s.steps.length);
  // A story the run never started (or an id from an old link) highlights nothing: every story shows.
  const story = chosen && started.some((s) => s.id === chosen) ? chosen : "";
  const on = (e: GraphEdge) => !story || e.stories.includes(story);
  const usedNodes = new Set(graph.edges.filter((e) => story && on(e)).flatMap((e) => [e.from, e.to]));
  const pick = (id: string | undefined) => {
    location.hash = graphOf(id);
  };
  return (
    <section class="graph" aria-label="Mesh graph">
      <h2>The mesh</h2>
      <p class="muted">{story ? `The path of ${story} is highlighted.` : "Click a story to highlight its path."}</p>
      <div class="graph-body">
        <ul class="story-list" aria-label="Stories of the run">
          <li>
            <button type="button" aria-pressed={!story} onClick={() => pick(undefined)}>
              every story
            </button>
          </li>
          {started.map((s) => (
            <li key={s.id}>
              <button
                type="button"
                data-story={s.id}
                aria-pressed={story === s.id}
                title={`Highlight the path of ${s.id} (${s.status})`}
                onClick={() => pick(s.id)}
              >
                {s.id} <span class="muted">{s.status}</span>
              </button>
            </li>
          ))}
        </ul>
        <svg
          width="100%"
          viewBox={`0 0 ${COLUMN.server + BOX_W / 2 + 20} ${height}`}
          role="img"
          aria-label={`The mesh: ${plural(graph.nodes.length, "node")}, ${plural(graph.edges.length, "edge")}`}
          data-highlight={story || undefined}
        >
          <defs>
            <marker
              id="arrow"
              viewBox="0 0 10 10"
              refX="10"
              refY="5"
              markerUnits="userSpaceOnUse"
              markerWidth="9"
              markerHeight="9"
              orient="auto"
            >
              <path d="M 0 0 L 10 5 L 0 10 z" fill="currentColor" />
            </marker>
          </defs>
          {graph.edges.map((e) => {
            const from = placed.get(e.from);
            const to = placed.get(e.to);
            if (!from || !to) return null;
            const { d, lx, ly } = edgePath(from, to, e.kind);
            const lit = on(e);
            return (
              <g
                key={e.id}
                class={`edge k-${e.kind}${e.errors ? " has-errors" : ""}${story ? (lit ? " on" : " off") : ""}`}
                data-edge={e.id}
                data-from={e.from}
                data-to={e.to}
                data-kind={e.kind}
                data-count={e.count}
                data-errors={e.errors}
                data-label={edgeLabel(e)}
                data-highlight={story && lit ? "1" : undefined}
              >
                <title>{`${from.label} → ${to.label}: ${edgeLabel(e)}; stories ${e.stories.slice(0, 20).join(", ")}${e.stories.length > 20 ? "…" : ""}`}</title>
                <path d={d} marker-end="url(#arrow)" />
                {e.kind === "consult" ? (
                  <text x={lx} y={ly} text-anchor="start">
                    {edgeLabel(e)
                      .split(" · ")
                      .map((part, i) => (
                        <tspan key={part} x={lx} dy={i ? 13 : 0}>
                          {part}
                        </tspan>
                      ))}
                  </text>
                ) : (
                  <text x={lx} y={ly} text-anchor="middle">
                    {edgeLabel(e)}
                  </text>
                )}
              </g>
            );
          })}
          {[...placed.values()].map((n) => (
            <g
              key={n.id}
              class={`node k-${n.kind}${story ? (usedNodes.has(n.id) ? " on" : " off") : ""}`}
              data-node={n.id}
              data-highlight={story && usedNodes.has(n.id) ? "1" : undefined}
              transform={`translate(${n.x - BOX_W / 2} ${n.y - BOX_H / 2})`}
            >
              <rect width={BOX_W} height={BOX_H} rx="6" />
              <text x={BOX_W / 2} y={BOX_H / 2 + 5} text-anchor="middle">
                {n.kind === "server" ? `⛁ ${n.label}` : n.label}
              </text>
            </g>
          ))}
        </svg>
      </div>
      <p class="muted">
        {plural(
          graph.edges.filter((e) => e.kind === "tools").reduce((n, e) => n + e.count, 0),
          "tool call",
        )}
        ,{" "}
        {plural(
          graph.edges.filter((e) => e.kind === "consult").reduce((n, e) => n + e.count, 0),
          "consultation",
        )}
        . Arrows from the chief analyst count the steps it routed; errors are failed or blocked steps and consultations,
        and calls that erred or were refused.
      </p>
    </section>
  );
}
