import { eventTime, MeshflowError, type RunEvent, type RunSpent, toMeshflowError } from "@meshflow/core";
import { ApprovalGate } from "../approvals/ApprovalGate.js";
import { asksForApproval } from "../approvals/ApprovalPolicy.js";
import type { ConsultSink } from "../consult/ConsultFrame.js";
import { StepRunner } from "../internal/StepRunner.js";
import type { RunDependencies, RunPause } from "../RunDependencies.js";
import type { PlannedStory, RunPlan } from "../RunPlan.js";
import type { RunHandle } from "../store/RunStore.js";
import { AbortRace } from "./AbortRace.js";
import { costSoFar } from "./costSoFar.js";
import { Outbox } from "./Outbox.js";
import { PassMarks, type Unmarked } from "./PassMarks.js";

/**
 * What one run session holds while it runs: its store handle, plan and step runner (known once the
 * preflight has passed, or at once on resume), the PRD's pass marks, warnings, the abort signal.
 */
export class SessionState {
  readonly deps: RunDependencies;
  readonly runId: string;
  readonly controller = new AbortController();
  /** The run's work raced against its abort signal. */
  readonly aborts = new AbortRace(this.controller.signal);
  /** Problems that did not change outcomes but need a person. */
  readonly warnings: string[] = [];
  handle: RunHandle | undefined;
  plan: RunPlan | undefined;
  runner: StepRunner | undefined;
  /** Why the preflight refused the run. */
  preflightError: MeshflowError | undefined;
  /** Where consultations are reported: the run's machine (set once it exists). */
  consults: ConsultSink | undefined;
  #marks: PassMarks | undefined;
  /** Passed stories whose marks the PRD did not hold when the run ended (set by {@link settle}). */
  unmarked: Unmarked | undefined;
  /** What paused the run (its guard locked), when something did: the run stops, resumable. */
  paused: RunPause | undefined;
  /** The specialist a merge conflict of an isolated story goes to (`--resolve-conflicts`), if any. */
  resolveConflicts: string | undefined;
  /** The run's approvals, when any call may need one (`--approve`, the rules). */
  approvals: ApprovalGate | undefined;
  /** What the run's models have cost (`--max-run-cost`): a resumed run's earlier steps included. */
  readonly runSpent: RunSpent = { costUsd: 0 };

  constructor(deps: RunDependencies, runId: string) {
    this.deps = deps;
    this.runId = runId;
    this.outbox = new Outbox(() => this.handle, deps.onEvent, {
      emitted: deps.onEmitted,
      before: () => this.#flushHooks(),
    });
  }

  /** Where the run's events go out: to its store at once, to the caller's listener once written. */
  readonly outbox: Outbox;

  /** Records an event in the run's store and passes it on to the caller's listener. */
  readonly emit = (event: RunEvent): void => this.outbox.post(event);

  /** Writes what the story hooks hold back; a failure is a warning, like the hooks' own failures. */
  #flushHooks(): void {
    try {
      this.deps.hooks?.flush?.();
    } catch (error) {
      this.warnings.push(`the PRD workflow could not write its progress: ${toMeshflowError(error).message}`);
    }
  }

  /** Opens the run: its store handle and plan are known, so its steps can run. */
  begin(handle: RunHandle, plan: RunPlan): StepRunner {
    this.handle = handle;
    this.plan = plan;
    const { deps } = this;
    this.#countEarlierCost(handle);
    const asked = deps.approvals;
    if (asked && asksForApproval(asked.policy)) {
      const { plane } = deps;
      this.approvals = new ApprovalGate({
        policy: asked.policy,
        book: handle.approvals,
        emit: this.emit,
        ...(plane.mask ? { mask: (text: string) => plane.mask?.(text) ?? text } : {}),
        ...(plane.capabilities ? { capabilities: (name: string) => plane.capabilities?.(name) ?? [] } : {}),
        ...(asked.waitMs !== undefined ? { waitMs: asked.waitMs } : {}),
      });
    }
    this.runner = new StepRunner({
      runId: handle.runId,
      plane: deps.plane,
      specialists: deps.specialists,
      journal: handle.journal,
      emit: this.emit,
      log: (entry) => {
        handle.log(entry);
        deps.hooks?.onLog?.(entry);
      },
      signal: this.controller.signal,
      prdDir: plan.prdDir,
      ...(deps.workspaces ? { workspaceOf: (id: string) => deps.workspaces?.of(id) } : {}),
      ...(deps.confirmDestructive ? { confirmDestructive: deps.confirmDestructive } : {}),
      ...(this.approvals ? { approvals: this.approvals } : {}),
      ...(deps.models ? { models: deps.models } : {}),
      ...(deps.onModelText ? { onModelText: deps.onModelText } : {}),
      ...(deps.onModelWait ? { onModelWait: deps.onModelWait } : {}),
      runSpent: this.runSpent,
      consults: {
        started: (frame) => this.consults?.started(frame),
        done: (frame, end) => this.consults?.done(frame, end),
      },
      onGuardStop: (code, reason) => this.pause(code === "guard_locked" ? code : "rate_limit_exceeded", reason),
    });
    return this.runner;
  }

  /**
   * Pauses the run because its guard locked (`guard_locked`, `rate_limit_exceeded`) or every story in
   * flight waits for a person's approval (`approval_required`): as a Ctrl-C does,
   * nothing new starts and calls in flight finish; the steps the lock interrupted are not concluded, so
   * no story fails because of it and a resume runs them again. The first reason is kept.
   */
  pause(code: RunPause["code"], reason: string, pending?: RunPause["pending"]): void {
    this.paused ??= { code, reason, ...(pending ? { pending } : {}) };
    this.controller.abort();
  }

  /**
   * Adds what a resumed run's models spent before it stopped: the events recorded before now (a new
   * run has none). Read in the background; the cost is a sum, so steps that start meanwhile lose nothing.
   */
  #countEarlierCost(handle: RunHandle): void {
    const now = eventTime();
    handle
      .events()
      .then((events) => {
        this.runSpent.costUsd += costSoFar(events.filter((e) => e.time < now));
      })
      .catch((error: unknown) => {
        this.warnings.push(`the cost of the run's earlier steps is not known: ${toMeshflowError(error).message}`);
      });
  }

  requireHandle(): RunHandle {
    if (!this.handle) throw new MeshflowError("internal", "the run has no store");
    return this.handle;
  }

  requirePlan(): RunPlan {
    if (!this.plan) throw new MeshflowError("internal", "the run has no plan yet");
    return this.plan;
  }

  requireRunner(): StepRunner {
    if (!this.runner) throw new MeshflowError("internal", "the run has not started");
    return this.runner;
  }

  /** The planned story at a position of the plan. */
  storyOf(index: number): PlannedStory {
    const planned = this.requirePlan().stories[index];
    if (!planned) throw new MeshflowError("internal", `no story at position ${index}`);
    return planned;
  }

  /** The PRD's pass marks (only the completion gate marks stories, through these). */
  marks(): PassMarks {
    const plan = this.requirePlan();
    this.#marks ??= new PassMarks(plan.prdFile, plan.prdDir, this.requireHandle(), plan.source);
    return this.#marks;
  }

  /** Waits for calls in flight, writes the marks still queued and checks they all landed. */
  async settle(): Promise<void> {
    await this.runner?.drain();
    this.unmarked = this.#marks?.close();
    this.plan?.close();
  }
}
