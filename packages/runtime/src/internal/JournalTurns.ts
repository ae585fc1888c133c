import type { RecordedTurn, TurnJournal } from "@meshflow/core";
import type { CallJournal } from "@meshflow/mcp";

function asRecordedTurn(value: unknown): RecordedTurn | undefined {
  const turn = (value as { turn?: Partial<RecordedTurn> } | undefined)?.turn;
  return turn && typeof turn.requestDigest === "string" && typeof turn.response === "object"
    ? (turn as RecordedTurn)
    : undefined;
}

/**
 * A step's model turns in the run's call journal (the file journal, or Redis for queued runs), under
 * `<runId>/<storyId>/step<N>/turn<k>`: recorded before the turn's tool calls run, replayed on resume.
 */
export class JournalTurns implements TurnJournal {
  readonly #journal: CallJournal;
  readonly #prefix: string;
  readonly #offset: number;

  /** `offset`: turns this step already used (a second `ctx.model.work()` goes on numbering). */
  constructor(journal: CallJournal, prefix: string, offset: number) {
    this.#journal = journal;
    this.#prefix = prefix;
    this.#offset = offset;
  }

  #key(turn: number): string {
    return `${this.#prefix}/turn${this.#offset + turn}`;
  }

  async get(turn: number): Promise<RecordedTurn | undefined> {
    const entry = await this.#journal.get(this.#key(turn));
    return entry?.state === "finished" ? asRecordedTurn(entry.result?.structuredContent) : undefined;
  }

  async record(turn: number, recorded: RecordedTurn): Promise<void> {
    const key = this.#key(turn);
    await this.#journal.begin({ key, tool: `model:${recorded.model}`, argsDigest: recorded.requestDigest });
    await this.#journal.finish(key, { content: [], structuredContent: { turn: recorded } }, recorded.latencyMs);
  }
}
