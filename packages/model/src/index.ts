export { AiSdkChatModel, languageModel, type ProviderSettings, toPrompt, toTools } from "./aiSdkModel.js";
export {
  Cassette,
  type CassetteTurn,
  RecordingChatModel,
  ReplayingChatModel,
  responseDigestOf,
} from "./Cassette.js";
export type { ChatMessage, ChatModel, ChatRequest, ChatTool, TurnRef } from "./ChatModel.js";
export {
  apiKeyFor,
  createModelCatalog,
  KEY_VARIABLES,
  type ModelCatalogOptions,
} from "./createModelCatalog.js";
export { DEFAULT_BUDGETS, type ModelBudgets, ModelLoop, RequestDigest, requestDigest } from "./ModelLoop.js";
export { FINISHING_TOOLS, type FinishingTool, systemPrompt, taskMessage } from "./prompt.js";
