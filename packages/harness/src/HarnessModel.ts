import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type BudgetSpent,
  type HarnessReport,
  type ModelClaim,
  type ModelRef,
  type ModelRequestSize,
  type ModelStepIO,
  type ModelStopCode,
  type ModelTask,
  type RunSpent,
  type StepModel,
  type StepStatus,
  shorten,
  type ToolResult,
} from "@meshflow/core";
import {
  FINISHING_TOOLS,
  type FinishingTool,
  type ModelBudgets,
  offeredTools,
  requestSize,
  systemPrompt,
  taskMessage,
} from "@meshflow/model";
import type { HarnessAdapter, HarnessEvent } from "./HarnessAdapter.js";
import { HarnessProcess } from "./internal/HarnessProcess.js";
import { type GatheredTurn, TurnGatherer } from "./internal/TurnGatherer.js";
import { workingTreeDiff } from "./internal/workingTreeDiff.js";
import { StepServer } from "./StepServer.js";

/** How a {@link HarnessModel} starts its program. */
export interface HarnessModelOptions {
  adapter: HarnessAdapter;
  /** The program's path (see `findProgram`). */
  program: string;
  /** The model it thinks with (absent: its own default). */
  model?: ModelRef;
  baseUrl?: string;
  /** The key meshflow read for the model's provider, and the variable it came from. */
  apiKey?: { key: string; variable: string };
  /** The variables a refused key's message names. */
  keyVariables: readonly string[];
  budgets: ModelBudgets;
  /** `--harness-builtin-tools`. */
  builtinTools: boolean;
  /** The folder it works in (the project), unless the step names its own (`ModelStepIO.workDir`). */
  cwd: string;
  /** The environment it starts from (default `process.env`). */
  env?: NodeJS.ProcessEnv;
}

/**
 * The step server's answer to a program's permission prompts (Claude Code's `--permission-prompt-tool`
 * protocol: `{tool_name, input}` in, `{"behavior": "allow", "updatedInput"}` or `{"behavior": "deny",
 * "message"}` as the result's text).
 */
const PERMISSION_PROMPT = {
  name: "approve_own_tool",
  description:
    "meshflow's permission prompt for the program's own tools: meshflow's approvals decide (a call they ask about waits for flow approve; any other is allowed at once).",
  inputSchema: {
    type: "object",
    properties: { tool_name: { type: "string" }, input: { type: "object" }, tool_use_id: { type: "string" } },
    required: ["tool_name", "input"],
  },
  annotations: { readOnlyHint: true },
};

/** Asks the run's approvals about a permission prompt and answers in the program's protocol. */
async function permissionAnswer(
  program: string,
  args: Record<string, unknown>,
  approve: NonNullable<ModelStepIO["approveOwnTool"]>,
): Promise<ToolResult> {
  const tool = typeof args.tool_name === "string" ? args.tool_name : "unknown";
  const input =
    typeof args.input === "object" && args.input !== null && !Array.isArray(args.input)
      ? (args.input as Record<string, unknown>)
      : {};
  const verdict = await approve(program, tool, input);
  const answer = verdict.allow
    ? { behavior: "allow", updatedInput: input }
    : { behavior: "deny", message: verdict.reason };
  return { content: [{ type: "text", text: JSON.stringify(answer) }] };
}

const STATUS_OF: Record<FinishingTool, StepStatus> = {
  step_pass: "passed",
  step_fail: "failed",
  step_block: "blocked",
};

function isFinishing(name: string): name is FinishingTool {
  return Object.hasOwn(FINISHING_TOOLS, name);
}

/** What the program said it claims, through a finishing tool of the step server. */
interface Finish {
  name: FinishingTool;
  summary: string;
}

/**
 * A step worked by a coding-agent program: for the length of the step meshflow serves the step's
 * repertoire and the finishing tools from a {@link StepServer}, starts the program with that server as
 * its only tools, reads its turns from its event stream (each a `model.turn`, journaled), and turns
 * what it did into a claim the specialist's checks and the gate judge. Every tool call is the step's
 * `ctx.call`, keyed by its tool and arguments, so a resumed step asking again is answered from the
 * journal and a non-idempotent call never runs twice.
 */
export class HarnessModel implements StepModel {
  readonly name: string;
  readonly #options: HarnessModelOptions;

  constructor(options: HarnessModelOptions) {
    this.#options = options;
    this.name = options.model ? `${options.adapter.name}/${options.model.name}` : options.adapter.name;
  }

  size(task: ModelTask): ModelRequestSize {
    return requestSize(task, offeredTools(task).tools);
  }

  async run(task: ModelTask, io: ModelStepIO): Promise<ModelClaim> {
    const options = this.#options;
    const { adapter, budgets } = options;
    const spent = io.spent ?? { turns: 0, tokens: 0 };
    if (budgets.stepTimeoutMs > 0) spent.deadline ??= Date.now() + budgets.stepTimeoutMs;
    const usage: { inputTokens: number; outputTokens: number; turns: number; costUsd?: number } = {
      inputTokens: 0,
      outputTokens: 0,
      turns: 0,
    };
    const calls: ModelClaim["calls"] = [];
    const report: HarnessReport = { name: adapter.name, builtinTools: options.builtinTools };
    const claim = (status: StepStatus, summary: string, extra: Partial<ModelClaim> = {}): ModelClaim => ({
      status,
      summary,
      usage: { ...usage },
      calls,
      harness: report,
      ...extra,
    });
    const stop = (status: StepStatus, code: ModelStopCode, summary: string) =>
      claim(status, `${code}: ${summary}`, { code });

    // Turns an earlier attempt journaled: reported again, counted, their calls answered again from the
    // journal (the step's evidence holds them; the program, continuing its session, will not ask
    // again), and their session continued.
    let turn = 0;
    for (;;) {
      const recorded = await io.turns.get(turn + 1);
      if (!recorded) break;
      turn += 1;
      if (recorded.session) report.session = recorded.session;
      this.#count(usage, spent, recorded.response.usage);
      for (const call of recorded.response.toolCalls) {
        const result = await io.call(call.name, call.input, { byContent: true, again: true });
        calls.push({
          tool: call.name,
          isError: result.isError === true,
          ...(result.code ? { code: result.code } : {}),
        });
      }
      io.onTurn({
        turn,
        provider: adapter.name,
        model: options.model?.modelId ?? "default",
        inputTokens: recorded.response.usage.inputTokens,
        outputTokens: recorded.response.usage.outputTokens,
        latencyMs: recorded.latencyMs,
        toolCalls: recorded.response.toolCalls.map((c) => c.name),
        replayed: true,
        ...(recorded.response.text ? { text: shorten(recorded.response.text) } : {}),
        ...(recorded.session ? { session: recorded.session } : {}),
      });
    }
    if (io.signal.aborted) return stop("blocked", "aborted", "the run is stopping");
    const overBudget = this.#overBudget(spent, 0, io.runSpent);
    if (overBudget) return stop("blocked", "budget_exhausted", overBudget);

    // The story's own worktree when stories are isolated, else the project: where the program starts,
    // where its own tools write, and where its changes are read.
    const cwd = io.workDir ?? options.cwd;
    const offered = offeredTools(task);
    const { qualified } = offered;
    // Its own tools on and the run asking for approvals: its permission prompts are meshflow's.
    const approveOwn = options.builtinTools ? io.approveOwnTool : undefined;
    const tools = approveOwn ? [...offered.tools, PERMISSION_PROMPT] : offered.tools;
    let finish: Finish | undefined;
    /** The calls asked for since the last journaled turn: journaled with the next one. */
    const asked: Array<{ id: string; name: string; input: Record<string, unknown> }> = [];
    const server = await StepServer.start(tools, async (name, args): Promise<ToolResult> => {
      if (isFinishing(name)) {
        if (finish)
          return { isError: true, content: [{ type: "text", text: `the step was already finished (${finish.name})` }] };
        const summary = typeof args.summary === "string" ? args.summary.trim() : "";
        finish = { name, summary: summary || `${name} (no summary)` };
        return {
          content: [{ type: "text", text: `recorded: ${name}. meshflow checks this claim; end your work now.` }],
        };
      }
      if (approveOwn && name === PERMISSION_PROMPT.name) return permissionAnswer(adapter.name, args, approveOwn);
      const tool = qualified.get(name) ?? name;
      asked.push({ id: String(asked.length + 1), name: tool, input: args });
      const result = await io.call(tool, args, { byContent: true });
      calls.push({ tool, isError: result.isError === true, ...(result.code ? { code: result.code } : {}) });
      return result;
    });
    const configDir = mkdtempSync(join(tmpdir(), "meshflow-harness-"));
    let stopped: { code: ModelStopCode; summary: string } | undefined;
    let result: Extract<HarnessEvent, { type: "result" }> | undefined;
    let records = Promise.resolve();
    let recordFailure: unknown;
    try {
      const command = adapter.command({
        program: options.program,
        server: server.address,
        ...(options.model ? { model: options.model } : {}),
        ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
        ...(options.apiKey ? { apiKey: options.apiKey.key } : {}),
        ...(report.session ? { session: report.session } : {}),
        configDir,
        builtinTools: options.builtinTools,
        ...(approveOwn ? { permissionPromptTool: PERMISSION_PROMPT.name } : {}),
      });
      for (const [file, content] of Object.entries(command.files ?? {}))
        writeFileSync(join(configDir, file), content, { mode: 0o600, flag: "wx" });
      const env: NodeJS.ProcessEnv = { ...(options.env ?? process.env), ...command.env };
      for (const name of command.unset ?? []) delete env[name];

      let proc: HarnessProcess | undefined;
      const halt = (code: ModelStopCode, summary: string) => {
        stopped ??= { code, summary };
        proc?.stop();
      };
      let costSoFar = 0;
      // The text of the turn being gathered (the next one), as the program's stream tells it.
      const textOfNextTurn = io.onText && ((delta: string, text: string) => io.onText?.(turn + 1, delta, text));
      const gatherer = new TurnGatherer((gathered: GatheredTurn) => {
        turn += 1;
        const latencyMs = Math.round(performance.now() - gathered.startedAt);
        this.#count(usage, spent, gathered);
        if (gathered.costUsd !== undefined) {
          costSoFar += gathered.costUsd;
          usage.costUsd = (usage.costUsd ?? 0) + gathered.costUsd;
          // What the harness spent counts toward --max-step-cost and --max-run-cost as a model's turns do.
          spent.costUsd = (spent.costUsd ?? 0) + gathered.costUsd;
          if (io.runSpent) io.runSpent.costUsd += gathered.costUsd;
        }
        io.onTurn({
          turn,
          provider: adapter.name,
          model: options.model?.modelId ?? "default",
          inputTokens: gathered.inputTokens,
          outputTokens: gathered.outputTokens,
          latencyMs,
          toolCalls: gathered.toolCalls,
          replayed: false,
          ...(gathered.text.trim() ? { text: shorten(gathered.text) } : {}),
          ...(report.session ? { session: report.session } : {}),
          ...(gathered.costUsd !== undefined ? { costUsd: gathered.costUsd } : {}),
        });
        const recorded = {
          model: this.name,
          requestDigest: `harness:${adapter.name}`,
          response: {
            text: gathered.text,
            toolCalls: asked.splice(0),
            usage: { inputTokens: gathered.inputTokens, outputTokens: gathered.outputTokens },
            finishReason: "harness",
          },
          latencyMs,
          ...(report.session ? { session: report.session } : {}),
        };
        const number = turn;
        // Journaled in order; a failure is kept and thrown once the program has ended.
        records = records
          .then(() => io.turns.record(number, recorded))
          .catch((error: unknown) => {
            recordFailure ??= error;
          });
        // The program is stopped once it starts a turn past the budget, unless it has finished already.
        const over = this.#overBudget(spent, 1, io.runSpent);
        if (over && !finish) halt("budget_exhausted", over);
      }, textOfNextTurn);
      const onEvent = (event: HarnessEvent) => {
        if (event.type === "session") report.session = event.id;
        else if (event.type === "turn") gatherer.add(event);
        else if (event.type === "turn_end") gatherer.flush();
        else if (event.type === "auth_error")
          halt(
            "auth_failed",
            `${adapter.name}: ${event.message}; check ${this.#keyVariables()} (meshflow passes the key it reads for --model's provider)`,
          );
        else {
          result = event;
          if (event.costUsd !== undefined) {
            report.costUsd = event.costUsd;
            gatherer.flush(Math.max(0, event.costUsd - costSoFar));
          } else gatherer.flush();
        }
      };
      proc = new HarnessProcess(command.argv, {
        cwd,
        env,
        prompt: `${systemPrompt(task)}\n\n${taskMessage(task)}\n`,
        onLine: (line) => {
          for (const event of adapter.parse(line)) onEvent(event);
        },
      });
      const onAbort = () => halt("aborted", "the run is stopping");
      io.signal.addEventListener("abort", onAbort, { once: true });
      const timer =
        spent.deadline === undefined
          ? undefined
          : setTimeout(
              () => halt("budget_exhausted", `--step-timeout ${budgets.stepTimeoutMs} ms reached`),
              Math.max(1, spent.deadline - Date.now()),
            );
      const exit = await proc.exited;
      io.signal.removeEventListener("abort", onAbort);
      if (timer) clearTimeout(timer);
      gatherer.flush();
      await records;
      if (recordFailure !== undefined) throw recordFailure;
      if (options.builtinTools) {
        const diff = workingTreeDiff(cwd);
        if (diff !== undefined) report.diff = diff;
      }

      if (stopped) return stop("blocked", stopped.code, stopped.summary);
      if (exit.spawnError)
        return stop("failed", "harness_failed", `${adapter.name} could not start: ${exit.spawnError}`);
      if (exit.code !== 0) {
        const how = exit.code === null ? `was killed (${exit.signal})` : `exited with code ${exit.code}`;
        const tail = proc.stderrTail();
        const said = result?.isError && result.text ? `; it said: ${shorten(result.text, 500)}` : "";
        return stop(
          "failed",
          "harness_failed",
          `${adapter.name} ${how}${said}${tail.length ? `; last lines of its stderr:\n${tail.join("\n")}` : "; it wrote nothing to stderr"}`,
        );
      }
      const finished = finish as Finish | undefined;
      if (!finished)
        return stop(
          "blocked",
          "model_no_outcome",
          `${adapter.name} ended without calling step_pass, step_fail or step_block`,
        );
      return claim(STATUS_OF[finished.name], finished.summary, { finish: finished.name });
    } finally {
      await server.close();
      rmSync(configDir, { recursive: true, force: true });
    }
  }

  #count(
    usage: { inputTokens: number; outputTokens: number; turns: number },
    spent: { turns: number; tokens: number },
    turn: { inputTokens: number; outputTokens: number },
  ): void {
    usage.turns += 1;
    usage.inputTokens += turn.inputTokens;
    usage.outputTokens += turn.outputTokens;
    spent.turns += 1;
    spent.tokens += turn.inputTokens + turn.outputTokens;
  }

  /** Which budget the step has used up, or undefined. */
  #overBudget(spent: BudgetSpent, past = 0, run?: RunSpent): string | undefined {
    const { budgets } = this.#options;
    if (spent.turns >= budgets.maxTurns + past) return `--max-turns ${budgets.maxTurns} reached`;
    if (budgets.maxStepTokens > 0 && spent.tokens >= budgets.maxStepTokens)
      return `--max-step-tokens ${budgets.maxStepTokens} reached`;
    const usd = (n: number) => `$${n.toFixed(4)}`;
    if (budgets.maxStepCostUsd > 0 && (spent.costUsd ?? 0) >= budgets.maxStepCostUsd)
      return `--max-step-cost ${usd(budgets.maxStepCostUsd)} reached: the harness spent ${usd(spent.costUsd ?? 0)}`;
    if (budgets.maxRunCostUsd > 0 && run && run.costUsd >= budgets.maxRunCostUsd)
      return `--max-run-cost ${usd(budgets.maxRunCostUsd)} reached: the run's models spent ${usd(run.costUsd)}`;
    return undefined;
  }

  #keyVariables(): string {
    const variables = this.#options.apiKey ? [this.#options.apiKey.variable] : this.#options.keyVariables;
    return variables.join(" or ");
  }
}
