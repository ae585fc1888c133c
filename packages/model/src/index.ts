export { AiSdkChatModel, languageModel, type ProviderSettings, toPrompt, toTools } from "./aiSdkModel.js";
export {
  Cassette,
  type CassetteTurn,
  RecordingChatModel,
  ReplayingChatModel,
  responseDigestOf,
} from "./Cassette.js";
export type { ChatMessage, ChatModel, ChatRequest, ChatTool, TextListener, TurnRef } from "./ChatModel.js";
export { apiKeyFor, createModelCatalog, type ModelCatalogOptions } from "./createModelCatalog.js";
export { KEY_VARIABLES, unusedKeyVariables } from "./keyVariables.js";
export { DEFAULT_BUDGETS, type ModelBudgets, ModelLoop, RequestDigest, requestDigest } from "./ModelLoop.js";
export { type OfferedTools, offeredTools, requestSize } from "./offeredTools.js";
export { FINISHING_SCHEMA, FINISHING_TOOLS, type FinishingTool, systemPrompt, taskMessage } from "./prompt.js";
