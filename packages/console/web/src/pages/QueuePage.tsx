import { useEffect } from "preact/hooks";
import type { QueueSnapshot } from "../../../src/QueueView.js";
import { dateTime, num, useApi } from "../api.js";
import { Loading, Section, Status } from "../components.js";

function Counts({ title, counts }: { title: string; counts: Record<string, number> }) {
  return (
    <table>
      <caption>{title}</caption>
      <thead>
        <tr>
          {Object.keys(counts).map((k) => (
            <th scope="col" key={k}>
              {k}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        <tr>
          {Object.entries(counts).map(([k, v]) => (
            <td key={k}>{num(v)}</td>
          ))}
        </tr>
      </tbody>
    </table>
  );
}

/** The queue: job counts, queued runs by state, workers, and a link to Bull Board. Polled every 2 s. */
export function QueuePage() {
  const { data, error, reload } = useApi<QueueSnapshot>("/api/queue");
  useEffect(() => {
    const t = setInterval(reload, 2000);
    return () => clearInterval(t);
  }, [reload]);
  // The one refusal of GET /api/queue with code `usage`: the console was started without Redis. That is a
  // choice, not a failure: say what the page needs, in plain text.
  if (error?.code === "usage")
    return (
      <>
        <h1>Queue</h1>
        <p>
          No Redis is configured for this console. The Queue page shows the <code>runs</code> and <code>calls</code>{" "}
          queues that <code>flow enqueue</code> and <code>flow worker</code> share on Redis. To see them, start the
          console with <code>flow console --redis redis://127.0.0.1:6379</code> (or set <code>FLOW_REDIS_URL</code>).
        </p>
      </>
    );
  if (!data) return <Loading error={error} what="the queue" />;
  return (
    <>
      <h1>Queue</h1>
      <p class="muted">
        Redis {data.redis}, prefix <code>{data.prefix}</code>.{" "}
        {data.bullBoard ? (
          <a href={data.bullBoard} target="_blank" rel="noreferrer">
            Open Bull Board
          </a>
        ) : (
          <>
            Bull Board: run <code>flow dashboard --redis …</code>
          </>
        )}
      </p>
      <Section title="Job counts">
        <Counts title="Runs queue" counts={data.counts.runs} />
        <Counts title="Calls queue" counts={data.counts.calls} />
      </Section>
      <Section title="Workers">
        {data.workers.length ? (
          <table>
            <thead>
              <tr>
                <th scope="col">Connection</th>
                <th scope="col">Connected for</th>
                <th scope="col">Idle</th>
              </tr>
            </thead>
            <tbody>
              {data.workers.map((w) => (
                <tr key={w.addr}>
                  <td>{w.addr}</td>
                  <td>{num(w.ageSeconds)} s</td>
                  <td>{num(w.idleSeconds)} s</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p>No flow worker is connected.</p>
        )}
        {data.busy.length ? (
          <ul>
            {data.busy.map((b) => (
              <li key={b.runId}>
                {b.worker} runs {b.runId}
              </li>
            ))}
          </ul>
        ) : null}
      </Section>
      {(["queued", "running", "passed", "failed"] as const).map((state) => (
        <Section key={state} title={`Queued runs: ${state} (${data.runs[state].length})`}>
          {data.runs[state].length ? (
            <table>
              <thead>
                <tr>
                  <th scope="col">Run</th>
                  <th scope="col">Status</th>
                  <th scope="col">PRD</th>
                  <th scope="col">Mode</th>
                  <th scope="col">Stories</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Worker</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {data.runs[state].map((r) => (
                  <tr key={r.runId}>
                    <th scope="row">{r.runId}</th>
                    <td>
                      <Status value={r.status} />
                    </td>
                    <td>{r.file}</td>
                    <td>{r.mode}</td>
                    <td>{r.stories.length}</td>
                    <td>{r.attempts}</td>
                    <td>{r.worker ?? "–"}</td>
                    <td>{dateTime(r.updatedAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p class="muted">None.</p>
          )}
        </Section>
      ))}
    </>
  );
}
