import { useCallback, useState } from "preact/hooks";
import type { EndedRun, LaunchedRun } from "../../../src/RunLauncher.js";
import type { ToolLatency } from "../../../src/toolLatency.js";
import { ApiError, api, dateTime, duration, num, useApi, useLive } from "../api.js";
import { Loading, Section, Status } from "../components.js";
import { useThrottled } from "./RunsPage.js";

interface Health {
  guard: { locked: boolean; lockReason: string | null; lockedAt: string | null };
  launched: LaunchedRun[];
  ended: EndedRun[];
  runsRead: number;
  tools: ToolLatency[];
}

/** The guard (emergency stop / unlock) and per-tool latency percentiles and error rates. */
export function HealthPage() {
  const { data, error, reload } = useApi<Health>("/api/health");
  const [note, setNote] = useState<string | undefined>();
  const [reason, setReason] = useState("emergency stop from flow console");
  const throttled = useThrottled(reload, 2000);
  useLive(useCallback(() => throttled(), [throttled]));
  if (!data) return <Loading error={error} what="health" />;
  const call = async (path: string, body: unknown) => {
    try {
      await api(path, { method: "POST", body });
      setNote(path.endsWith("stop") ? "guard locked" : "guard unlocked");
      reload();
    } catch (e) {
      setNote(e instanceof ApiError ? e.message : String(e));
    }
  };
  return (
    <>
      <h1>Health</h1>
      <Section title="Guard">
        <p>
          <Status value={data.guard.locked ? "locked" : "unlocked"} />{" "}
          {data.guard.locked
            ? `${data.guard.lockReason ?? ""}${data.guard.lockedAt ? ` (since ${dateTime(data.guard.lockedAt)})` : ""}`
            : ""}
        </p>
        <p class="muted">
          While locked the console starts no run; locking also interrupts the runs this console started or resumed (they
          stay resumable). Runs started elsewhere (a terminal, a worker) go on: stop them with Ctrl-C where they run.
        </p>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void call("/api/guard/stop", { reason });
          }}
        >
          <label for="reason">Reason</label>{" "}
          <input id="reason" value={reason} onInput={(e) => setReason((e.target as HTMLInputElement).value)} />{" "}
          <button type="submit" class="danger">
            Lock guard, stop console-started runs
          </button>{" "}
          <button type="button" onClick={() => call("/api/guard/unlock", {})} disabled={!data.guard.locked}>
            Unlock
          </button>
        </form>
        <p role="status" aria-live="polite">
          {note ?? ""}
        </p>
        {data.launched.length ? (
          <p>Runs this console started or resumed that still run: {data.launched.map((l) => l.runId).join(", ")}</p>
        ) : null}
      </Section>
      <Section title="Runs and resumes started here">
        {data.ended.length ? (
          <table>
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Command</th>
                <th scope="col">Ended</th>
                <th scope="col">Exit</th>
                <th scope="col">Last output</th>
              </tr>
            </thead>
            <tbody>
              {data.ended.map((e) => (
                <tr key={`${e.runId}-${e.endedAt}`}>
                  <th scope="row">
                    <a href={`#/runs/${encodeURIComponent(e.runId)}`}>{e.runId}</a>
                  </th>
                  <td>
                    <code>flow {e.command}</code>
                  </td>
                  <td>{dateTime(e.endedAt)}</td>
                  <td>{e.code ?? e.signal}</td>
                  <td>
                    <pre>{e.stderrTail.split("\n").slice(-6).join("\n")}</pre>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p class="muted">None yet.</p>
        )}
      </Section>
      <Section title={`Tool latency (newest ${num(data.runsRead)} runs)`}>
        {data.tools.length ? (
          <table>
            <thead>
              <tr>
                <th scope="col">Tool</th>
                <th scope="col">Calls</th>
                <th scope="col">p50</th>
                <th scope="col">p95</th>
                <th scope="col">p99</th>
                <th scope="col">Errors</th>
                <th scope="col">Refused</th>
                <th scope="col">Error rate</th>
              </tr>
            </thead>
            <tbody>
              {data.tools.map((t) => (
                <tr key={t.tool}>
                  <th scope="row">{t.tool}</th>
                  <td>{num(t.calls)}</td>
                  <td>{duration(t.p50)}</td>
                  <td>{duration(t.p95)}</td>
                  <td>{duration(t.p99)}</td>
                  <td>{num(t.errors)}</td>
                  <td>{num(t.refused)}</td>
                  <td>{(t.errorRate * 100).toFixed(1)} %</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p class="muted">No tool calls recorded yet.</p>
        )}
      </Section>
    </>
  );
}
