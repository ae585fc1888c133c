import type { ModelTextDelta, ModelWait, RunEvent, StepStatus } from "@meshflow/core";
import { type Colors, plainColors, statusMark, statusWord, stripColors } from "../colors.js";
import { firstLine, formatEvent, gateLines } from "./formatEvent.js";
import { waitLine } from "./waitLine.js";

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

interface LiveStep {
  step: number;
  specialist: string;
  started: number;
  calls: number;
  /** Model turns and tokens so far. */
  turns: number;
  tokens: number;
  /** What the model said in its latest turn (one shortened line), shown under the step while it runs. */
  said?: string;
  /** What the model is saying in the turn it is in (streamed), until that turn's `model.turn` event. */
  saying?: { consult?: string; turn: number; text: string };
  /** The provider refused the turn's request for now (429, 529): what it said and when the next try goes out. */
  waiting?: { line: string; until: number };
  status?: StepStatus;
  summary?: string;
  refusals: string[];
  /** Consultations the step asked for, nested ones after their asker (by depth). */
  consults: LiveConsult[];
}

interface LiveConsult {
  id: string;
  specialist: string;
  by: string;
  depth: number;
  started: number;
  calls: number;
  status?: StepStatus;
  summary?: string;
}

interface LiveStory {
  id: string;
  started: number;
  steps: LiveStep[];
  /** The gate's line and, when it failed, the last lines of the failing command's output. */
  gate?: string[];
}

/**
 * The live tree of `flow run` on a TTY: the stories in progress (one, or several with `--parallel`)
 * with their steps and the steps' consultations (spinner, elapsed time, tool-call count) redrawn in
 * place; finished stories stay above as one block each.
 */
export class TreeView {
  readonly #write: (text: string) => void;
  readonly #c: Colors;
  /** Stories in progress, by id, in the order they started. */
  readonly #stories = new Map<string, LiveStory>();
  #drawn = 0;
  #frame = 0;
  #timer: NodeJS.Timeout | undefined;

  /** `colors` colours marks, refusals and times (none by default). */
  constructor(write: (text: string) => void, colors: Colors = plainColors) {
    this.#write = write;
    this.#c = colors;
  }

  start(): void {
    this.#timer = setInterval(() => this.#redraw(), 100);
    this.#timer.unref();
  }

  /** Stops drawing and erases the live lines, so a question can use the terminal; `start()` draws again. */
  pause(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#clear();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#redraw();
  }

  onEvent(event: RunEvent): void {
    const story = "storyId" in event ? this.#stories.get(event.storyId) : undefined;
    const step = story && "step" in event ? story.steps.findLast((s) => s.step === event.step) : undefined;
    const consult =
      step && "consult" in event && event.consult ? step.consults.find((k) => k.id === event.consult) : undefined;
    switch (event.type) {
      case "story.started":
        this.#stories.set(event.storyId, { id: event.storyId, started: Date.now(), steps: [] });
        break;
      case "step.started":
        story?.steps.push({
          step: event.step,
          specialist: event.specialist,
          started: Date.now(),
          calls: 0,
          turns: 0,
          tokens: 0,
          refusals: [],
          consults: [],
        });
        break;
      case "consult.started":
        step?.consults.push({
          id: event.consult,
          specialist: event.specialist,
          by: event.by,
          depth: event.depth,
          started: Date.now(),
          calls: 0,
        });
        break;
      case "consult.done": {
        const done = step?.consults.find((k) => k.id === event.consult);
        if (done) Object.assign(done, { status: event.status, summary: event.summary, calls: event.calls });
        break;
      }
      case "tool.called":
        if (consult) consult.calls++;
        else if (step) step.calls++;
        break;
      case "tool.refused":
        step?.refusals.push(`${event.tool}: ${event.code}`);
        break;
      case "tool.result":
        break;
      case "approval.requested":
        step?.refusals.push(`${event.tool}: awaiting approval (${event.key})`);
        break;
      case "approval.decided":
        break;
      case "model.turn":
        if (step) {
          step.turns++;
          step.tokens += event.inputTokens + event.outputTokens;
          if (event.text) step.said = event.text;
          delete step.waiting;
          // The turn it streamed has ended (a later one may already be streaming: events come later).
          const saying = step.saying;
          if (saying && saying.consult === event.consult && saying.turn <= event.turn) delete step.saying;
        }
        break;
      case "step.finished":
        if (step) Object.assign(step, { status: event.status, summary: event.summary });
        break;
      case "gate.finished":
        if (story) story.gate = gateLines(event, this.#c, "      ");
        break;
      case "story.finished": {
        const lines = story
          ? this.#lines(story, `${statusWord(event.status, this.#c)}: ${firstLine(event.summary)}`)
          : [];
        this.#clear();
        if (!story) this.#write(`${formatEvent(event, this.#c)}\n`);
        else this.#write(`${lines.join("\n")}\n`);
        this.#stories.delete(event.storyId);
        break;
      }
      default: {
        const line = formatEvent(event, this.#c);
        this.#clear();
        if (line) this.#write(`${line}\n`);
      }
    }
    this.#redraw();
  }

  /**
   * The text of a model's turn while it runs: kept on its step and drawn with the next frame (at most
   * ten a second, however fast the text comes).
   */
  onModelText(delta: ModelTextDelta): void {
    const step = this.#stories.get(delta.storyId)?.steps.findLast((s) => s.step === delta.step);
    if (!step || step.status) return;
    step.saying = { ...(delta.consult ? { consult: delta.consult } : {}), turn: delta.turn, text: delta.text };
    delete step.waiting;
  }

  /** A model's wait before it asks again (429, 529): shown under its step, with the time left, until the turn goes on. */
  onModelWait(wait: ModelWait): void {
    const step = this.#stories.get(wait.storyId)?.steps.findLast((s) => s.step === wait.step);
    if (!step || step.status) return;
    const who = wait.consult ? `${wait.consult}: ` : "";
    step.waiting = { line: `${who}turn ${wait.turn} ${waitLine(wait)}`, until: Date.now() + wait.waitMs };
  }

  #lines(story: LiveStory, final?: string): string[] {
    const c = this.#c;
    const elapsed = (since: number) => c.dim(`${((Date.now() - since) / 1000).toFixed(1)}s`);
    const spin = SPINNER[this.#frame % SPINNER.length] ?? "·";
    const lines = [`${final ? "" : `${spin} `}${story.id}${final ? ` ${final}` : ` ${elapsed(story.started)}`}`];
    for (const s of story.steps) {
      const head = s.status ? statusMark(s.status, c) : spin;
      const turns = s.turns
        ? ` · ${s.turns} turn${s.turns === 1 ? "" : "s"}, ${s.tokens.toLocaleString("en-US")} tokens`
        : "";
      const calls = `${s.calls} call${s.calls === 1 ? "" : "s"}${turns}`;
      const tail = s.status ? `${s.status}: ${firstLine(s.summary ?? "")}` : elapsed(s.started);
      lines.push(`  ${head} step ${s.step} ${s.specialist} · ${calls} · ${tail}`);
      // The model's words of its latest turn, while the step runs; the finished block keeps the verdict only.
      // While a turn streams, its words so far instead: their end, where the text grows, cursor after.
      const left = s.waiting && !s.status ? s.waiting.until - Date.now() : 0;
      if (s.waiting && left > 0)
        lines.push(`      ${c.yellow(`⏸ ${s.waiting.line}`)} ${c.dim(`${(left / 1000).toFixed(1)}s left`)}`);
      if (s.saying && !s.status) lines.push(`      ${c.dim(`“${lastWords(s.saying.text, this.#columns() - 10)}`)}▌`);
      else if (s.said && !s.status) lines.push(`      ${c.dim(`“${s.said}”`)}`);
      for (const k of s.consults) {
        const mark = k.status ? statusMark(k.status, c) : spin;
        const tail = k.status ? `${k.status}: ${firstLine(k.summary ?? "")}` : elapsed(k.started);
        lines.push(
          `  ${"  ".repeat(k.depth)}${mark} consult ${k.specialist} (asked by ${k.by}) · ${k.calls} call${k.calls === 1 ? "" : "s"} · ${tail}`,
        );
      }
      for (const r of s.refusals) lines.push(`      ${c.yellow(`refused ${r}`)}`);
    }
    if (story.gate) lines.push(`  ${story.gate[0]}`, ...story.gate.slice(1));
    return lines;
  }

  #columns(): number {
    return process.stdout.columns || 120;
  }

  #clear(): void {
    if (this.#drawn) this.#write(`\x1b[${this.#drawn}A\x1b[J`);
    this.#drawn = 0;
  }

  #redraw(): void {
    this.#frame++;
    this.#clear();
    if (!this.#stories.size) return;
    const cols = this.#columns();
    // A line wider than the terminal would wrap and break the redraw: cut it (its colour goes with it).
    const lines = [...this.#stories.values()]
      .flatMap((story) => this.#lines(story))
      .map((l) => {
        const plain = stripColors(l);
        return plain.length > cols - 1 ? `${plain.slice(0, cols - 2)}…` : l;
      });
    this.#write(`${lines.join("\n")}\n`);
    this.#drawn = lines.length;
  }
}

/** Text on one line, at most `max` characters: its end, after `…` when it is longer. */
function lastWords(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trimStart();
  return flat.length <= max ? flat : `…${flat.slice(flat.length - Math.max(1, max - 1))}`;
}
