import type { EndedRun, LaunchState } from "../../../src/RunLauncher.js";
import { dateTime } from "../api.js";

/** How a command ended: its exit code, or the signal that ended it. */
export function exitOf(launch: { code: number | null; signal: string | null }): string {
  if (launch.code !== null) return `exited with code ${launch.code}`;
  return launch.signal ? `was ended by ${launch.signal}` : "ended";
}

/** A command's exit code (or the signal instead) and the end of its stderr, as text: nothing in it is markup. */
export function LaunchOutput({ launch }: { launch: EndedRun }) {
  return (
    <>
      <dl>
        <dt>Exit code</dt>
        <dd data-exit-code={launch.code ?? ""}>{launch.code ?? `none (signal ${launch.signal ?? "unknown"})`}</dd>
        <dt>Started</dt>
        <dd>
          {dateTime(launch.startedAt)} (pid {launch.pid})
        </dd>
      </dl>
      <h2>Its last output on stderr</h2>
      {launch.stderrTail ? (
        <pre class="error stderr-tail">{launch.stderrTail}</pre>
      ) : (
        <p class="muted">It wrote nothing on stderr.</p>
      )}
    </>
  );
}

/**
 * On the page of a run of the store: the newest command this console started for it (`flow resume`
 * from the Resume button, or the `flow run` of the Runs page) when it ended with an exit code other
 * than 0 or by a signal — a Resume that failed at once leaves the run as it was, and only the
 * command's output says why. Nothing for a command that still runs or ended with 0.
 */
export function LaunchEndedPanel({ launch }: { launch: LaunchState | undefined }) {
  if (launch?.state !== "ended" || launch.code === 0) return null;
  const command = `flow ${launch.command}`;
  return (
    <section aria-label="The console's last command for this run" class="launch-ended">
      <p class="error">
        <code>{command}</code>, started from this console for this run, {exitOf(launch)} at {dateTime(launch.endedAt)}.
      </p>
      <LaunchOutput launch={launch} />
    </section>
  );
}
