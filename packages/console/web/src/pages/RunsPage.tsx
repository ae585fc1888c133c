import { useCallback, useRef, useState } from "preact/hooks";
import type { RunRow } from "../../../src/RunCatalog.js";
import { dateTime, duration, num, useApi, useLive } from "../api.js";
import { Loading, Status } from "../components.js";
import { costPart } from "../usage.js";
import { StartRun } from "./StartRun.js";

/** Reloads at most every `ms` while live events arrive. */
export function useThrottled(fn: () => void, ms = 300): () => void {
  const timer = useRef<number | undefined>(undefined);
  const last = useRef(fn);
  last.current = fn;
  return useCallback(() => {
    if (timer.current !== undefined) return;
    timer.current = window.setTimeout(() => {
      timer.current = undefined;
      last.current();
    }, ms);
  }, [ms]);
}

/** Runs the list shows at first, and how many more each "Show more" adds. */
const PAGE_SIZE = 200;

/** The runs list: the store's runs, newest first, a page at a time, updated live; and the start form. */
export function RunsPage() {
  const [limit, setLimit] = useState(PAGE_SIZE);
  const { data, error, reload } = useApi<{ total: number; runs: RunRow[] }>(`/api/runs?limit=${limit}`);
  const throttled = useThrottled(reload);
  useLive(useCallback((event: string) => event === "runs" && throttled(), [throttled]));
  if (!data) return <Loading error={error} what="runs" />;
  return (
    <>
      <h1>Runs</h1>
      <StartRun />
      <p>
        {num(data.total)} run{data.total === 1 ? "" : "s"} in the store
        {data.runs.length < data.total ? `; the newest ${num(data.runs.length)} are shown` : ""}.
      </p>
      {data.runs.length === 0 ? (
        <p>
          No runs yet: start one with <code>flow run prd.json</code>.
        </p>
      ) : (
        <table class="runs">
          <caption class="sr-only">Runs, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Run</th>
              <th scope="col">Status</th>
              <th scope="col">PRD</th>
              <th scope="col">Stories (passed / failed / blocked / skipped)</th>
              <th scope="col">Calls</th>
              <th scope="col">Tokens (in / out)</th>
              <th scope="col">Duration</th>
              <th scope="col">Started</th>
            </tr>
          </thead>
          <tbody>
            {data.runs.map((r) => (
              <tr key={r.runId} data-run={r.runId}>
                <th scope="row">
                  <a href={`#/runs/${encodeURIComponent(r.runId)}`}>{r.runId}</a>
                </th>
                <td>
                  <Status value={r.status} />
                </td>
                <td title={r.prd}>{r.prd.split(/[\\/]/).pop()}</td>
                <td>
                  {r.stories}: {r.counts.passed} / {r.counts.failed} / {r.counts.blocked} / {r.counts.skipped}
                </td>
                <td>
                  {num(r.calls)}
                  {r.refused ? ` (${r.refused} refused)` : ""}
                </td>
                <td>
                  {r.tokens ? `${num(r.tokens.input)} / ${num(r.tokens.output)}` : "–"}
                  {r.tokens ? costPart(r.tokens) : ""}
                </td>
                <td>{duration(r.durationMs)}</td>
                <td>
                  <time dateTime={r.createdAt}>{dateTime(r.createdAt)}</time>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {data.runs.length < data.total ? (
        <button type="button" onClick={() => setLimit(limit + PAGE_SIZE)}>
          Show {num(Math.min(PAGE_SIZE, data.total - data.runs.length))} more
        </button>
      ) : null}
    </>
  );
}
