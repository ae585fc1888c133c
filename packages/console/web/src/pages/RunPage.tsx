import type { CallItem, ConsultReport, StepItem, StepReport, StoryReport } from "@meshflow/runtime/host";
import { Fragment } from "preact";
import { useCallback, useState } from "preact/hooks";
import type { RunDetail } from "../../../src/RunCatalog.js";
import type { EventNode } from "../../../src/runTree.js";
import { ApiError, api, duration, plural, timeOfDay, useApi, useLive } from "../api.js";
import { Disclosure, Loading, Status } from "../components.js";
import { tokensLabel, turnLabel } from "../usage.js";
import { ApprovalsPanel, type RunApprovals } from "./ApprovalsPanel.js";
import { useThrottled } from "./RunsPage.js";

type Results = RunDetail["results"];
type Turns = RunDetail["turns"];

function Json({ value }: { value: unknown }) {
  return <pre>{JSON.stringify(value, null, 2)}</pre>;
}

function Call({ call, results }: { call: CallItem; results: Results }) {
  const result = call.key ? results[call.key] : undefined;
  return (
    <li class="call" data-kind="call">
      <details>
        <summary>
          <Status value={call.status} /> <strong>{call.tool}</strong>
          {call.destructive ? <span class="tag">destructive</span> : null}
          {call.replayed ? <span class="tag">replayed</span> : null}
          {call.durationMs !== undefined ? <span class="muted"> {duration(call.durationMs)}</span> : null}
          {call.refusal ? <span class="refusal"> refused: {call.refusal.code}</span> : null}
        </summary>
        <dl>
          {call.key ? (
            <>
              <dt>Key</dt>
              <dd>
                <code>{call.key}</code>
              </dd>
            </>
          ) : null}
          {call.argsDigest ? (
            <>
              <dt>Arguments</dt>
              <dd>
                digest <code>{call.argsDigest.slice(0, 16)}</code> (the run store keeps a digest; a model's turn above
                shows the arguments it asked for)
              </dd>
            </>
          ) : null}
          {call.refusal ? (
            <>
              <dt>Refusal</dt>
              <dd>
                <code>{call.refusal.code}</code> {call.refusal.message}
              </dd>
            </>
          ) : null}
          <dt>Result</dt>
          <dd>
            {result ? (
              <>
                <pre class={result.isError ? "error" : ""}>{result.text}</pre>
                {result.truncated ? <p class="muted">(cut; the full result is in the run's journal.ndjson)</p> : null}
              </>
            ) : (
              <span class="muted">{call.status === "pending" ? "in flight" : "none recorded"}</span>
            )}
          </dd>
        </dl>
      </details>
    </li>
  );
}

function GenericEvent({ event }: { event: EventNode }) {
  return (
    <li class="event" data-kind="event" data-type={event.type}>
      <details>
        <summary>
          <span class="tag">{event.type}</span> <time dateTime={event.time}>{timeOfDay(event.time)}</time>
        </summary>
        <Json value={event.data} />
      </details>
    </li>
  );
}

function Item({ item, results, turn }: { item: StepItem; results: Results; turn?: Turns[string] | undefined }) {
  if (item.kind === "call") return <Call call={item} results={results} />;
  const text = turn?.text ?? item.text;
  return (
    <li class="turn" data-kind="turn">
      <details>
        <summary>
          <span class="tag">model turn {item.turn}</span> {item.provider}:{item.model} · {turnLabel(item)} ·{" "}
          {duration(item.latencyMs)}
          {item.toolCalls.length ? ` · calls ${item.toolCalls.join(", ")}` : ""}
          {item.replayed ? " · replayed" : ""}
          {item.session ? ` · session ${item.session}` : ""}
        </summary>
        <dl>
          <dt>Said</dt>
          <dd>{text ? <pre>{text}</pre> : <span class="muted">nothing</span>}</dd>
          {turn?.toolCalls.map((c, i) => (
            <Fragment key={i}>
              <dt>Call {c.name}</dt>
              <dd>
                <pre>{c.input}</pre>
              </dd>
            </Fragment>
          ))}
        </dl>
        {turn ? null : <p class="muted">The turn's calls are not in the call journal.</p>}
      </details>
    </li>
  );
}

function Items({
  items,
  results,
  turns,
  prefix,
}: {
  items: StepItem[];
  results: Results;
  turns: Turns;
  prefix: string;
}) {
  return (
    <ol class="items">
      {items.map((item, i) => (
        <Item
          key={i}
          item={item}
          results={results}
          turn={item.kind === "turn" ? turns[`${prefix}/turn${item.turn}`] : undefined}
        />
      ))}
    </ol>
  );
}

/** A consultation, nested under its step by depth as `flow status` shows it, with its own calls and turns. */
function Consult({
  consult,
  results,
  turns,
  runId,
}: {
  consult: ConsultReport;
  results: Results;
  turns: Turns;
  runId: string;
}) {
  const items = consult.items ?? [];
  return (
    <li class="consult" data-consult={consult.id} style={{ marginLeft: `${(consult.depth - 1) * 1.5}em` }}>
      <details open={consult.status === "running"}>
        <summary>
          consult <strong>{consult.specialist}</strong> (asked by {consult.by}) <Status value={consult.status} />
          <span class="muted"> · {plural(consult.calls, "call")}</span>
        </summary>
        <p>
          <em>{consult.question}</em>
        </p>
        {consult.summary ? <p>{consult.summary}</p> : null}
        {items.length ? (
          <Items items={items} results={results} turns={turns} prefix={`${runId}/${consult.id}`} />
        ) : null}
      </details>
    </li>
  );
}

function Step({
  step,
  results,
  turns,
  prefix,
  runId,
  open,
}: {
  step: StepReport;
  results: Results;
  turns: Turns;
  /** `<runId>/<storyId>`: journal keys of the step's turns are `<prefix>/step<N>/turn<k>`. */
  prefix: string;
  runId: string;
  open: boolean;
}) {
  const items = step.items ?? [];
  return (
    <li>
      <Disclosure initiallyOpen={open} data-step={step.step}>
        <summary>
          Step {step.step} · {step.specialist} <Status value={step.status} />
          <span class="muted">
            {" "}
            {plural(items.filter((i) => i.kind === "call").length, "call")}, {plural(step.tools ?? 0, "tool")}
            {(step.attempts ?? 1) > 1 ? `, attempt ${step.attempts}` : ""}
            {step.tokens ? `, ${tokensLabel(step.tokens)}` : ""}
          </span>
        </summary>
        {step.summary ? <p>{step.summary}</p> : null}
        {items.length ? (
          <Items items={items} results={results} turns={turns} prefix={`${prefix}/step${step.step}`} />
        ) : (
          <p class="muted">No tool calls yet.</p>
        )}
        {step.consults?.length ? (
          <ol class="consults" aria-label="Consultations">
            {step.consults.map((c) => (
              <Consult key={c.id} consult={c} results={results} turns={turns} runId={runId} />
            ))}
          </ol>
        ) : null}
      </Disclosure>
    </li>
  );
}

function Story({
  story,
  results,
  turns,
  runId,
}: {
  story: StoryReport;
  results: Results;
  turns: Turns;
  runId: string;
}) {
  const active = story.status === "running";
  return (
    <li>
      <Disclosure
        initiallyOpen={active || story.status === "failed" || story.status === "blocked"}
        data-story={story.id}
      >
        <summary>
          <strong>{story.id}</strong> <Status value={story.status} />
          {story.summary ? <span class="muted"> {story.summary}</span> : null}
        </summary>
        <ol class="steps">
          {story.steps.map((s) => (
            <Step
              key={s.step}
              step={s}
              results={results}
              turns={turns}
              prefix={`${runId}/${story.id}`}
              runId={runId}
              open={s.status === "running" || s.status === "failed"}
            />
          ))}
        </ol>
        {story.gate ? (
          <div class="gate">
            <h4>
              Gate <Status value={story.gate.passed ? "passed" : "failed"} />
            </h4>
            <p>
              {story.gate.summary} ({plural(story.gate.commands ?? 0, "command")})
            </p>
            {story.gate.failed ? (
              <>
                <p>
                  Failed: <code>{story.gate.failed.command}</code>
                </p>
                <pre>{story.gate.failed.tail}</pre>
              </>
            ) : null}
          </div>
        ) : null}
      </Disclosure>
    </li>
  );
}

/** One run: its header, the Resume and guard-lock buttons, and its story → step → call tree. */
export function RunPage({ runId }: { runId: string }) {
  const { data, error, reload: reloadRun } = useApi<RunDetail>(`/api/runs/${encodeURIComponent(runId)}`);
  const approvals = useApi<RunApprovals>(`/api/runs/${encodeURIComponent(runId)}/approvals`);
  const reloadApprovals = approvals.reload;
  const reload = useCallback(() => {
    reloadRun();
    reloadApprovals();
  }, [reloadRun, reloadApprovals]);
  const throttled = useThrottled(reload);
  const [note, setNote] = useState<string | undefined>();
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
        the runs this console resumed and starts no new one; a run of a <code>flow worker</code> stops with its worker
        (SIGTERM).
      </p>
      <p role="status" aria-live="polite">
        {note ?? ""}
      </p>
      <ApprovalsPanel
        runId={run.runId}
        approvals={approvals.data}
        decided={(text) => {
          setNote(text);
          reload();
        }}
      />
      <h2>Stories</h2>
      <ol class="tree" aria-label="Stories">
        {tree.stories.map((s) => (
          <Story key={s.id} story={s} results={data.results} turns={data.turns} runId={run.runId} />
        ))}
      </ol>
      {tree.events.length ? (
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
