// `@meshflow/core/providers`: the model providers as named parts, without the rest of core (no zod),
// so the CLI's help texts can name them without loading core for every `flow --help`.

export type { AiSdkPackage, BaseUrlRule, ModelProviderPart } from "./model/providers/ModelProviderPart.js";
export {
  MODEL_HELP,
  type ModelProvider,
} from "./model/providers/modelProviders.js";
