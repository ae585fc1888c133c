import {
  type BudgetSpent,
  type ErrorCode,
  type ModelCatalog,
  type ModelTextDelta,
  type ModelWait,
  type RunEvent,
  type RunSpent,
  type StepOutcome,
  stepKey,
  stepPurpose,
  type TokenCount,
  type ToolDescriptor,
} from "@meshflow/core";
import type { CallJournal, Executor } from "@meshflow/mcp";
import type { ApprovalGate } from "../approvals/ApprovalGate.js";
import type { ConfirmDestructive } from "../ConfirmDestructive.js";
import { Asking } from "../consult/Asking.js";
import { type ConsultFrame, type ConsultSink, eventSink } from "../consult/ConsultFrame.js";
import type { PlannedStory } from "../RunPlan.js";
import { type Specialist, type StepMemory, specialistInfo } from "../specialists/defineSpecialist.js";
import { defaultThink } from "../specialists/scriptedThenModel.js";
import { stepConfig } from "../specialists/specialistConfig.js";
import type { DiscoveryFailure, ToolPlane } from "../ToolPlane.js";
import { StepContext } from "./StepContext.js";
import { isOutcome, type PreparedStep, type StepResult } from "./StepResult.js";
import { stepModel } from "./stepModel.js";
import { type CallLog, type CallScope, GUARD_STOPS } from "./toolCall.js";

interface Prepared extends PreparedStep {
  stepServers: readonly string[];
  stepTools: readonly ToolDescriptor[];
  repertoire: readonly ToolDescriptor[];
  repertoireNames: ReadonlySet<string>;
  specialistDef?: Specialist;
}

export type { StepResult } from "./StepResult.js";

/** What a {@link StepRunner} needs. */
export interface StepRunnerDeps {
  runId: string;
  plane: ToolPlane;
  specialists: ReadonlyMap<string, Specialist>;
  journal: CallJournal;
  emit(event: RunEvent): void;
  log(entry: Record<string, unknown>): void;
  signal: AbortSignal;
  /** Asked before every call of a destructive tool (`--confirm-destructive`); absent: no question. */
  confirmDestructive?: ConfirmDestructive;
  /** The run's approvals: calls that need a person's decision wait for it. */
  approvals?: ApprovalGate;
  /** The run's models; a story with a model name (see `PlannedStory.model`) gets `ctx.model`. */
  models?: ModelCatalog;
  /** Told the models' text while their turns run (transient, never stored); absent, turns are not streamed. */
  onModelText?: (delta: ModelTextDelta) => void;
  /** Told when a model request waits before a retry (429, 529): transient, for a live view. */
  onModelWait?: (wait: ModelWait) => void;
  /** What the run's models have cost so far, shared by all its steps (`--max-run-cost`). */
  runSpent?: RunSpent;
  /** Where consultations are reported (default: their events, emitted). */
  consults?: ConsultSink;
  /** The PRD's folder: `ctx.prdDir`, what the stories' `verify` working directories are relative to. */
  prdDir?: string;
  /** The workspace a story works in, when stories are isolated: its folder, executor and PRD folder. */
  workspaceOf?: (storyId: string) => { dir: string; executor?: Executor; prdDir: string } | undefined;
  /** Told when the guard refuses a call (it locked): the run pauses (see `CallScope.onGuardStop`). */
  onGuardStop?: (code: ErrorCode, message: string) => void;
}

const ENVIRONMENT_CODES: ReadonlySet<string> = new Set(["server_unreachable", "server_crashed", "connect_timeout"]);

/** A specialist's tools for a step: its servers' tools, and what skills and enrichers leave of them. */
interface Repertoire {
  stepTools: readonly ToolDescriptor[];
  repertoire: readonly ToolDescriptor[];
  repertoireNames: ReadonlySet<string>;
}

/** Distinct (specialist, servers) repertoires kept; past this many the cache starts over. */
const REPERTOIRES_KEPT = 256;

/** Runs the steps of stories: routing, repertoire, think(), and the tool calls think() makes. */
export class StepRunner {
  readonly #deps: StepRunnerDeps;
  readonly #prepared = new Map<string, Prepared>();
  /** Repertoires by specialist and step servers (see {@link StepRunner.#repertoireOf}). */
  readonly #repertoires = new Map<string, Repertoire>();
  readonly #inFlight = new Set<Promise<unknown>>();
  #tools: readonly ToolDescriptor[] = [];
  #failures: ReadonlyMap<string, DiscoveryFailure> = new Map();

  constructor(deps: StepRunnerDeps) {
    this.#deps = deps;
  }

  /**
   * The tools the preflight discovered: every step's repertoire comes from these. A step naming one of
   * the `failures` (a server that could not be listed) is blocked with that server's error.
   */
  setTools(tools: readonly ToolDescriptor[], failures: readonly DiscoveryFailure[] = []): void {
    this.#tools = tools;
    this.#failures = new Map(failures.map((f) => [f.server, f]));
    this.#prepared.clear();
    this.#repertoires.clear();
  }

  /** Resolves when no tool call is in flight (after an abort, before the pool closes). */
  async drain(): Promise<void> {
    while (this.#inFlight.size) await Promise.allSettled([...this.#inFlight]);
  }

  /** Whether a specialist of that name is loaded. */
  knows(name: string): boolean {
    return this.#deps.specialists.has(name);
  }

  /** Forgets what was prepared for a story (it has concluded). */
  forget(planned: PlannedStory): void {
    for (let i = 0; i < planned.steps.length; i++) this.#prepared.delete(`${planned.id}#${i}`);
  }

  /** Routes a step and computes its repertoire (memoised until the story concludes). */
  prepare(planned: PlannedStory, stepIndex: number): Prepared {
    const id = `${planned.id}#${stepIndex}`;
    let prepared = this.#prepared.get(id);
    if (!prepared) {
      prepared = this.#prepare(planned, stepIndex, planned.specialists[stepIndex] ?? "");
      this.#prepared.set(id, prepared);
    }
    return prepared;
  }

  #prepare(planned: PlannedStory, stepIndex: number, name: string): Prepared {
    const step = planned.story.mavenSteps[stepIndex] ?? 0;
    const stepServers = planned.story.mcpTools[stepKey(step)] ?? [];
    const specialistDef = this.#deps.specialists.get(name);
    /** A step that cannot run: no tools, and why. */
    const blocked = (summary: string, environment: boolean): Prepared => ({
      specialist: name,
      tools: 0,
      stepServers,
      stepTools: [],
      repertoire: [],
      repertoireNames: new Set(),
      ...(specialistDef ? { specialistDef } : {}),
      blocked: { summary, environment },
    });
    if (!specialistDef) return blocked(`no specialist "${name}" is loaded`, false);
    const unusable = stepServers.flatMap((server) => this.#failures.get(server) ?? []);
    if (unusable.length)
      return blocked(
        unusable.map((f) => `MCP server "${f.server}" is unusable (${f.code}): ${f.message}`).join("; "),
        true,
      );
    const { stepTools, repertoire, repertoireNames } = this.#repertoireOf(name, specialistDef, stepServers);
    return {
      specialist: name,
      tools: repertoire.length,
      stepServers,
      stepTools,
      repertoire,
      repertoireNames,
      specialistDef,
    };
  }

  /**
   * A specialist's repertoire over some servers' tools. Skills and enrichers are pure functions of
   * the two, so the same pair (most steps of a big PRD) is computed once, not once per step.
   */
  #repertoireOf(name: string, specialistDef: Specialist, stepServers: readonly string[]): Repertoire {
    const key = `${name}\u0000${stepServers.join("\u0000")}`;
    let found = this.#repertoires.get(key);
    if (!found) {
      const stepTools = stepServers.length ? this.#tools.filter((t) => stepServers.includes(t.server)) : [];
      const repertoire = this.#deps.plane.repertoire(stepTools, specialistInfo(specialistDef));
      found = { stepTools, repertoire, repertoireNames: new Set(repertoire.map((t) => t.qualifiedName)) };
      if (this.#repertoires.size >= REPERTOIRES_KEPT) this.#repertoires.clear();
      this.#repertoires.set(key, found);
    }
    return found;
  }
  /** Runs one step's think() and returns its outcome; never throws. */
  think(planned: PlannedStory, stepIndex: number, memory: readonly StepMemory[]): Promise<StepResult> {
    return this.#run(planned, stepIndex, memory, this.prepare(planned, stepIndex), undefined);
  }

  /** Runs a consultation (see {@link consult}): the consulted specialist's think() on the same step; never throws. */
  runConsultation(
    planned: PlannedStory,
    stepIndex: number,
    memory: readonly StepMemory[],
    frame: ConsultFrame,
  ): Promise<StepResult> {
    const prepared = this.#prepare(planned, stepIndex, frame.specialist);
    this.#consults().started(frame);
    return this.#run(planned, stepIndex, memory, prepared, frame).then((result) => {
      this.#consults().done(frame, {
        status: result.status,
        summary: result.summary,
        calls: result.calls.length,
        ...(result.tokens ? { tokens: result.tokens } : {}),
      });
      return result;
    });
  }

  #consults(): ConsultSink {
    return this.#deps.consults ?? eventSink(this.#deps.runId, this.#deps.emit);
  }

  async #run(
    planned: PlannedStory,
    stepIndex: number,
    memory: readonly StepMemory[],
    prepared: Prepared,
    frame: ConsultFrame | undefined,
  ): Promise<StepResult> {
    const story = planned.story;
    const step = story.mavenSteps[stepIndex] ?? 0;
    const base = { step, specialist: prepared.specialist };
    if (prepared.blocked || !prepared.specialistDef)
      return {
        ...base,
        status: "blocked",
        summary: prepared.blocked?.summary ?? "no specialist",
        calls: [],
        evidence: [],
        environment: prepared.blocked?.environment === true,
      };
    const specialist = prepared.specialistDef;
    const settings = stepConfig(specialist, story);
    if (!settings.ok)
      return { ...base, status: "blocked", summary: `${story.id}: ${settings.message}`, calls: [], evidence: [] };
    const { runId, plane, journal, signal } = this.#deps;
    const workspace = this.#deps.workspaceOf?.(story.id);
    const prdDir = workspace?.prdDir ?? this.#deps.prdDir;
    const log: CallLog = { seq: 0, evidence: [], unknown: [], writes: [], produced: new WeakMap() };
    const scope: CallScope = {
      runId,
      storyId: story.id,
      step,
      specialist: specialist.name,
      stepServers: prepared.stepServers,
      stepTools: prepared.stepTools,
      repertoire: prepared.repertoire,
      repertoireNames: prepared.repertoireNames,
      plane,
      executor: workspace?.executor ?? plane.executor,
      journal,
      emit: this.#deps.emit,
      signal,
      ...(this.#deps.confirmDestructive ? { confirm: this.#deps.confirmDestructive } : {}),
      ...(this.#deps.approvals ? { approvals: this.#deps.approvals } : {}),
      ...(frame ? { consult: { id: frame.id, keyBase: frame.keyBase } } : {}),
      ...(this.#deps.onGuardStop ? { onGuardStop: this.#deps.onGuardStop } : {}),
    };
    // One model budget for the step and every consultation it asks for, whoever thinks first.
    const spent: BudgetSpent = frame?.spent ?? { turns: 0, tokens: 0 };
    const asking = new Asking(this, planned, stepIndex, memory, specialist, frame, log, spent);
    const tokens: TokenCount = { input: 0, output: 0, turns: 0 };
    let halt: string | undefined;
    const models = this.#deps.models;
    const harness = models?.harnessFor?.(planned.harness ?? {}, specialist.name);
    const model = models && (planned.model || harness) ? models.get(planned.model, harness) : undefined;
    const notes = (level: string) => (message: string, data?: Record<string, unknown>) =>
      this.#deps.log({ level, runId, storyId: story.id, step, specialist: specialist.name, message, ...data });
    const ctx = new StepContext({
      scope,
      log,
      story,
      specialist: specialistInfo(specialist),
      // The story's scripted calls are the step's specialist's, never a consulted one's.
      scripted: frame ? [] : (story.calls?.[stepKey(step)] ?? []),
      ...(prdDir !== undefined ? { prdDir } : {}),
      config: settings.config,
      memory,
      notes: { info: notes("info"), warn: notes("warn"), learn: notes("learning") },
      track: (pending) => {
        this.#inFlight.add(pending);
        void pending.finally(() => this.#inFlight.delete(pending));
      },
      consult: asking.consult,
      spent,
      ...(frame ? { consultation: asking.info(frame) } : {}),
      ...(model
        ? {
            model: (c: StepContext) =>
              stepModel(
                {
                  model,
                  scope,
                  specialist,
                  stepPurpose: stepPurpose(step),
                  memory,
                  tokens,
                  consults: asking.allowed(),
                  spent,
                  onHalt: (message) => {
                    halt ??= message;
                  },
                  ...(this.#deps.onModelText ? { onText: this.#deps.onModelText } : {}),
                  ...(this.#deps.onModelWait ? { onWait: this.#deps.onModelWait } : {}),
                  ...(this.#deps.runSpent ? { runSpent: this.#deps.runSpent } : {}),
                  ...(planned.prices ? { prices: planned.prices } : {}),
                  ...(frame ? { ask: frame.question } : {}),
                  ...(workspace ? { workDir: workspace.dir } : {}),
                },
                c,
              ),
          }
        : {}),
    });
    let result: StepOutcome;
    try {
      const returned: unknown = await (specialist.think ?? defaultThink)(ctx);
      result = isOutcome(returned)
        ? { ...returned, evidence: Array.isArray(returned.evidence) ? returned.evidence : [] }
        : { status: "failed", summary: `${specialist.name}.think() returned no valid StepOutcome`, evidence: [] };
    } catch (error) {
      result = {
        status: "failed",
        summary: `${specialist.name}.think() threw: ${(error as Error)?.message ?? error}`,
        evidence: [],
      };
    }
    if (log.unknown.length && result.status !== "blocked")
      result = {
        status: "blocked",
        summary: `outcome_unknown: ${log.unknown.join(", ")} (a person must check the server's state); think() said: ${result.summary}`,
        evidence: result.evidence,
      };
    if (halt !== undefined && result.status === "passed")
      result = { status: "blocked", summary: halt, evidence: result.evidence };
    // The guard locked (an emergency stop, or the rate limit that trips it) while the step worked: a
    // claim made after its calls were refused is not the step done.
    const stopped = log.evidence.find((c) => c.code !== undefined && GUARD_STOPS.has(c.code));
    if (stopped && result.status === "passed")
      result = {
        status: "blocked",
        summary: `${stopped.code}: the guard refused ${stopped.tool ?? stopped.name} while the step worked; think() said: ${result.summary}`,
        evidence: result.evidence,
      };
    const environment =
      halt !== undefined || log.evidence.some((c) => c.code !== undefined && ENVIRONMENT_CODES.has(c.code));
    return {
      ...base,
      status: result.status,
      summary: result.summary,
      calls: log.evidence,
      evidence: result.evidence,
      ...(environment ? { environment } : {}),
      ...(halt !== undefined ? { halt } : {}),
      ...(tokens.turns ? { tokens } : {}),
      ...(ctx.verifiedCommands.length ? { verified: ctx.verifiedCommands } : {}),
      ...(log.writes.length ? { writes: log.writes } : {}),
      ...(asking.records.length ? { consults: asking.records } : {}),
    };
  }
}
