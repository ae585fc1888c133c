import { resolve } from "node:path";
import type { ModelCatalog } from "@meshflow/core";
import type { ModelSettings, RunThinking } from "@meshflow/runtime/host";

/** The model flags of a command, as commander parses them. */
export interface ModelFlags {
  model?: string;
  modelBaseUrl?: string;
  harness?: string;
  harnessBuiltinTools?: boolean;
  maxTurns?: number;
  maxStepTokens?: number;
  stepTimeout?: number;
  maxResultChars?: number;
  prices?: string;
  maxStepCost?: number;
  maxRunCost?: number;
  contextWindow?: number;
  contextShare?: number;
  maxRetryWait?: number;
  parallelReads?: number;
}

/** `--record` / `--replay` (run and resume). */
export interface CassetteFlags {
  record?: string;
  replay?: string;
}

/** The settings of a run from its flags (cassette paths made absolute, so a resume finds them). */
export function modelSettings(flags: ModelFlags & CassetteFlags): ModelSettings {
  return {
    ...(flags.model ? { model: flags.model } : {}),
    ...(flags.modelBaseUrl ? { baseUrl: flags.modelBaseUrl } : {}),
    ...(flags.harness ? { harness: flags.harness } : {}),
    ...(flags.harnessBuiltinTools ? { harnessBuiltinTools: true } : {}),
    maxTurns: flags.maxTurns ?? 30,
    maxStepTokens: flags.maxStepTokens ?? 0,
    stepTimeoutMs: flags.stepTimeout ?? 600_000,
    maxResultChars: flags.maxResultChars ?? 20_000,
    maxStepCostUsd: flags.maxStepCost ?? 0,
    maxRunCostUsd: flags.maxRunCost ?? 0,
    contextWindow: flags.contextWindow ?? 0,
    contextShare: flags.contextShare ?? 0.75,
    maxRetryWaitMs: flags.maxRetryWait ?? 60_000,
    parallelReads: flags.parallelReads ?? 8,
    ...(flags.prices ? { prices: resolve(flags.prices) } : {}),
    ...(flags.record ? { record: resolve(flags.record) } : {}),
    ...(flags.replay ? { replay: resolve(flags.replay) } : {}),
  };
}

/** The fields of `values` that are set (a run recorded before a setting existed has it absent). */
function definedOf<T extends Record<string, number | undefined>>(values: T): { [K in keyof T]?: number } {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: number };
}

/** Warnings already printed: a worker or `flow serve` builds a catalog per model and says each once. */
const warned = new Set<string>();

function warnOnce(message: string): void {
  if (warned.has(message)) return;
  warned.add(message);
  process.stderr.write(`warning: ${message}\n`);
}

/**
 * The run's models from its settings. `@meshflow/model` (the AI SDK and its providers) is loaded only
 * here, so commands that run no model never load it. `resumed`: a recording goes on in the same cassette.
 */
export async function buildModels(settings: ModelSettings, resumed = false): Promise<ModelCatalog> {
  const [{ createModelCatalog, DEFAULT_BUDGETS }, { withHarnesses }] = await Promise.all([
    import("@meshflow/model"),
    import("@meshflow/harness"),
  ]);
  const budgets = {
    ...DEFAULT_BUDGETS,
    maxTurns: settings.maxTurns,
    maxStepTokens: settings.maxStepTokens,
    stepTimeoutMs: settings.stepTimeoutMs,
    maxResultChars: settings.maxResultChars,
    ...definedOf({
      maxStepCostUsd: settings.maxStepCostUsd,
      maxRunCostUsd: settings.maxRunCostUsd,
      contextWindow: settings.contextWindow,
      contextShare: settings.contextShare,
      parallelReads: settings.parallelReads,
    }),
  };
  const models = createModelCatalog({
    warn: warnOnce,
    ...(settings.prices ? { prices: settings.prices } : {}),
    ...(settings.maxRetryWaitMs !== undefined ? { maxRetryWaitMs: settings.maxRetryWaitMs } : {}),
    ...(settings.model ? { model: settings.model } : {}),
    ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
    budgets,
    ...(settings.record ? { record: settings.record, appendRecording: resumed } : {}),
    ...(settings.replay ? { replay: settings.replay } : {}),
  });
  return withHarnesses(models, {
    ...(settings.harness ? { harness: settings.harness } : {}),
    ...(settings.harnessBuiltinTools ? { builtinTools: true } : {}),
    ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
    budgets,
  });
}

/**
 * The models of runs that may each name their own `--model` and `--harness` (a queued job, a
 * `flow_run_prd` call): the command's settings with those on top, one catalog per pair.
 */
export function catalogsByModel(flags: ModelFlags): (choice: RunThinking | undefined) => Promise<ModelCatalog> {
  const catalogs = new Map<string, Promise<ModelCatalog>>();
  return (choice) => {
    const model = choice?.model;
    const harness = choice?.harness;
    const key = `${model ?? ""}\u0000${harness ?? ""}`;
    let catalog = catalogs.get(key);
    if (!catalog) {
      catalog = buildModels(modelSettings({ ...flags, ...(model ? { model } : {}), ...(harness ? { harness } : {}) }));
      catalogs.set(key, catalog);
      // A bad name is refused for that run only; the next one may try again.
      catalog.catch(() => catalogs.delete(key));
    }
    return catalog;
  };
}
