// `@meshflow/mcp/server`: the building blocks of an MCP server that serves toolsets (the gateway of
// `flow serve`): sessions, toolsets, served tools, the server-side call chain.

export { BoundedStdioServerTransport } from "./server/BoundedStdioServerTransport.js";
export {
  type ClientHello,
  type ClientMode,
  type ClientProfile,
  type DetectedClient,
  type DetectOptions,
  type ModeSource,
  parseClientMode,
} from "./server/clientMode.js";
export type { LocalHandler, ServerChainOptions } from "./server/createServerChain.js";

export { confirmationTokenTool } from "./server/metaTools.js";
export {
  defineLocalTool,
  type EnableOutcome,
  jsonResult,
  type LocalToolDefinition,
  type LocalToolHandler,
  type RequiredHints,
  type ServedTool,
  type SessionView,
} from "./server/ServedTool.js";
export type { InstructionsInput } from "./server/serverInstructions.js";
export {
  assertToolsetNames,
  loadToolsetConfig,
  type ToolsetConfig,
} from "./server/ToolsetConfig.js";
export {
  CORE_TOOLSET,
  type ToolSearchHit,
  type Toolset,
  type ToolsetSelection,
} from "./server/ToolsetRegistry.js";
export {
  type OpenedSession,
  ToolsetServer,
  type ToolsetServerEvent,
  type ToolsetServerOptions,
} from "./server/ToolsetServer.js";
export type { ToolsetSessionOptions } from "./server/ToolsetSession.js";
export type {
  DescriptionTier,
  DescriptionTiers,
} from "./server/toolDescriptions.js";
