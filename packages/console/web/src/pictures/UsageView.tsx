import type { StoryReport } from "@meshflow/runtime/host";
import { useMemo, useState } from "preact/hooks";
import { compareRuns, type StoryFigures, usageSeries } from "../../../src/pictures/usage.js";
import type { RunDetail, RunRow } from "../../../src/RunCatalog.js";
import { duration, num, useApi } from "../api.js";
import { Loading, Status } from "../components.js";
import { axisTicks } from "./chart.js";

const W = 900;
const H = 240;
const PAD = { left: 70, right: 70, top: 16, bottom: 28 };

/** Cumulative tokens (left axis) and cost (right axis) over the run's time, one step per model turn. */
function UsageChart({ stories, start, end }: { stories: StoryReport[]; start: number; end: number }) {
  const points = useMemo(() => usageSeries(stories), [stories]);
  if (!points.length) return <p class="muted">No model turn in this run: nothing was spent on tokens.</p>;
  const last = points[points.length - 1];
  const width = Math.max(end, last?.t ?? end) - start || 1;
  const maxTokens = Math.max(1, (last?.input ?? 0) + (last?.output ?? 0));
  const maxCost = last?.costUsd ?? 0;
  const x = (t: number) => PAD.left + ((t - start) / width) * (W - PAD.left - PAD.right);
  const y = (v: number, max: number) => H - PAD.bottom - (max ? (v / max) * (H - PAD.top - PAD.bottom) : 0);
  const steps = (value: (p: (typeof points)[number]) => number, max: number) => {
    let d = `M ${x(start)} ${y(0, max)}`;
    let prev = 0;
    for (const p of points) {
      d += ` L ${x(p.t)} ${y(prev, max)} L ${x(p.t)} ${y(value(p), max)}`;
      prev = value(p);
    }
    return `${d} L ${x(start + width)} ${y(prev, max)}`;
  };
  return (
    <svg
      class="usage-chart"
      viewBox={`0 0 ${W} ${H}`}
      width="100%"
      role="img"
      aria-label={`Tokens and cost over time: ${num(maxTokens)} tokens, $${maxCost.toFixed(4)} after ${points.length} model turns`}
    >
      <line class="axis-line" x1={PAD.left} y1={H - PAD.bottom} x2={W - PAD.right} y2={H - PAD.bottom} />
      {axisTicks(width).map((t) => (
        <text key={t} class="tick" x={x(start + t)} y={H - 8} text-anchor="middle">
          +{duration(t)}
        </text>
      ))}
      <text class="tick" x={PAD.left - 6} y={PAD.top + 8} text-anchor="end">
        {num(maxTokens)}
      </text>
      <text class="tick" x={PAD.left - 6} y={H - PAD.bottom} text-anchor="end">
        0
      </text>
      <text class="tick cost" x={W - PAD.right + 6} y={PAD.top + 8}>
        ${maxCost.toFixed(4)}
      </text>
      <path class="series tokens" d={steps((p) => p.input + p.output, maxTokens)} data-series="tokens" />
      {maxCost ? <path class="series cost" d={steps((p) => p.costUsd, maxCost)} data-series="cost" /> : null}
    </svg>
  );
}

const cost = (f?: StoryFigures) => (f?.costUsd !== undefined ? `$${f.costUsd.toFixed(4)}` : "–");
const time = (f?: StoryFigures) => (f?.durationMs !== undefined ? duration(f.durationMs) : "–");

function delta(a: number | undefined, b: number | undefined, show: (n: number) => string): string {
  if (a === undefined || b === undefined) return "";
  const d = b - a;
  if (!d) return "=";
  return `${d > 0 ? "+" : "−"}${show(Math.abs(d))}`;
}

/** Two runs of one PRD per story: time, tokens, cost and outcome, with the difference. */
function Comparison({ runId, other, stories }: { runId: string; other: string; stories: StoryReport[] }) {
  const { data, error } = useApi<RunDetail>(`/api/runs/${encodeURIComponent(other)}`);
  if (!data) return <Loading error={error} what={`run ${other}`} />;
  const rows = compareRuns(stories, data.tree.stories);
  return (
    <table class="compare" aria-label={`Run ${runId} against run ${other}`}>
      <thead>
        <tr>
          <th scope="col">Story</th>
          <th scope="col">
            Outcome ({runId} → {other})
          </th>
          <th scope="col">Time</th>
          <th scope="col">Tokens</th>
          <th scope="col">Cost</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(({ story, a, b }) => (
          <tr key={story} data-story={story}>
            <th scope="row">{story}</th>
            <td>
              {a ? <Status value={a.status} /> : "–"} → {b ? <Status value={b.status} /> : "–"}
            </td>
            <td>
              {time(a)} → {time(b)} <span class="muted">{delta(a?.durationMs, b?.durationMs, duration)}</span>
            </td>
            <td>
              {a ? num(a.tokens) : "–"} → {b ? num(b.tokens) : "–"}{" "}
              <span class="muted">{delta(a?.tokens, b?.tokens, num)}</span>
            </td>
            <td>
              {cost(a)} → {cost(b)}{" "}
              <span class="muted">{delta(a?.costUsd, b?.costUsd, (n) => `$${n.toFixed(4)}`)}</span>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Tokens and cost over the run's time, and the run beside another run of the same PRD. */
export function UsageView({
  run,
  stories,
  start,
  end,
}: {
  run: RunRow;
  stories: StoryReport[];
  start: number;
  end: number;
}) {
  const { data } = useApi<{ runs: RunRow[] }>("/api/runs");
  const [other, setOther] = useState("");
  const peers = (data?.runs ?? []).filter((r) => r.prd === run.prd && r.runId !== run.runId);
  return (
    <section class="usage" aria-label="Cost and tokens">
      <h2>Tokens and cost over time</h2>
      <UsageChart stories={stories} start={start} end={end} />
      <h2>Compare with another run of this PRD</h2>
      {peers.length ? (
        <label>
          Run{" "}
          <select
            aria-label="Compare with run"
            value={other}
            onChange={(e) => setOther((e.currentTarget as HTMLSelectElement).value)}
          >
            <option value="">choose a run</option>
            {peers.map((r) => (
              <option key={r.runId} value={r.runId}>
                {r.runId} ({r.status})
              </option>
            ))}
          </select>
        </label>
      ) : (
        <p class="muted">No other run of {run.prd} in the store.</p>
      )}
      {other ? <Comparison runId={run.runId} other={other} stories={stories} /> : null}
    </section>
  );
}
