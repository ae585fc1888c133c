import { z } from "zod";
import { MeshflowError } from "../errors/MeshflowError.js";
import { MODEL_HELP, MODEL_PROVIDERS, type ModelProvider } from "./providers/modelProviders.js";

// Provider names are letters, digits and dashes, so they go into the pattern as they are.
const MODEL_NAME = new RegExp(`^(${MODEL_PROVIDERS.join("|")}):\\S+$`);

/** A model named `<provider>:<model-id>`, e.g. `anthropic:claude-sonnet-4-5` or `openai-compatible:llama3.1`. */
export const ModelNameSchema = z
  .string()
  .regex(MODEL_NAME, `a model is named <provider>:<model-id> with provider ${MODEL_HELP.names}`)
  .describe(`The model that thinks for this story's steps, \`<provider>:<model-id>\` (${MODEL_HELP.names}).`);

/** A parsed model name. */
export interface ModelRef {
  provider: ModelProvider;
  modelId: string;
  /** The name as written. */
  name: string;
}

/** Parses `<provider>:<model-id>`; throws `usage` naming where the name came from. */
export function parseModelName(name: string, where = "model"): ModelRef {
  if (!MODEL_NAME.test(name)) {
    throw new MeshflowError(
      "usage",
      `${where}: "${name}" is not a model name; expected <provider>:<model-id> with provider ${MODEL_HELP.names} (e.g. ${MODEL_HELP.examples})`,
    );
  }
  const at = name.indexOf(":");
  return { provider: name.slice(0, at) as ModelProvider, modelId: name.slice(at + 1), name };
}

/** Where a story's model comes from, first match wins. */
export interface ModelChoice {
  /** `--model` of the command. */
  override?: string;
  /** The story's `model` field. */
  story?: string;
  /** The PRD's top-level `model` field. */
  prd?: string;
  /** `FLOW_MODEL`. */
  fallback?: string;
}

/** The model of a story: `--model`, else the story's `model`, else the PRD's, else `FLOW_MODEL`. */
export function chooseModel(choice: ModelChoice): string | undefined {
  return choice.override || choice.story || choice.prd || choice.fallback || undefined;
}
