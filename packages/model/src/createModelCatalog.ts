import {
  chooseModel,
  MeshflowError,
  type ModelCatalog,
  type ModelProvider,
  type ModelRef,
  modelProviderPart,
  overridePrices,
  type PriceTable,
  parseModelName,
  readPriceFile,
  type StepModel,
  type Story,
  shippedPrices,
} from "@meshflow/core";
import { AiSdkChatModel } from "./aiSdkModel.js";
import { Cassette, RecordingChatModel, ReplayingChatModel } from "./Cassette.js";
import type { ChatModel } from "./ChatModel.js";
import { unusedKeyVariables } from "./keyVariables.js";
import type { ModelBudgets } from "./ModelBudgets.js";
import { ModelLoop } from "./ModelLoop.js";
import { baseUrlProblem, endpointOf } from "./providers/baseUrlProblem.js";

/** How a run's models are built: the command's flags and the environment. */
export interface ModelCatalogOptions {
  /** `--model`: overrides every story's and the PRD's model. */
  model?: string;
  /** `--model-base-url` / `FLOW_MODEL_BASE_URL`: the endpoint for any provider. */
  baseUrl?: string;
  /** Where keys and `FLOW_MODEL` are read (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  budgets?: Partial<ModelBudgets>;
  /** `--record <cassette>`: every live turn is written to this file. */
  record?: string;
  /** With `record`: keep the file's turns and add to them (a resumed run). */
  appendRecording?: boolean;
  /** `--replay <cassette>`: every turn is answered from this file (no key, no network). */
  replay?: string;
  /** Time a reachability probe of a model endpoint may take (ms, default 10,000). */
  probeTimeoutMs?: number;
  /**
   * Told once per provider when a key variable is set but not sent (`OPENAI_API_KEY` with an
   * `openai-compatible` model, which sends only `FLOW_MODEL_API_KEY`); default: nobody is told.
   */
  warn?: (message: string) => void;
  /** Retries of a failed model request (default 2). */
  maxRetries?: number;
  /** Longest wait a provider's `Retry-After` may ask for, in ms (`--max-retry-wait`, default 60,000). */
  maxRetryWaitMs?: number;
  /** `--prices <file>`: a price file over the shipped table (`prices_invalid` when it is not one). */
  prices?: string;
}

/** The price table of a run: the shipped one, with `--prices <file>` over it. */
function priceTable(file: string | undefined): PriceTable {
  if (!file) return shippedPrices();
  const read = readPriceFile(file);
  return overridePrices(shippedPrices(), read.models, file, read.date);
}

/** The API key of a provider from the environment, and the variable it came from. */
export function apiKeyFor(
  provider: ModelProvider,
  env: Readonly<Record<string, string | undefined>>,
): { key: string; variable: string } | undefined {
  for (const variable of modelProviderPart(provider).keyVariables) {
    const key = env[variable];
    if (key) return { key, variable };
  }
  return undefined;
}

/** Checks that an endpoint answers HTTP at all (any status); `model_unavailable` naming the URL when it does not. */
async function probe(name: string, baseUrl: string, timeoutMs: number): Promise<void> {
  const url = `${baseUrl.replace(/\/+$/, "")}/models`;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await response.body?.cancel();
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (error as Error).message;
    throw new MeshflowError("model_unavailable", `${name}: the model endpoint ${baseUrl} cannot be reached (${why})`, {
      details: { url: baseUrl },
    });
  }
}

/**
 * The models of a run: which model each story uses (`--model`, the story's `model`, the PRD's,
 * `FLOW_MODEL`), each a {@link ModelLoop} over an AI SDK provider, a recording or a cassette.
 */
export function createModelCatalog(options: ModelCatalogOptions = {}): ModelCatalog {
  const env = options.env ?? process.env;
  const fallback = env.FLOW_MODEL || undefined;
  const baseUrl = options.baseUrl || env.FLOW_MODEL_BASE_URL || undefined;
  if (options.model) parseModelName(options.model, "--model");
  if (fallback) parseModelName(fallback, "FLOW_MODEL");
  const replay = options.replay ? Cassette.load(options.replay) : undefined;
  const prices = priceTable(options.prices);
  let recording: Cassette | undefined;
  const models = new Map<string, StepModel>();

  const warned = new Set<ModelProvider>();
  // Said at the preflight's check when there is one, else when the model is first built.
  const warnUnused = (provider: ModelProvider): void => {
    if (!options.warn || warned.has(provider)) return;
    warned.add(provider);
    for (const message of unusedKeyVariables(provider, env)) options.warn(message);
  };
  const live = (ref: ModelRef): ChatModel => {
    const key = apiKeyFor(ref.provider, env);
    warnUnused(ref.provider);
    return new AiSdkChatModel(ref, {
      ...(baseUrl ? { baseUrl } : {}),
      ...(key ? { apiKey: key.key } : {}),
      ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
      ...(options.maxRetryWaitMs !== undefined ? { maxRetryWaitMs: options.maxRetryWaitMs } : {}),
    });
  };

  return {
    nameFor(story: Pick<Story, "id" | "model">, prdModel: string | undefined): string | undefined {
      const chosen = chooseModel({ override: options.model, story: story.model, prd: prdModel, fallback });
      return chosen ?? replay?.modelOf(story.id);
    },
    get(name: string | undefined): StepModel {
      if (name === undefined) throw new MeshflowError("internal", "a step's model was asked for without a model name");
      let model = models.get(name);
      if (!model) {
        const ref = parseModelName(name);
        let chat: ChatModel;
        if (replay) chat = new ReplayingChatModel(name, replay);
        else if (options.record) {
          recording ??= Cassette.openForRecording(options.record, options.appendRecording === true);
          chat = new RecordingChatModel(live(ref), recording);
        } else chat = live(ref);
        model = new ModelLoop(chat, options.budgets, prices);
        models.set(name, model);
      }
      return model;
    },
    async check(names: readonly string[]): Promise<void> {
      if (replay) return;
      const probed = new Set<string>();
      for (const name of new Set(names)) {
        const ref = parseModelName(name);
        const part = modelProviderPart(ref.provider);
        warnUnused(ref.provider);
        if (part.keyRequired && !apiKeyFor(ref.provider, env))
          throw new MeshflowError(
            "model_unavailable",
            `${name} needs an API key: set ${part.keyVariables.slice().reverse().join(" or ")} (or replay a recording with --replay <cassette>)`,
            { details: { variables: part.keyVariables } },
          );
        const problem = baseUrlProblem(name, part, baseUrl);
        if (problem) throw new MeshflowError("model_unavailable", problem);
        const url = endpointOf(part, baseUrl);
        if (!url) continue;
        if (probed.has(url)) continue;
        probed.add(url);
        await probe(name, url, options.probeTimeoutMs ?? 10_000);
      }
    },
  };
}
