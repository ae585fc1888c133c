import { readFileSync } from "node:fs";
import {
  checkJsonLimits,
  digestOf,
  MAX_ARGUMENT_DEPTH,
  MeshflowError,
  type ModelResponse,
  writeFileAtomic,
} from "@meshflow/core";
import type { ChatModel, ChatRequest, TextListener, TurnRef, WaitListener } from "./ChatModel.js";
import { CassetteSchema } from "./internal/CassetteSchema.js";
import { describeDifference, type RecordedContext, type RequestParts, type TurnResults } from "./RequestParts.js";

/** One recorded model turn of a cassette. */
export interface CassetteTurn {
  storyId: string;
  step: number;
  turn: number;
  /** `<provider>:<model-id>` that answered. */
  model: string;
  requestDigest: string;
  response: ModelResponse;
  /**
   * `sha256:<hex>` of the response's canonical JSON, recorded with it: a replay checks it before the
   * turn's calls run, so a response edited after recording is refused instead of acted on.
   */
  responseDigest: string;
  latencyMs: number;
  /** A step's first turn: the parts its requests were built from (to name what changed at a replay). */
  parts?: RequestParts;
  /** A step's first turn: the run context its prompt was built from (the replay builds it from this). */
  context?: RecordedContext;
  /** A later turn: whether each tool call of the turn before failed. */
  results?: TurnResults;
}

/** The digest a cassette records for a response ({@link CassetteTurn.responseDigest}). */
function responseDigestOf(response: ModelResponse): string {
  return digestOf(response);
}

const keyOf = (storyId: string, step: number, turn: number) => `${storyId}/step${step}/turn${turn}`;

/** A file of recorded model turns (`flow run --record` / `--replay`), keyed by story, step and turn. */
export class Cassette {
  readonly file: string;
  readonly #turns = new Map<string, CassetteTurn>();

  private constructor(file: string, turns: readonly CassetteTurn[]) {
    this.file = file;
    for (const t of turns) this.#turns.set(keyOf(t.storyId, t.step, t.turn), t);
  }

  /** Reads a cassette; `cassette_invalid` naming the file and what is wrong. */
  static load(file: string): Cassette {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (cause) {
      throw new MeshflowError("cassette_invalid", `${file}: cannot read the cassette (${(cause as Error).message})`, {
        cause,
      });
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (cause) {
      throw new MeshflowError("cassette_invalid", `${file}: not JSON: ${(cause as Error).message}`, { cause });
    }
    const parsed = CassetteSchema.safeParse(data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new MeshflowError(
        "cassette_invalid",
        `${file}: $.${issue?.path.join(".") ?? ""}: ${issue?.message ?? "not a cassette"} (expected {"cassette": 1, "turns": [...]})`,
      );
    }
    return new Cassette(file, checkedTurns(file, parsed.data.turns));
  }

  /** An empty cassette that will be written to `file`. */
  static create(file: string): Cassette {
    return new Cassette(file, []);
  }

  /** A cassette to add turns to: the file's turns when it exists, else empty. */
  static openForRecording(file: string, append: boolean): Cassette {
    if (!append) return Cassette.create(file);
    try {
      return Cassette.load(file);
    } catch (error) {
      if ((error as MeshflowError).message.includes("cannot read")) return Cassette.create(file);
      throw error;
    }
  }

  get(storyId: string, step: number, turn: number): CassetteTurn | undefined {
    return this.#turns.get(keyOf(storyId, step, turn));
  }

  /** The run context a step's prompt was recorded with (its first turn's), when the cassette kept it. */
  contextOf(storyId: string, step: number): RecordedContext | undefined {
    return this.get(storyId, step, 1)?.context;
  }

  /** The model that answered a story's first recorded turn (a replay needs no `--model`). */
  modelOf(storyId: string): string | undefined {
    for (const t of this.#turns.values()) if (t.storyId === storyId) return t.model;
    return undefined;
  }

  /** Number of recorded turns. */
  get size(): number {
    return this.#turns.size;
  }

  /** Adds a turn and rewrites the file atomically: a killed run leaves a whole cassette. */
  add(turn: CassetteTurn): void {
    this.#turns.set(keyOf(turn.storyId, turn.step, turn.turn), turn);
    const turns = [...this.#turns.values()];
    writeFileAtomic(this.file, `${JSON.stringify({ cassette: 1, turns }, null, 1)}\n`);
  }
}

/** Deepest nesting a recorded response may have: a tool call's input at the argument limit, and its envelope. */
const MAX_RESPONSE_DEPTH = MAX_ARGUMENT_DEPTH + 4;

/**
 * The turns of a loaded cassette, each with its response digest: a turn without one (a cassette
 * recorded before meshflow recorded them) refuses the whole file, naming it and how to record it
 * again, rather than replaying responses nothing vouches for. A response nested too deep is refused
 * before its digest (a recursive walk) is ever computed.
 */
function checkedTurns(
  file: string,
  turns: ReadonlyArray<Omit<CassetteTurn, "responseDigest"> & { responseDigest?: string | undefined }>,
): CassetteTurn[] {
  return turns.map((t, i) => {
    const where = `${file}: turn ${t.turn} of ${t.storyId} step ${t.step} ($.turns[${i}])`;
    const tooDeep = checkJsonLimits(t.response, {
      maxDepth: MAX_RESPONSE_DEPTH,
      maxBytes: Number.POSITIVE_INFINITY,
      prefix: ["turns", i, "response"],
      limitOf: "a recorded response",
    });
    if (tooDeep) throw new MeshflowError("cassette_invalid", `${file}: ${tooDeep.path}: ${tooDeep.message}`);
    if (t.responseDigest === undefined)
      throw new MeshflowError(
        "cassette_invalid",
        `${where} has no responseDigest: the cassette was recorded before meshflow checked recorded responses; record it again with flow run --record ${file}`,
        { details: { file } },
      );
    return { ...t, responseDigest: t.responseDigest };
  });
}

/** Answers every turn from a cassette: no key, no network. A turn it lacks or whose request differs is `replay_mismatch`. */
export class ReplayingChatModel implements ChatModel {
  readonly provider: string;
  readonly modelId: string;
  readonly name: string;
  readonly replaying = true;
  readonly #cassette: Cassette;

  constructor(name: string, cassette: Cassette) {
    const at = name.indexOf(":");
    this.provider = at > 0 ? name.slice(0, at) : name;
    this.modelId = at > 0 ? name.slice(at + 1) : name;
    this.name = name;
    this.#cassette = cassette;
  }

  async generate(_request: ChatRequest, turn: TurnRef): Promise<ModelResponse> {
    const where = `turn ${turn.turn} of ${turn.storyId} step ${turn.step}`;
    const recorded = this.#cassette.get(turn.storyId, turn.step, turn.turn);
    if (!recorded)
      throw new MeshflowError(
        "replay_mismatch",
        `${where}: ${this.#cassette.file} has no recording of it (record the run again with --record)`,
      );
    if (recorded.requestDigest !== turn.requestDigest) {
      const first = this.#cassette.get(turn.storyId, turn.step, 1);
      const part = describeDifference(
        { parts: first?.parts, results: recorded.results },
        { parts: turn.parts, results: turn.results },
        turn.turn,
      );
      throw new MeshflowError(
        "replay_mismatch",
        part
          ? `${where}: the request differs from the one ${this.#cassette.file} recorded, ${part}\n(record again with --record)`
          : `${where}: the request differs from the one ${this.#cassette.file} recorded (the story, the specialist's instructions, the tools or an earlier turn changed; record again with --record)`,
      );
    }
    // Before the loop sees the response, so none of its calls runs when it was edited after recording.
    if (responseDigestOf(recorded.response) !== recorded.responseDigest)
      throw new MeshflowError(
        "replay_mismatch",
        `${where}: the response ${this.#cassette.file} holds is not the one recorded (its responseDigest differs: the file was edited); none of its calls ran; record again with --record`,
      );
    return recorded.response;
  }

  recordedContext(storyId: string, step: number): RecordedContext | undefined {
    return this.#cassette.contextOf(storyId, step);
  }
}

/** Passes every turn to a live model and records it in a cassette. */
export class RecordingChatModel implements ChatModel {
  readonly provider: string;
  readonly modelId: string;
  readonly name: string;
  readonly #inner: ChatModel;
  readonly #cassette: Cassette;

  constructor(inner: ChatModel, cassette: Cassette) {
    this.provider = inner.provider;
    this.modelId = inner.modelId;
    this.name = inner.name;
    this.#inner = inner;
    this.#cassette = cassette;
  }

  async generate(
    request: ChatRequest,
    turn: TurnRef,
    signal: AbortSignal,
    onText?: TextListener,
    onWait?: WaitListener,
  ): Promise<ModelResponse> {
    const started = performance.now();
    const response = await this.#inner.generate(request, turn, signal, onText, onWait);
    this.#cassette.add({
      storyId: turn.storyId,
      step: turn.step,
      turn: turn.turn,
      model: this.name,
      requestDigest: turn.requestDigest,
      response,
      responseDigest: responseDigestOf(response),
      latencyMs: Math.round(performance.now() - started),
      ...(turn.turn === 1 && turn.parts ? { parts: turn.parts } : {}),
      ...(turn.turn === 1 && turn.context ? { context: turn.context } : {}),
      ...(turn.turn > 1 && turn.results ? { results: turn.results } : {}),
    });
    return response;
  }
}
