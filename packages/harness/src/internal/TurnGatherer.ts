import type { HarnessEvent } from "../HarnessAdapter.js";

/** One harness turn as its stream told it, gathered from one or more events. */
export interface GatheredTurn {
  text: string;
  toolCalls: string[];
  inputTokens: number;
  outputTokens: number;
  costUsd?: number;
  /** `performance.now()` when its first event arrived. */
  startedAt: number;
}

type TurnEvent = Extract<HarnessEvent, { type: "turn" }>;

/**
 * Gathers a harness's stream into turns: events with the same id add to one turn (text and calls
 * appended, token counts the highest seen, as some streams repeat running totals); a new id, a
 * finishing event or the end of the stream hands the turn on.
 */
export class TurnGatherer {
  readonly #onTurn: (turn: GatheredTurn) => void;
  readonly #onText: ((delta: string, text: string) => void) | undefined;
  #id: string | undefined;
  #turn: GatheredTurn | undefined;

  /** `onText`: told each event's text as it arrives, with the turn's text so far, before the turn is handed on. */
  constructor(onTurn: (turn: GatheredTurn) => void, onText?: (delta: string, text: string) => void) {
    this.#onTurn = onTurn;
    this.#onText = onText;
  }

  add(event: TurnEvent): void {
    if (this.#turn && event.id !== this.#id) this.flush();
    this.#id = event.id;
    this.#turn ??= { text: "", toolCalls: [], inputTokens: 0, outputTokens: 0, startedAt: performance.now() };
    const turn = this.#turn;
    turn.text += event.text;
    if (event.text) this.#onText?.(event.text, turn.text);
    turn.toolCalls.push(...event.toolCalls);
    turn.inputTokens = Math.max(turn.inputTokens, event.inputTokens);
    turn.outputTokens = Math.max(turn.outputTokens, event.outputTokens);
    if (event.costUsd !== undefined) turn.costUsd = Math.max(turn.costUsd ?? 0, event.costUsd);
    if (event.finished) this.flush();
  }

  /** Whether a turn is being gathered. */
  get open(): boolean {
    return this.#turn !== undefined;
  }

  /** Hands on the turn being gathered, with `costUsd` when the stream gave it only at its end. */
  flush(costUsd?: number): void {
    const turn = this.#turn;
    if (!turn) return;
    this.#turn = undefined;
    this.#id = undefined;
    if (costUsd !== undefined && turn.costUsd === undefined) turn.costUsd = costUsd;
    this.#onTurn(turn);
  }
}
