export { AiSdkChatModel, languageModel, type ProviderSettings, toPrompt, toTools } from "./aiSdkModel.js";
export { Cassette, type CassetteTurn, RecordingChatModel, ReplayingChatModel } from "./Cassette.js";
export type { ChatMessage, ChatModel, ChatRequest, ChatTool, TurnRef } from "./ChatModel.js";
export { apiKeyFor, createModelCatalog, type ModelCatalogOptions } from "./createModelCatalog.js";
export { safeToolNames } from "./internal/toolNames.js";
export { KEY_VARIABLES, unusedKeyVariables } from "./keyVariables.js";
export { DEFAULT_BUDGETS, type ModelBudgets, ModelLoop, RequestDigest, requestDigest } from "./ModelLoop.js";
export { FINISHING_SCHEMA, FINISHING_TOOLS, type FinishingTool, systemPrompt, taskMessage } from "./prompt.js";
