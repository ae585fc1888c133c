import type { ModelClaim, ModelToolCall, ToolResult } from "@meshflow/core";
import type { ChatMessage } from "../ChatModel.js";
import { resultForModel } from "./resultText.js";

type ToolResultEntry = Extract<ChatMessage, { role: "tool" }>["results"][number];

/** How a turn's tool calls are run. */
export interface CallRunner {
  /** `ctx.call`: runs one call through the runtime (never throws). */
  call(name: string, input: Record<string, unknown>): Promise<ToolResult>;
  /** Offered name → the repertoire's qualified name. */
  qualified: ReadonlyMap<string, string>;
  /** Offered names of the tools whose calls may run side by side (read-only, or idempotent and not destructive). */
  concurrent: ReadonlySet<string>;
  /** Most calls run at once (1: one at a time). */
  parallel: number;
  /** Characters of one result sent back to the model. */
  maxResultChars: number;
}

/** What a turn's tool calls came to, in the order the model asked for them. */
export interface TurnCalls {
  results: ToolResultEntry[];
  records: ModelClaim["calls"];
  /** Calls that failed (invalid arguments included). */
  failed: number;
}

/**
 * Runs a turn's tool calls (finishing calls left out) and hands back their results in the model's
 * order. Consecutive calls of tools that only read, or are idempotent without being destructive, run
 * side by side (up to `parallel` at once); any other call runs alone, after the calls before it ended
 * and before the ones after it start — a write never overlaps anything, and `write_file` (idempotent
 * but destructive: two of them do not commute) keeps the model's order. The runtime numbers the calls
 * as they are asked for, so their journal keys follow the model's order however they end.
 */
export async function runToolCalls(calls: readonly ModelToolCall[], runner: CallRunner): Promise<TurnCalls> {
  const results: ToolResultEntry[] = new Array(calls.length);
  const records: ModelClaim["calls"] = new Array(calls.length);
  let failed = 0;
  const runOne = async (call: ModelToolCall, index: number): Promise<void> => {
    const tool = runner.qualified.get(call.name) ?? call.name;
    if (call.invalid) {
      results[index] = {
        id: call.id,
        name: call.name,
        text: `error (invalid_arguments): ${call.invalid}`,
        isError: true,
      };
      records[index] = { tool, isError: true, code: "invalid_arguments" };
      failed += 1;
      return;
    }
    // A name the model was not offered still goes to the runtime, which refuses it (an event, never dropped).
    const result = await runner.call(tool, call.input);
    const isError = result.isError === true;
    if (isError) failed += 1;
    records[index] = { tool, isError, ...(result.code ? { code: result.code } : {}) };
    results[index] = {
      id: call.id,
      name: call.name,
      text: resultForModel(result, runner.maxResultChars),
      isError,
    };
  };
  let batch: number[] = [];
  const flush = async () => {
    const started = batch.map((i) => runOne(calls[i] as ModelToolCall, i));
    batch = [];
    await Promise.all(started);
  };
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i] as ModelToolCall;
    // Refused at once, without the runtime: it neither waits for nor holds up the others.
    if (call.invalid) await runOne(call, i);
    else if (runner.parallel > 1 && runner.concurrent.has(call.name)) {
      batch.push(i);
      if (batch.length >= runner.parallel) await flush();
    } else {
      await flush();
      await runOne(call, i);
    }
  }
  await flush();
  return { results, records, failed };
}
