export {
  type ErrorCode,
  isMeshflowError,
  MeshflowError,
  toMeshflowError,
} from "./errors/MeshflowError.js";
export { acquireFileLock, type LockAttempt, type LockHolder } from "./fs/FileLock.js";
export {
  appendOwnFile,
  ensureOwnDir,
  openOwnFileForAppend,
} from "./fs/ownFile.js";
export { packageFile } from "./fs/packageFile.js";
export { processAlive } from "./fs/processAlive.js";
export { isInside, projectRoot } from "./fs/projectRoot.js";
export { userCacheDir } from "./fs/userCacheDir.js";
export {
  type ContentWriter,
  type WriteFileAtomicOptions,
  writeFileAtomic,
} from "./fs/writeFileAtomic.js";
export { checkRepoLocation, type RepoLocation } from "./git/checkRepoLocation.js";
export { canonicalJson, digestOf, sha256Hex } from "./json/canonicalJson.js";
export {
  checkJsonLimits,
  type JsonLimitProblem,
  MAX_ARGUMENT_DEPTH,
} from "./json/checkJsonLimits.js";
export { formatJsonPath } from "./json/jsonPath.js";
export { type JsonParseResult, parseJsonText, type TextPosition } from "./json/parseJsonText.js";
export type { ExpandResult } from "./mcpConfig/expandEnv.js";
export {
  type LoadMcpConfigOptions,
  loadMcpConfig,
  type McpConfig,
  type McpConfigSource,
  redactServerConfig,
} from "./mcpConfig/loadMcpConfig.js";
export type {
  HttpServerConfig,
  McpServerConfig,
  StdioServerConfig,
} from "./mcpConfig/McpConfigSchema.js";
export {
  configSecrets,
  describeEndpoint,
  scrubText,
  scrubValue,
  secretValues,
} from "./mcpConfig/secretValues.js";
export { chooseHarness, type HarnessChoice } from "./model/HarnessName.js";
export {
  chooseModel,
  type ModelChoice,
  type ModelRef,
  parseModelName,
} from "./model/ModelName.js";
export type { ModelTextDelta } from "./model/ModelTextDelta.js";
export type { ModelWait } from "./model/ModelWait.js";
export type { ModelPrice, PriceFile } from "./model/prices/ModelPrice.js";
export {
  overridePrices,
  type PriceTable,
  priceOf,
  readPriceFile,
  shippedPrices,
} from "./model/prices/PriceTable.js";
export { type TurnTokens, turnCost } from "./model/prices/turnCost.js";
export type { AiSdkPackage, BaseUrlRule, ModelProviderPart } from "./model/providers/ModelProviderPart.js";
export {
  MODEL_HELP,
  MODEL_PROVIDER_PARTS,
  MODEL_PROVIDERS,
  type ModelProvider,
  modelProviderPart,
} from "./model/providers/modelProviders.js";
export type {
  BudgetSpent,
  EarlierStep,
  HarnessReport,
  ModelCatalog,
  ModelClaim,
  ModelRequestSize,
  ModelResponse,
  ModelStepIO,
  ModelStopCode,
  ModelTask,
  ModelToolCall,
  ModelTurnReport,
  ModelUsage,
  RecalledLearning,
  RecalledStory,
  RecordedTurn,
  RunSpent,
  StepCallOptions,
  StepModel,
  TurnJournal,
} from "./model/StepModel.js";
export { stepPurpose } from "./model/stepPurpose.js";
export {
  type Plan,
  type PlanContext,
  type PlanStep,
  type PlanStory,
  planPrd,
  StoryPlanner,
} from "./plan/planPrd.js";
export { type LoadedPrd, loadPrdFile, type PrdScan, scanPrdFile } from "./prd/file/loadPrdFile.js";
export { type FolderPrd, isPrdFileName, isPrdFolder, listPrdFolder } from "./prd/file/PrdFolder.js";
export type { PrdLimits } from "./prd/file/prdLimits.js";
export { type PrdRead, type PrdReadOptions, type PrdSource, readPrdSync } from "./prd/file/readPrd.js";
export { type OutlineStory, outlineRunOrder, type PrdOutline, readPrdOutline } from "./prd/file/readPrdOutline.js";
export { prdDigest } from "./prd/file/replacePrd.js";
export type { StoryEdit } from "./prd/file/storyText.js";
export { type PrdWriteCache, type StoriesWritten, writePrdStories } from "./prd/file/writePrdStories.js";
export {
  MAX_STEP,
  MIN_STEP,
  type Prd,
  PrdSchema,
  type ScriptedCall,
  StepNumberSchema,
  type Story,
  StorySchema,
  stepKey,
  type VerifyCommand,
} from "./prd/PrdSchema.js";
export { PRD_SCHEMA_PATH, prdJsonSchemaText } from "./prd/prdJsonSchema.js";
export { type IndexedStory, storiesInRunOrder } from "./prd/runOrder.js";
export { type PrdHead, type PrdValidation, type PrdValidationContext, validatePrd } from "./prd/validatePrd.js";
export { formatProblem, hasErrors, type Problem } from "./problems/Problem.js";
export { OutputBuffer } from "./process/OutputBuffer.js";
export { pauseSync } from "./process/pauseSync.js";

export {
  type ProcessOutcome,
  type RunProcessOptions,
  runProcess,
  type StreamTail,
} from "./process/runProcess.js";
export {
  loadRoutingTable,
  type RoutingTable,
  routedSpecialists,
} from "./routing/RoutingTable.js";
export { eventLine } from "./run/eventLine.js";
export { eventTime } from "./run/eventTime.js";
export {
  addTokens,
  type EventBase,
  type RunEvent,
  type RunEventType,
  sumTokens,
  type TokenCount,
  turnTokens,
} from "./run/RunEvent.js";
export { isRunId } from "./run/runId.js";
export type { ContentBlock, StepOutcome, StepStatus, ToolCall, ToolResult } from "./run/types.js";
export {
  BoundedLineSplitter,
  type LineHandlers,
  maxMessageBytes,
  type OversizedLine,
} from "./stream/BoundedLineSplitter.js";
export { shorten } from "./text/shorten.js";
export { stripAnsi, stripAnsiDeep } from "./text/stripAnsi.js";
export { didYouMean, suggest } from "./text/suggest.js";
export { ALLOW_META_KEY, allowlistAllows, statedAllowlist } from "./tools/statedAllowlist.js";
export {
  parseQualifiedName,
  qualifyToolName,
  type ToolAnnotations,
  type ToolDescriptor,
} from "./tools/ToolDescriptor.js";
export {
  UNIVERSAL_TOOL_KINDS,
  UniversalTool,
  type UniversalToolKind,
  UniversalToolSchema,
} from "./tools/UniversalTool.js";
export { parseYaml } from "./yaml/parseYaml.js";
