import {
  checkJsonLimits,
  digestOf,
  type ErrorCode,
  eventTime,
  parseQualifiedName,
  type RunEvent,
  type StepCallOptions,
  type ToolDescriptor,
  type ToolResult,
  toMeshflowError,
} from "@meshflow/core";
import type { CallJournal, Executor } from "@meshflow/mcp";
import type { ApprovalGate } from "../approvals/ApprovalGate.js";
import type { CallEvidence } from "../CallEvidence.js";
import type { ConfirmDestructive } from "../ConfirmDestructive.js";
import type { ToolPlane } from "../ToolPlane.js";
import { insertBySeq } from "./insertBySeq.js";

/** Result codes that mean "not run, refused" rather than "ran and failed". */
const REFUSALS: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "guard_locked",
  "rate_limit_exceeded",
  "not_in_repertoire",
  "confirmation_required",
  "confirmation_invalid",
  "confirmation_declined",
  "approval_required",
  "approval_denied",
  "invalid_arguments",
  "tool_not_found",
  "tool_ambiguous",
  "outcome_unknown",
  "aborted",
]);

/**
 * Refusals of a locked guard (an emergency stop, the rate limit that trips it): the call never reached
 * its server, so it may run again whatever its annotations say, and the run pauses (see
 * {@link CallScope.onGuardStop}).
 */
export const GUARD_STOPS: ReadonlySet<ErrorCode> = new Set<ErrorCode>(["guard_locked", "rate_limit_exceeded"]);

const guardStopped = (result: ToolResult | undefined): boolean =>
  result?.isError === true && result.code !== undefined && GUARD_STOPS.has(result.code);

/**
 * Failures that say nothing about the tool, only that its server died or did not answer in time
 * (a Ctrl-C that reached the servers, a crash): a resume runs a safe call that ended so again.
 */
const TRANSIENT: ReadonlySet<ErrorCode> = new Set<ErrorCode>(["server_crashed", "call_timeout"]);

/** Everything one step's calls share. */
export interface CallScope {
  runId: string;
  storyId: string;
  step: number;
  specialist: string;
  stepServers: readonly string[];
  stepTools: readonly ToolDescriptor[];
  repertoire: readonly ToolDescriptor[];
  repertoireNames: ReadonlySet<string>;
  plane: ToolPlane;
  executor: Executor;
  journal: CallJournal;
  emit(event: RunEvent): void;
  signal: AbortSignal;
  confirm?: ConfirmDestructive;
  /** The run's approvals (`--approve`, the rules): a call that needs one waits for a person's decision. */
  approvals?: ApprovalGate;
  /**
   * Set for a consultation (`ctx.consult`): its id, on its events, and the part of its calls' keys
   * after the story (`step7/security-agent.1`), so they never collide with the step's own.
   */
  consult?: { id: string; keyBase: string };
  /**
   * Told, before the refused call's result goes back to its specialist, that the guard refused a call
   * (it locked): the run stops starting work (it pauses, resumable) rather than fail the step.
   */
  onGuardStop?: (code: ErrorCode, message: string) => void;
}

/** The state of one step's calls: sequence numbers, evidence, unknown outcomes. */
export interface CallLog {
  seq: number;
  evidence: CallEvidence[];
  /** Calls whose outcome is unknown: the step must end blocked. */
  unknown: string[];
  /**
   * The calls that may have written (a successful call of a tool without `readOnlyHint`): each one's
   * sequence number and the highest sequence number started when it ended.
   */
  writes: CallWrite[];
  /** The results this step's calls returned, by identity: what `ctx.verified` accepts as proof. */
  produced?: WeakMap<ToolResult, ProducedCall>;
  /** Calls keyed by content (`byContent`) so far, by the digest of their name and arguments. */
  asked?: Map<string, number>;
  /** The same count for calls of an earlier attempt answered again (`again`). */
  answeredAgain?: Map<string, number>;
  /** The sequence number of each entry of `evidence` (kept in call order: see {@link insertBySeq}). */
  evidenceSeqs?: number[];
}

/** A call that may have written: started as call `seq`, ended when calls up to `endedAt` had started. */
export interface CallWrite {
  seq: number;
  endedAt: number;
}

/** A call as the runtime made it, for a result it returned. */
export interface ProducedCall {
  seq: number;
  key: string;
  tool: string;
  args: Record<string, unknown>;
}

/**
 * The place of a call keyed by its content: the digest of its name and arguments and how many such
 * calls the step made before (`c.<digest>.<n>`), the same in every attempt that asks the same. Calls
 * answered `again` (an earlier attempt's) are counted apart, so this attempt's own start from 1 too.
 */
function contentPlace(log: CallLog, name: string, args: Record<string, unknown>, again: boolean): string {
  const digest = digestOf({ name, args })
    .replace(/^sha256:/, "")
    .slice(0, 16);
  const kept = again ? "answeredAgain" : "asked";
  const counts = log[kept] ?? new Map<string, number>();
  log[kept] = counts;
  const n = (counts.get(digest) ?? 0) + 1;
  counts.set(digest, n);
  return `c.${digest}.${n}`;
}

/** The text of a result's content. */
const resultText = (result: ToolResult): string =>
  result.content.map((b) => (typeof b.text === "string" ? b.text : "")).join(" ");

function refusal(code: ErrorCode, message: string): ToolResult {
  return { isError: true, code, content: [{ type: "text", text: message }] };
}

/**
 * One `ctx.call(name, args)`: resolve → repertoire check → journal (replay a finished key, refuse a
 * started non-idempotent one) → executor. Never throws; every refusal is a `tool.refused` event.
 */
export async function callTool(
  scope: CallScope,
  log: CallLog,
  name: string,
  args: Record<string, unknown>,
  options: StepCallOptions = {},
): Promise<ToolResult> {
  const { runId, storyId, step } = scope;
  log.seq += 1;
  const seq = log.seq;
  const seqs = log.evidenceSeqs ?? [];
  log.evidenceSeqs = seqs;
  // Before anything walks the arguments (the digest, schema validation): one nested thousands deep
  // would overflow the stack.
  const tooBig = checkJsonLimits(args);
  const place = options.byContent && !tooBig ? contentPlace(log, name, args, options.again === true) : String(seq);
  const placed = `${runId}/${storyId}/${scope.consult ? scope.consult.keyBase : `step${step}`}/${place}`;
  let key = placed;
  const base = scope.consult ? { runId, storyId, step, consult: scope.consult.id, key } : { runId, storyId, step, key };
  if (tooBig) {
    const message = `${name}: arguments at ${tooBig.path}: ${tooBig.message}; not called`;
    scope.emit({ type: "tool.refused", time: eventTime(), ...base, tool: name, code: "invalid_arguments", message });
    insertBySeq(log.evidence, seqs, seq, {
      key,
      name,
      tool: name,
      argsDigest: "none (arguments over the limits)",
      isError: true,
      code: "invalid_arguments",
    });
    return refusal("invalid_arguments", message);
  }
  const argsDigest = digestOf(args);
  const refuse = (code: ErrorCode, message: string, tool = name, destructive?: boolean): ToolResult => {
    const mark = destructive === undefined ? {} : { destructive };
    scope.emit({ type: "tool.refused", time: eventTime(), ...base, tool, code, message, ...mark });
    insertBySeq(log.evidence, seqs, seq, {
      key,
      name,
      tool,
      argsDigest,
      isError: true,
      code,
      ...mark,
    });
    return refusal(code, message);
  };

  if (scope.signal.aborted) return refuse("aborted", `${name}: the run is stopping; not called`);

  let tool: ToolDescriptor | undefined;
  try {
    const resolution = scope.plane.resolve(name, scope.stepTools, scope.specialist);
    tool = scope.stepTools.find((t) => t.qualifiedName === resolution.qualifiedName);
  } catch (error) {
    const failure = toMeshflowError(error, "tool_not_found");
    const parsed = parseQualifiedName(name);
    if (
      failure.code === "tool_not_found" &&
      parsed &&
      !scope.stepServers.includes(parsed.server) &&
      scope.plane.servers().includes(parsed.server)
    ) {
      return refuse(
        "not_in_repertoire",
        `${name}: server "${parsed.server}" is not one of step ${step}'s servers (${scope.stepServers.join(", ") || "none"})`,
      );
    }
    return refuse(failure.code, failure.message);
  }
  if (!tool) return refuse("tool_not_found", `${name}: resolved to a tool the step's servers do not list`);
  const qualified = tool.qualifiedName;
  if (!scope.repertoireNames.has(qualified))
    return refuse(
      "not_in_repertoire",
      `${qualified} is not in ${scope.specialist}'s repertoire for step ${step} (its skills or enrichers leave it out)`,
      qualified,
    );

  const destructive = tool.annotations.destructiveHint === true;
  const readOnly = tool.annotations.readOnlyHint === true;
  /** Reports a call's result, live or replayed from the journal: its event and its evidence record. */
  const conclude = (result: ToolResult, durationMs: number, replayed: boolean): ToolResult => {
    // An unknown outcome (a queue worker died mid-call, live or as recorded) blocks the step, whatever
    // the specialist makes of the result.
    if (result.code === "outcome_unknown") log.unknown.push(key);
    const resultDigest = digestOf(result);
    if (!replayed && result.isError && result.code && REFUSALS.has(result.code)) {
      const text = resultText(result);
      scope.emit({
        type: "tool.refused",
        time: eventTime(),
        ...base,
        tool: qualified,
        code: result.code,
        message: text,
      });
    } else {
      scope.emit({
        type: "tool.result",
        time: eventTime(),
        ...base,
        tool: qualified,
        isError: result.isError === true,
        resultDigest,
        durationMs,
        ...(replayed ? { replayed: true } : {}),
      });
    }
    insertBySeq(log.evidence, seqs, seq, {
      key,
      name,
      tool: qualified,
      argsDigest,
      resultDigest,
      isError: result.isError === true,
      ...(result.code ? { code: result.code } : {}),
      destructive,
      ...(replayed ? { replayed: true } : {}),
    });
    // Any call started before this write ended may have seen the workspace before or after it.
    if (!result.isError && !readOnly) log.writes.push({ seq, endedAt: log.seq });
    log.produced?.set(result, { seq, key, tool: qualified, args });
    return result;
  };
  let entry = await scope.journal.get(key);
  // A call a locked guard refused never reached its server: an attempt after the pause runs it under a
  // key of its own (`<key>~1`, `~2`…), the refusal staying journaled under the one before.
  for (let retry = 1; entry?.state === "finished" && guardStopped(entry.result); retry++) {
    key = `${placed}~${retry}`;
    base.key = key;
    entry = await scope.journal.get(key);
  }
  // Read-only and idempotent calls may run twice: one that ended with a transient failure runs
  // again instead of replaying the failure.
  const safe = tool.annotations.idempotentHint === true || tool.annotations.readOnlyHint === true;
  const transient = entry?.result?.isError === true && TRANSIENT.has(entry.result.code ?? "internal");
  if (entry?.state === "finished" && entry.result && !(safe && transient)) {
    if (entry.tool !== qualified || entry.argsDigest !== argsDigest) {
      log.unknown.push(key);
      return refuse(
        "outcome_unknown",
        `${key} was ${entry.tool} (${entry.argsDigest}) in an earlier attempt, now ${qualified} (${argsDigest}): the specialist is not deterministic, so the earlier result cannot be replayed`,
        qualified,
      );
    }
    return conclude(entry.result, entry.durationMs ?? 0, true);
  }
  if (entry?.state === "started") {
    if (!safe) {
      log.unknown.push(key);
      return refuse(
        "outcome_unknown",
        `${qualified} (${key}, args ${argsDigest}) was started by an earlier attempt that did not record its result; ` +
          "the tool is neither idempotent nor read-only, so it is not run again: check the server's state, then start a new run",
        qualified,
      );
    }
  }

  if (scope.approvals) {
    const { specialist } = scope;
    const consult = scope.consult ? { consult: scope.consult.id } : {};
    const verdict = await scope.approvals.check(
      { runId, key, storyId, step, ...consult, specialist, tool, args, argsDigest },
      scope.signal,
    );
    if (!verdict.allow)
      return refuse(verdict.code, `${qualified} was not run: ${verdict.reason}`, qualified, destructive);
    if (scope.signal.aborted) return refuse("aborted", `${qualified}: the run is stopping; not called`, qualified);
  }

  if (destructive && scope.confirm) {
    const { specialist } = scope;
    const decision = await scope.confirm({ runId, storyId, step, specialist, tool: qualified, args, key });
    if (!decision.allow)
      return refuse(decision.code, `${qualified} is destructive and was not run: ${decision.reason}`, qualified, true);
    if (scope.signal.aborted)
      return refuse("aborted", `${qualified}: the run is stopping; not called`, qualified, true);
  }

  // A safe call is journaled once, with its result: a crash before that runs it again, which it allows.
  const once = safe && scope.journal.record !== undefined;
  if (!once) await scope.journal.begin({ key, tool: qualified, argsDigest });
  scope.emit({ type: "tool.called", time: eventTime(), ...base, tool: qualified, argsDigest, destructive });
  const start = performance.now();
  const result = await scope.executor.submit(
    { key, tool: qualified, args, runId, storyId, step },
    { repertoire: scope.repertoireNames, runId, storyId, step, annotationAware: true },
  );
  const durationMs = Math.round(performance.now() - start);
  if (once) await scope.journal.record?.({ key, tool: qualified, argsDigest }, result, durationMs);
  else await scope.journal.finish(key, result, durationMs);
  if (guardStopped(result) && result.code) scope.onGuardStop?.(result.code, resultText(result));
  return conclude(result, durationMs, false);
}
