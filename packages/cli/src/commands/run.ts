import { isPrdFolder, MeshflowError } from "@meshflow/core";
import { dryRun, type ModelSettings, markRun, type RunParts, resumeRun } from "@meshflow/runtime/host";
import { EXIT, type ExitCode } from "../exitCodes.js";
import { coded, type Output, printJson } from "../output.js";
import { tuneV8ForRun } from "../runV8Flags.js";
import { processTracing } from "../tracing.js";
import { approvalDeps } from "./approvalSettings.js";
import { printMarks } from "./mark.js";
import { type CassetteFlags, type ModelFlags, modelSettings } from "./modelSettings.js";
import { prdServers } from "./prdServers.js";
import {
  confirmation,
  drive,
  printFailure,
  printSummaryTable,
  type RunFlags,
  report,
  viewFor,
  viewListeners,
  withEnvironment,
} from "./runDriver.js";
import type { EnvironmentOptions } from "./runEnvironment.js";
import { type RunCommandOptions, resumedHooks, resumedWorkspaces, runPrds } from "./runPrds.js";

async function dryRunCommand(file: string, options: RunCommandOptions, parts: RunParts, output: Output) {
  const result = await dryRun(parts, { prdFile: file, stories: options.story });
  for (const warning of result.warnings) output.err(`flow: warning: ${warning}`);
  if (options.json) printJson(output, result);
  else {
    for (const story of result.stories) {
      output.out(`${story.id}${story.skipped ? "  — skipped: passes is true" : ""}`);
      for (const step of story.steps) {
        const plan =
          step.plan === "code"
            ? step.calls.length
              ? "think() of its own, with the story's scripted calls"
              : "think() of its own; the story declares no calls for this step (see the specialist's README for what it does without them)"
            : step.plan === "scripted"
              ? "scripted calls"
              : step.plan === "model"
                ? `${step.calls.length ? "the story's scripted calls, then " : ""}${step.harness ? `the harness ${step.harness.name}` : "the model"}`
                : `BLOCKED: ${step.blocked ?? "no plan, no calls, no model"}`;
        output.out(
          `  step ${step.step} → ${step.specialist} (${step.tools} tools from ${step.servers.join(", ") || "no servers"}): ${plan}`,
        );
        if (step.model)
          output.out(
            `    model ${step.model.name}: first request ${step.model.promptBytes} bytes of prompt + ${step.model.toolBytes} bytes of ${step.model.tools} tool definitions`,
          );
        if (step.harness) output.out(`    harness ${step.harness.name} is served: ${step.harness.tools.join(", ")}`);
        for (const call of step.calls)
          output.out(
            call.refused
              ? `    ✗ ${call.name}: ${coded(call.refused.code, call.refused.message)}`
              : `    ✓ ${call.name} → ${call.tool} (${call.tier})${call.warnings?.length ? ` warning: ${call.warnings.join("; ")}` : ""}`,
          );
      }
    }
    output.out(`dry run: nothing was called; ${result.refusals} call(s) would be refused`);
  }
  const blocked = result.stories.some((s) => !s.skipped && s.steps.some((st) => st.plan === "blocked"));
  // As a run would: a server that could not be listed blocks its steps, an environment failure.
  if (result.failures.length) return EXIT.environment;
  return result.refusals || blocked ? EXIT.failure : EXIT.ok;
}

/** `flow run <prd.json | folder>`: runs a PRD (or a folder of them); exit 0 when every selected story passed. */
export async function runCommand(
  given: string | undefined,
  options: RunCommandOptions,
  output: Output,
): Promise<ExitCode> {
  try {
    // A folder, flags of the PRD workflow, or a re-run: one or more PRDs, each with its progress and memory.
    if (!options.dryRun) return await runPrds(given, options, output);
    if (!given || isPrdFolder(given))
      throw new MeshflowError("usage", "--dry-run takes one PRD file (not a folder, not --rerun-failed)");
    const models = modelSettings(options);
    return await withEnvironment({ ...options, models }, ({ parts }) => dryRunCommand(given, options, parts, output));
  } catch (error) {
    return printFailure(error, options, output);
  }
}

/**
 * `flow resume <runId>`: continues an interrupted run with the environment it was started with; of a
 * finished run whose marks did not all land in its PRD, writes them (as `flow mark` does).
 * `given` names the options set on this command line (they override what the run recorded).
 */
export async function resumeCommand(
  runId: string,
  options: RunFlags,
  output: Output,
  given: (option: keyof (ModelFlags & CassetteFlags)) => boolean = () => true,
): Promise<ExitCode> {
  try {
    const { FileRunStore } = await import("@meshflow/runtime/host");
    const { record } = await new FileRunStore(options.store).read(runId);
    // A finished run whose marks did not all land in its PRD: resuming it writes them (`flow mark`).
    if ((record.status === "passed" || record.status === "failed") && record.unmarked?.length)
      return printMarks(await markRun(new FileRunStore(options.store), runId), options, output);
    const env: EnvironmentOptions = {
      store: options.store,
      executor: options.executor,
      redis: options.redis,
      redisPrefix: options.redisPrefix,
      mcpConfig: options.mcpConfig ?? record.options.mcpConfig,
      routing: options.routing ?? record.options.routing,
      agents: options.agents ?? record.options.agents,
      skills: options.skills ?? record.options.skills,
      builtin: options.agents === undefined && options.skills === undefined && record.options.builtin === true,
      models: resumedModels(record.options.models, options, given),
      resumed: true,
      callsPerMinute: options.callsPerMinute ?? record.options.callsPerMinute,
      warm: prdServers(record.prd, record.options.stories),
    };
    return await withEnvironment(env, async (command) => {
      tuneV8ForRun();
      const { parts, env: built } = command;
      const view = viewFor(options, output);
      const hooks = await resumedHooks(record, command, options, output);
      const workspaces = await resumedWorkspaces(record, command);
      const trace = (await processTracing())?.runSink();
      const session = await resumeRun(
        {
          ...parts,
          hooks,
          ...(workspaces ? { workspaces } : {}),
          ...viewListeners(view),
          ...(trace ? { onEmitted: trace } : {}),
          ...confirmation(options, view),
          ...approvalDeps(record.options.approvals, options.waitForApproval),
        },
        runId,
      );
      const summary = await drive(session, view, output, (id) => built.store.stopRequestFile(id));
      if (!options.json) await printSummaryTable(summary, built.store, output);
      return report(summary, options, output);
    });
  } catch (error) {
    return printFailure(error, options, output);
  }
}

/** The model settings of a resumed run: what it recorded, with the options given now on top. */
function resumedModels(
  recorded: ModelSettings | undefined,
  options: RunFlags,
  given: (option: keyof (ModelFlags & CassetteFlags)) => boolean,
): ModelSettings {
  const now = modelSettings(options);
  if (!recorded) return now;
  const pick = <K extends keyof ModelSettings>(
    key: K,
    flag: keyof (ModelFlags & CassetteFlags),
  ): Partial<ModelSettings> => {
    const value = given(flag) && options[flag] !== undefined ? now[key] : recorded[key];
    return value === undefined ? {} : { [key]: value };
  };
  return {
    ...now,
    ...pick("model", "model"),
    ...pick("baseUrl", "modelBaseUrl"),
    ...pick("maxTurns", "maxTurns"),
    ...pick("maxStepTokens", "maxStepTokens"),
    ...pick("stepTimeoutMs", "stepTimeout"),
    ...pick("maxResultChars", "maxResultChars"),
    ...pick("maxStepCostUsd", "maxStepCost"),
    ...pick("maxRunCostUsd", "maxRunCost"),
    ...pick("contextWindow", "contextWindow"),
    ...pick("contextShare", "contextShare"),
    ...pick("maxRetryWaitMs", "maxRetryWait"),
    ...pick("parallelReads", "parallelReads"),
    ...pick("prices", "prices"),
    ...pick("record", "record"),
    ...pick("replay", "replay"),
    ...pick("harness", "harness"),
    ...pick("harnessBuiltinTools", "harnessBuiltinTools"),
  } as ModelSettings;
}
