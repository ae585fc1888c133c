export { AiSdkChatModel, type ProviderSettings } from "./aiSdkModel.js";
export {
  Cassette,
  type CassetteTurn,
  RecordingChatModel,
  ReplayingChatModel,
} from "./Cassette.js";
export type {
  ChatMessage,
  ChatModel,
  ChatRequest,
  ChatTool,
  TextListener,
  TurnRef,
  WaitListener,
} from "./ChatModel.js";
export { apiKeyFor, createModelCatalog, type ModelCatalogOptions } from "./createModelCatalog.js";
export {
  /** @public for programs that build a harness catalog themselves (harness README) */
  DEFAULT_BUDGETS,
  type ModelBudgets,
} from "./ModelBudgets.js";
export { ModelLoop } from "./ModelLoop.js";
export { type OfferedTools, offeredTools, requestSize } from "./offeredTools.js";
export { FINISHING_TOOLS, type FinishingTool, systemPrompt, taskMessage } from "./prompt.js";
