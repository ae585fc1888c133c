import { useCallback, useEffect, useState } from "preact/hooks";
import type { Span } from "../../../src/pictures/timeline.js";
import type { RunDetail } from "../../../src/RunCatalog.js";
import type { UnstartedRun } from "../../../src/RunLauncher.js";
import { ApiError, api, duration, plural, useApi, useLive } from "../api.js";
import { Loading, Status } from "../components.js";
import { GraphView } from "../pictures/GraphView.js";
import { TimelineView } from "../pictures/TimelineView.js";
import { UsageView } from "../pictures/UsageView.js";
import { tokensLabel } from "../usage.js";
import { ApprovalsPanel, type RunApprovals } from "./ApprovalsPanel.js";
import { LaunchEndedPanel } from "./LaunchEndedPanel.js";
import { useThrottled } from "./RunsPage.js";
import { type Focus, GenericEvent, Story } from "./RunTree.js";
import { UnstartedRunView } from "./UnstartedRunView.js";

/** The views of a run's page (`#/runs/<id>?view=<id>`; the graph's `&story=<id>` highlights a story's path). */
const VIEWS = [
  { id: "tree", label: "Tree" },
  { id: "timeline", label: "Timeline" },
  { id: "graph", label: "Graph" },
  { id: "cost", label: "Cost" },
] as const;

/** Ticks once a second while `on`, so a running run's open bars grow. */
function useNow(on: boolean): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!on) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [on]);
  return now;
}

/**
 * One run: its header, the Resume and stop buttons, and one of its views: the story → step → call
 * tree, the timeline, the mesh graph, or tokens and cost over time with a comparison.
 */
export function RunPage({ runId, view, story }: { runId: string; view: string; story?: string | undefined }) {
  // A run the console started that is not in the store yet (or never got there) answers its command's state.
  const {
    data: answer,
    error,
    reload: reloadRun,
  } = useApi<RunDetail | UnstartedRun>(`/api/runs/${encodeURIComponent(runId)}`);
  const data = answer && "run" in answer ? answer : undefined;
  const approvals = useApi<RunApprovals>(`/api/runs/${encodeURIComponent(runId)}/approvals`);
  const reloadApprovals = approvals.reload;
  const reload = useCallback(() => {
    reloadRun();
    reloadApprovals();
  }, [reloadRun, reloadApprovals]);
  const workers = useApi<{ workers: Record<string, string> }>(`/api/runs/${encodeURIComponent(runId)}/workers`);
  const throttled = useThrottled(reload);
  const [note, setNote] = useState<string | undefined>();
  const [focus, setFocus] = useState<Focus | undefined>();
  const now = useNow(data?.run.status === "running" && view !== "tree");
  const base = `#/runs/${encodeURIComponent(runId)}`;
  /** The graph with a story's path highlighted (a link people can share). */
  const graphOf = (id: string | undefined) => `${base}?view=graph${id ? `&story=${encodeURIComponent(id)}` : ""}`;
  useEffect(() => {
    if (!focus || view !== "tree") return;
    const el = document.querySelector('[data-focus="1"]');
    el?.scrollIntoView({ block: "center" });
    (el?.querySelector("summary") as HTMLElement | null)?.focus();
  }, [focus, view, data]);
  const open = (span: Span) => {
    setFocus({
      story: span.story,
      ...(span.step !== undefined ? { step: span.step } : {}),
      ...(span.consult ? { consult: span.consult } : {}),
      ...(span.key ? { key: span.key } : {}),
    });
    location.hash = base;
  };
  useLive(
    useCallback(
      (event: string, payload: { changed?: unknown }) => {
        if (event === "runs" && Array.isArray(payload.changed) && payload.changed.includes(runId)) throttled();
      },
      [runId, throttled],
    ),
  );
  const act = async (what: "resume" | "stop" | "stop-run") => {
    try {
      if (what === "stop-run") {
        await api(`/api/runs/${encodeURIComponent(runId)}/stop`, {
          method: "POST",
          body: { reason: "stopped from flow console" },
        });
        setNote(`asked run ${runId} to stop: calls in flight finish and are recorded; it stays resumable`);
      } else if (what === "resume") {
        const r = await api<{ launched: { pid: number } }>(`/api/runs/${encodeURIComponent(runId)}/resume`, {
          method: "POST",
        });
        setNote(`flow resume ${runId} started (pid ${r.launched.pid})`);
      } else {
        const r = await api<{ interrupted: string[] }>("/api/guard/stop", {
          method: "POST",
          body: { reason: `emergency stop from the console (run ${runId})` },
        });
        setNote(`guard locked; interrupted: ${r.interrupted.join(", ") || "no run started by this console"}`);
      }
    } catch (e) {
      setNote(e instanceof ApiError ? `${e.message} (${e.code})` : String(e));
    }
  };
  // A run of the store has `run` (and `launch` too when this console started a command for it).
  if (answer && !("run" in answer)) return <UnstartedRunView answer={answer} />;
  if (!data) return <Loading error={error} what={`run ${runId}`} />;
  const { run, tree } = data;
  const resumable = run.status === "interrupted" || run.status === "aborted";
  return (
    <>
      <p>
        <a href="#/runs">← All runs</a>
      </p>
      <h1>
        Run {run.runId} <Status value={run.status} />
      </h1>
      <p class="muted">
        {run.prd} · {plural(run.stories, "story", "stories")} · {plural(run.calls, "call")} · {duration(run.durationMs)}
        {run.tokens ? ` · ${tokensLabel(run.tokens)}` : ""}
      </p>
      <div class="actions">
        <button type="button" onClick={() => act("resume")} disabled={!resumable}>
          Resume
        </button>
        <button type="button" class="danger" onClick={() => act("stop-run")} disabled={run.status !== "running"}>
          Stop this run
        </button>
        <button type="button" class="danger" onClick={() => act("stop")}>
          Lock guard, stop console-started runs
        </button>
      </div>
      <p class="muted">
        Stop this run asks the <code>flow run</code> or <code>flow resume</code> running it, wherever it was started, to
        stop as Ctrl-C does: calls in flight finish and are recorded, and it stays resumable. The guard lock interrupts
        the runs this console started or resumed and starts no new one; a run of a <code>flow worker</code> stops with
        its worker (SIGTERM).
      </p>
      <p role="status" aria-live="polite">
        {note ?? ""}
      </p>
      <LaunchEndedPanel launch={data.launch} />
      <ApprovalsPanel
        runId={run.runId}
        approvals={approvals.data}
        decided={(text) => {
          setNote(text);
          reload();
        }}
      />
      <nav class="views" aria-label="Views of the run">
        <ul>
          {VIEWS.map((v) => (
            <li key={v.id}>
              <a
                href={v.id === "tree" ? base : `${base}?view=${v.id}`}
                aria-current={v.id === view ? "page" : undefined}
              >
                {v.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {view === "timeline" ? (
        <TimelineView
          stories={tree.stories}
          now={now}
          ended={run.status === "running" ? undefined : Date.parse(run.createdAt) + run.durationMs}
          workers={workers.data?.workers}
          approvals={approvals.data}
          onOpen={open}
          graphOf={graphOf}
        />
      ) : view === "graph" ? (
        <GraphView stories={tree.stories} story={story} graphOf={graphOf} />
      ) : view === "cost" ? (
        <UsageView
          run={run}
          stories={tree.stories}
          start={Date.parse(run.createdAt)}
          end={run.status === "running" ? now : Date.parse(run.createdAt) + run.durationMs}
        />
      ) : (
        <>
          <h2>Stories</h2>
          <ol class="tree" aria-label="Stories">
            {tree.stories.map((s) => (
              <Story
                key={s.id}
                story={s}
                results={data.results}
                turns={data.turns}
                runId={run.runId}
                focus={focus?.story === s.id ? focus : undefined}
                graph={graphOf(s.id)}
              />
            ))}
          </ol>
        </>
      )}
      {view === "tree" && tree.events.length ? (
        <>
          <h2>Run events</h2>
          <ol class="items">
            {tree.events.map((e, i) => (
              <GenericEvent key={i} event={e} />
            ))}
          </ol>
        </>
      ) : null}
    </>
  );
}
