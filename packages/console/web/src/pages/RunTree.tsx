import type { CallItem, ConsultReport, StepItem, StepReport, StoryReport } from "@meshflow/runtime/host";
import { Fragment } from "preact";
import type { RunDetail } from "../../../src/RunCatalog.js";
import type { EventNode } from "../../../src/runTree.js";
import { duration, plural, timeOfDay } from "../api.js";
import { Disclosure, Status } from "../components.js";
import { tokensLabel, turnLabel } from "../usage.js";

// A run's story → step → call tree, as `flow status` shows it, with each call's result and each model
// turn's words from the call journal.

/** The item the timeline asked the tree to show. */
export interface Focus {
  story: string;
  step?: number;
  consult?: string;
  key?: string;
}

type Results = RunDetail["results"];
type Turns = RunDetail["turns"];

function Json({ value }: { value: unknown }) {
  return <pre>{JSON.stringify(value, null, 2)}</pre>;
}

function Call({ call, results, focus }: { call: CallItem; results: Results; focus?: Focus | undefined }) {
  const result = call.key ? results[call.key] : undefined;
  const chosen = call.key !== undefined && focus?.key === call.key;
  return (
    <li
      class="call"
      data-kind="call"
      {...(call.key ? { "data-key": call.key } : {})}
      data-focus={chosen ? "1" : undefined}
    >
      <details
        ref={(el) => {
          if (el && chosen) el.open = true;
        }}
      >
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

/** A run-level event the page shows with its fields. */
export function GenericEvent({ event }: { event: EventNode }) {
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

function Item({
  item,
  results,
  turn,
  focus,
}: {
  item: StepItem;
  results: Results;
  turn?: Turns[string] | undefined;
  focus?: Focus | undefined;
}) {
  if (item.kind === "call") return <Call call={item} results={results} focus={focus} />;
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
  focus,
}: {
  items: StepItem[];
  results: Results;
  turns: Turns;
  prefix: string;
  focus?: Focus | undefined;
}) {
  return (
    <ol class="items">
      {items.map((item, i) => (
        <Item
          key={i}
          item={item}
          results={results}
          turn={item.kind === "turn" ? turns[`${prefix}/turn${item.turn}`] : undefined}
          focus={focus}
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
  focus,
}: {
  consult: ConsultReport;
  results: Results;
  turns: Turns;
  runId: string;
  focus?: Focus | undefined;
}) {
  const items = consult.items ?? [];
  const chosen = focus?.consult === consult.id;
  return (
    <li
      class="consult"
      data-consult={consult.id}
      data-focus={chosen && !focus?.key ? "1" : undefined}
      style={{ marginLeft: `${(consult.depth - 1) * 1.5}em` }}
    >
      <details open={consult.status === "running" || chosen}>
        <summary>
          consult <strong>{consult.specialist}</strong> (asked by {consult.by}) <Status value={consult.status} />
          <span class="muted"> · {plural(consult.calls, "call")}</span>
        </summary>
        <p>
          <em>{consult.question}</em>
        </p>
        {consult.summary ? <p>{consult.summary}</p> : null}
        {items.length ? (
          <Items items={items} results={results} turns={turns} prefix={`${runId}/${consult.id}`} focus={focus} />
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
  focus,
}: {
  step: StepReport;
  results: Results;
  turns: Turns;
  /** `<runId>/<storyId>`: journal keys of the step's turns are `<prefix>/step<N>/turn<k>`. */
  prefix: string;
  runId: string;
  open: boolean;
  focus?: Focus | undefined;
}) {
  const items = step.items ?? [];
  const chosen = focus?.step === step.step;
  return (
    <li data-focus={chosen && !focus?.key && !focus?.consult ? "1" : undefined}>
      <Disclosure initiallyOpen={open} forceOpen={chosen} data-step={step.step}>
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
          <Items
            items={items}
            results={results}
            turns={turns}
            prefix={`${prefix}/step${step.step}`}
            focus={chosen ? focus : undefined}
          />
        ) : (
          <p class="muted">No tool calls yet.</p>
        )}
        {step.consults?.length ? (
          <ol class="consults" aria-label="Consultations">
            {step.consults.map((c) => (
              <Consult
                key={c.id}
                consult={c}
                results={results}
                turns={turns}
                runId={runId}
                focus={chosen ? focus : undefined}
              />
            ))}
          </ol>
        ) : null}
      </Disclosure>
    </li>
  );
}

/** A story with its steps, consultations, calls and gate; `focus` opens the item the timeline chose. */
export function Story({
  story,
  results,
  turns,
  runId,
  focus,
  graph,
}: {
  story: StoryReport;
  results: Results;
  turns: Turns;
  runId: string;
  focus?: Focus | undefined;
  /** The link to the mesh graph with this story's path highlighted. */
  graph?: string | undefined;
}) {
  const active = story.status === "running";
  const chosen = focus?.story === story.id;
  return (
    <li data-focus={chosen && focus?.step === undefined ? "1" : undefined}>
      <Disclosure
        initiallyOpen={active || story.status === "failed" || story.status === "blocked"}
        forceOpen={chosen}
        data-story={story.id}
      >
        <summary>
          <strong>{story.id}</strong> <Status value={story.status} />
          {story.summary ? <span class="muted"> {story.summary}</span> : null}
          {graph && story.steps.length ? (
            <>
              {" "}
              <a class="show-in-graph" href={graph} data-story={story.id}>
                show in graph
              </a>
            </>
          ) : null}
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
              focus={chosen ? focus : undefined}
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
