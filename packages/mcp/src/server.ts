// `@meshflow/mcp/server`: the building blocks of an MCP server that serves toolsets (the gateway of
// `flow serve`): sessions, toolsets, served tools, the server-side call chain.

export { BoundedStdioServerTransport } from "./server/BoundedStdioServerTransport.js";
export {
  CLIENT_MODES,
  type ClientHello,
  type ClientMode,
  type ClientProfile,
  clientNameMatches,
  type DetectedClient,
  type DetectOptions,
  detectClient,
  KNOWN_CLIENTS,
  type ModeSource,
  parseClientMode,
} from "./server/clientMode.js";
export { createServerChain, type LocalHandler, type ServerChainOptions } from "./server/createServerChain.js";
export { exposedToolName, MAX_TOOL_NAME_LENGTH } from "./server/exposedToolName.js";
export { confirmationTokenTool, discoveryTools } from "./server/metaTools.js";
export {
  defineLocalTool,
  type EnableOutcome,
  jsonResult,
  type LocalToolDefinition,
  type LocalToolHandler,
  proxiedTool,
  type RequiredHints,
  type ServedTool,
  type SessionView,
} from "./server/ServedTool.js";
export { type InstructionsInput, serverInstructions } from "./server/serverInstructions.js";
export {
  ALL_TOOLSETS,
  assertToolsetNames,
  checkToolsetNames,
  loadToolsetConfig,
  parseToolsetConfig,
  type ToolsetConfig,
  ToolsetConfigSchema,
} from "./server/ToolsetConfig.js";
export {
  CORE_TOOLSET,
  DEFAULT_MAX_TOOLS,
  DISCOVERY_TOOLSET,
  type ToolSearchHit,
  type Toolset,
  ToolsetRegistry,
  type ToolsetSelection,
} from "./server/ToolsetRegistry.js";
export {
  type OpenedSession,
  ToolsetServer,
  type ToolsetServerEvent,
  type ToolsetServerOptions,
} from "./server/ToolsetServer.js";
export {
  CODE_META_KEY,
  CONFIRMATION_TOKEN_ARG,
  TOOLSET_META_KEY,
  ToolsetSession,
  type ToolsetSessionOptions,
  toCallToolResult,
} from "./server/ToolsetSession.js";
export {
  type DescriptionTier,
  type DescriptionTiers,
  hintsSentence,
  MINIMAL_DESCRIPTION_MAX,
  minimalDescription,
  proxiedDescriptions,
} from "./server/toolDescriptions.js";
