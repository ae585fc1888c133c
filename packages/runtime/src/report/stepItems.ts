import type { RunEvent } from "@meshflow/core";

/** One tool call in a detailed report: called, then answered or refused. */
export interface CallItem {
  kind: "call";
  /** Idempotency key (`run/story/stepN/seq`); absent for a refusal before a key was given. */
  key?: string;
  tool: string;
  time: string;
  /** `pending` until a result or refusal is recorded. */
  status: "pending" | "ok" | "error" | "refused";
  argsDigest?: string;
  destructive?: boolean;
  durationMs?: number;
  replayed?: boolean;
  resultDigest?: string;
  refusal?: { code: string; message: string };
}

/** One model (or harness) turn in a detailed report. */
export interface TurnItem {
  kind: "turn";
  time: string;
  turn: number;
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  latencyMs: number;
  toolCalls: string[];
  replayed: boolean;
  /** Input tokens read from and written to the provider's prompt cache. */
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** What the model said, shortened, when it said something. */
  text?: string;
  /** A harness's session, and what the turn cost in US dollars (the price table's, or as the harness said). */
  session?: string;
  costUsd?: number;
  /** The model is in no price table: the turn's cost is unknown. */
  costUnknown?: boolean;
  /** Earlier tool results the context budget trimmed before this turn. */
  trimmedResults?: number;
}

/** What a step or a consultation did, in event order. */
export type StepItem = CallItem | TurnItem;

/** Something that holds items: a step, or one of its consultations. */
interface ItemHolder {
  items?: StepItem[];
}

/**
 * Adds a call, result, refusal or turn event to the items of its step or consultation (`holder`).
 * `calls` maps idempotency keys to the calls added so far, so a result finds its call.
 */
export function addStepItem(event: RunEvent, holder: ItemHolder | undefined, calls: Map<string, CallItem>): void {
  switch (event.type) {
    case "tool.called": {
      const call: CallItem = {
        kind: "call",
        key: event.key,
        tool: event.tool,
        time: event.time,
        status: "pending",
        argsDigest: event.argsDigest,
        ...(event.destructive ? { destructive: true } : {}),
      };
      calls.set(event.key, call);
      holder?.items?.push(call);
      return;
    }
    case "tool.result": {
      const call = calls.get(event.key);
      if (!call) return;
      call.status = event.isError ? "error" : "ok";
      call.durationMs = event.durationMs;
      call.resultDigest = event.resultDigest;
      if (event.replayed) call.replayed = true;
      return;
    }
    case "tool.refused": {
      const refusal = { code: event.code, message: event.message };
      const known = event.key ? calls.get(event.key) : undefined;
      if (known) {
        known.status = "refused";
        known.refusal = refusal;
        return;
      }
      holder?.items?.push({
        kind: "call",
        tool: event.tool,
        time: event.time,
        status: "refused",
        refusal,
        ...(event.key ? { key: event.key } : {}),
        ...(event.destructive ? { destructive: true } : {}),
      });
      return;
    }
    case "model.turn":
      holder?.items?.push({
        kind: "turn",
        time: event.time,
        turn: event.turn,
        provider: event.provider,
        model: event.model,
        inputTokens: event.inputTokens,
        outputTokens: event.outputTokens,
        latencyMs: event.latencyMs,
        toolCalls: event.toolCalls,
        replayed: event.replayed === true,
        ...(event.text ? { text: event.text } : {}),
        ...(event.session ? { session: event.session } : {}),
        ...(event.costUsd !== undefined ? { costUsd: event.costUsd } : {}),
        ...(event.cacheReadTokens ? { cacheReadTokens: event.cacheReadTokens } : {}),
        ...(event.cacheWriteTokens ? { cacheWriteTokens: event.cacheWriteTokens } : {}),
        ...(event.costUnknown ? { costUnknown: true } : {}),
        ...(event.trimmedResults ? { trimmedResults: event.trimmedResults } : {}),
      });
      return;
    default:
      return;
  }
}
