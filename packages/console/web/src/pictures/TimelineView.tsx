import type { StoryReport } from "@meshflow/runtime/host";
import { useMemo, useRef, useState } from "preact/hooks";
import type { TimelineApprovals } from "../../../src/pictures/approvalMarks.js";
import { buildTimeline, type Lane, type Span, spanDetail } from "../../../src/pictures/timeline.js";
import { duration } from "../api.js";
import { axisTicks, HoverCard, type Hovered } from "./chart.js";

/** Height of one waterfall row in pixels (the virtual list's unit). */
const ROW = 22;
/** Rows drawn beyond the visible ones, above and below, so a scroll never shows a gap. */
const OVERSCAN = 12;
/** Height of the scrolling waterfall. */
const VIEW_HEIGHT = 520;

type Row = { lane: Lane } | { span: Span; lane: Lane };

/** Where a time falls across the track, in percent. */
const at = (t: number, start: number, width: number) => `${(((t - start) / width) * 100).toFixed(3)}%`;

function Bar({ span, start, width, lane }: { span: Span; start: number; width: number; lane: string }) {
  return (
    <div
      class={`bar k-${span.kind} s-${span.status}${span.mark ? ` m-${span.mark}` : ""}${span.approval ? ` a-${span.approval.state}` : ""}${span.open ? " open" : ""}`}
      data-span={span.id}
      data-lane={lane}
      data-story={span.story}
      data-kind={span.kind}
      data-approval={span.approval?.state}
      data-start={span.start}
      data-end={span.end}
      {...(span.step !== undefined ? { "data-step": span.step } : {})}
      style={{ left: at(span.start, start, width), width: at(start + (span.end - span.start), start, width) }}
    />
  );
}

/**
 * A run's timeline: an overview with one track per lane (the stories that ran side by side, or each
 * worker's), then the waterfall of stories → steps → consultations, model turns and tool calls.
 * Only the waterfall rows in view are drawn, so a run of thousands of stories scrolls freely. Hover a
 * bar for its details; click it to open it in the tree. A story's bar in the overview opens the mesh
 * graph with the story's path highlighted. Calls that wait for a person's approval, and their stories,
 * are amber; approved and denied calls are outlined.
 */
export function TimelineView({
  stories,
  now,
  ended,
  workers,
  approvals,
  onOpen,
  graphOf,
}: {
  stories: StoryReport[];
  now: number;
  /** When the run no longer runs, the time it ended: nothing is drawn as still running. */
  ended?: number | undefined;
  workers?: Record<string, string> | undefined;
  approvals?: TimelineApprovals | undefined;
  onOpen: (span: Span) => void;
  /** The link to the mesh graph with a story's path highlighted. */
  graphOf: (story: string) => string;
}) {
  const timeline = useMemo(
    () =>
      buildTimeline(stories, {
        now,
        ...(ended !== undefined ? { ended } : {}),
        ...(workers ? { workers } : {}),
        ...(approvals ? { approvals } : {}),
      }),
    [stories, now, ended, workers, approvals],
  );
  const rows = useMemo(() => {
    const flat: Row[] = [];
    for (const lane of timeline.lanes) {
      flat.push({ lane });
      for (const span of lane.rows) flat.push({ span, lane });
    }
    return flat;
  }, [timeline]);
  const byId = useMemo(() => new Map(rows.flatMap((r) => ("span" in r ? [[r.span.id, r.span] as const] : []))), [rows]);
  const [top, setTop] = useState(0);
  const [hovered, setHovered] = useState<Hovered | undefined>();
  const scroller = useRef<HTMLDivElement>(null);
  const { start, end } = timeline;
  const width = end - start;
  const first = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
  const last = Math.min(rows.length, Math.ceil((top + VIEW_HEIGHT) / ROW) + OVERSCAN);
  const ticks = axisTicks(width);

  const spanAt = (target: EventTarget | null): Span | undefined => {
    const el = (target as HTMLElement | null)?.closest?.("[data-span]") as HTMLElement | null;
    return el?.dataset.span ? byId.get(el.dataset.span) : undefined;
  };
  const hover = (e: MouseEvent) => {
    const span = spanAt(e.target);
    if (!span) return setHovered(undefined);
    setHovered({
      x: e.clientX,
      y: e.clientY,
      title:
        span.approval?.state === "waiting"
          ? `${span.label} · waiting for approval`
          : `${span.label} · ${span.status}${span.mark ? ` (${span.mark})` : ""}`,
      lines: [
        `${duration(span.end - span.start)}${span.open ? " so far" : ""}, from +${duration(span.start - start)}`,
        ...spanDetail(span),
      ],
    });
  };
  const click = (e: Event) => {
    const span = spanAt(e.target);
    if (!span) return;
    // The overview is a map of the stories: a story's bar there shows the story's path in the graph.
    const overview = (e.target as HTMLElement | null)?.closest?.(".lanes");
    if (overview && span.kind === "story") location.hash = graphOf(span.story);
    else onOpen(span);
  };

  if (!timeline.lanes.length) return <p class="muted">No story has started yet.</p>;
  return (
    <section
      class="timeline"
      aria-label="Timeline"
      onMouseMove={hover}
      onMouseLeave={() => setHovered(undefined)}
      onClick={click}
      // The row names are buttons (Enter opens them); this is for a bar a script focused.
      onKeyDown={(e) => e.key === "Enter" && !(e.target instanceof HTMLButtonElement) && click(e)}
    >
      <h2>Timeline</h2>
      <p class="muted">
        {timeline.lanes.length} lane{timeline.lanes.length === 1 ? "" : "s"} over {duration(width)}: stories that ran
        side by side are in separate lanes. Red marks a failure, a hatch a refused call, amber a story and a call
        waiting for an approval (outlined green once approved, red once denied). Click a bar to open it in the tree, a
        story's bar in the lanes to see its path in the mesh graph.
      </p>
      <section class="lanes" aria-label="Lanes">
        {timeline.lanes.map((lane) => (
          <div class="lane" key={lane.id} data-lane={lane.id}>
            <span class="lane-label">{lane.label}</span>
            <div class="track">
              {lane.stories.map((s) => (
                <Bar key={s.id} span={s} start={start} width={width} lane={lane.id} />
              ))}
            </div>
          </div>
        ))}
      </section>
      <div class="axis" aria-hidden="true">
        <span class="lane-label" />
        <div class="track">
          {ticks.map((t) => (
            <span key={t} class="tick" style={{ left: at(start + t, start, width) }}>
              +{duration(t)}
            </span>
          ))}
        </div>
      </div>
      <section
        class="waterfall"
        ref={scroller}
        style={{ height: `${Math.min(VIEW_HEIGHT, rows.length * ROW + 2)}px` }}
        onScroll={(e) => setTop((e.currentTarget as HTMLDivElement).scrollTop)}
        aria-label={`Waterfall, ${rows.length} rows`}
      >
        <div style={{ height: `${rows.length * ROW}px`, position: "relative" }}>
          {rows.slice(first, last).map((row, i) => {
            const y = (first + i) * ROW;
            if (!("span" in row))
              return (
                <div class="row lane-row" key={`lane-${row.lane.id}`} style={{ top: `${y}px` }}>
                  <strong>{row.lane.label}</strong>
                </div>
              );
            const { span } = row;
            return (
              <div class={`row d-${Math.min(span.depth, 4)}`} key={span.id} style={{ top: `${y}px` }}>
                <button
                  type="button"
                  class="name"
                  data-span={span.id}
                  style={{ paddingLeft: `${span.depth * 12}px` }}
                  title={`Open ${span.label} in the tree`}
                >
                  {span.label}
                </button>

                <div class="track">
                  <Bar span={span} start={start} width={width} lane={row.lane.id} />
                </div>
              </div>
            );
          })}
        </div>
      </section>
      {hovered ? <HoverCard {...hovered} /> : null}
    </section>
  );
}
