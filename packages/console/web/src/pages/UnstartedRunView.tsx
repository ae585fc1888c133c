import type { UnstartedRun } from "../../../src/RunLauncher.js";
import { dateTime } from "../api.js";
import { Status } from "../components.js";
import { exitOf, LaunchOutput } from "./LaunchEndedPanel.js";

/**
 * The page of a run this console started that is not in the run store: its `flow run` (or `flow resume`)
 * has not written the run yet, or ended before it did; then the page says how it ended and what it
 * wrote on stderr last (as text: nothing in it is markup).
 */
export function UnstartedRunView({ answer }: { answer: UnstartedRun }) {
  const { runId, launch } = answer;
  const command = `flow ${launch.command}`;
  return (
    <>
      <p>
        <a href="#/runs">← All runs</a>
      </p>
      <h1>
        Run {runId} <Status value={launch.state === "ended" ? "not started" : "starting"} />
      </h1>
      {launch.state === "starting" ? (
        <p aria-busy="true">
          <code>{command}</code> started at {dateTime(launch.startedAt)} (pid {launch.pid}) and has not written the run
          to the store yet; this page follows it.
        </p>
      ) : (
        <section aria-label="Why the run did not start" class="launch-ended">
          <p role="alert">
            The run ended before it started: <code>{command}</code> {exitOf(launch)} at {dateTime(launch.endedAt)}{" "}
            without writing anything to the run store.
          </p>
          <LaunchOutput launch={launch} />
          <p class="muted">
            The Health page lists the commands this console started and how each ended. Fix what the output names, then
            start the run again from the Runs page.
          </p>
        </section>
      )}
    </>
  );
}
