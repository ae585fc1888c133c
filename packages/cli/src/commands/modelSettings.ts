import { resolve } from "node:path";
import type { ModelCatalog } from "@meshflow/core";
import type { ModelSettings } from "@meshflow/runtime/host";

/** The model flags of a command, as commander parses them. */
export interface ModelFlags {
  model?: string;
  modelBaseUrl?: string;
  maxTurns?: number;
  maxStepTokens?: number;
  stepTimeout?: number;
  maxResultChars?: number;
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
    maxTurns: flags.maxTurns ?? 30,
    maxStepTokens: flags.maxStepTokens ?? 0,
    stepTimeoutMs: flags.stepTimeout ?? 600_000,
    maxResultChars: flags.maxResultChars ?? 20_000,
    ...(flags.record ? { record: resolve(flags.record) } : {}),
    ...(flags.replay ? { replay: resolve(flags.replay) } : {}),
  };
}

/**
 * The run's models from its settings. `@meshflow/model` (the AI SDK and its providers) is loaded only
 * here, so commands that run no model never load it. `resumed`: a recording goes on in the same cassette.
 */
export async function buildModels(settings: ModelSettings, resumed = false): Promise<ModelCatalog> {
  const { createModelCatalog } = await import("@meshflow/model");
  return createModelCatalog({
    ...(settings.model ? { model: settings.model } : {}),
    ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
    budgets: {
      maxTurns: settings.maxTurns,
      maxStepTokens: settings.maxStepTokens,
      stepTimeoutMs: settings.stepTimeoutMs,
      maxResultChars: settings.maxResultChars,
    },
    ...(settings.record ? { record: settings.record, appendRecording: resumed } : {}),
    ...(settings.replay ? { replay: settings.replay } : {}),
  });
}

/**
 * The models of runs that may each name their own `--model` (a queued job, a `flow_run_prd` call):
 * the command's settings with that model on top, one catalog per model name.
 */
export function catalogsByModel(flags: ModelFlags): (model: string | undefined) => Promise<ModelCatalog> {
  const catalogs = new Map<string, Promise<ModelCatalog>>();
  return (model) => {
    const key = model ?? "";
    let catalog = catalogs.get(key);
    if (!catalog) {
      catalog = buildModels(modelSettings({ ...flags, ...(model ? { model } : {}) }));
      catalogs.set(key, catalog);
      // A bad name is refused for that run only; the next one may try again.
      catalog.catch(() => catalogs.delete(key));
    }
    return catalog;
  };
}
