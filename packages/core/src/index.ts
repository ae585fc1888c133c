export {
  ERROR_CODES,
  type ErrorCode,
  isMeshflowError,
  MeshflowError,
  toMeshflowError,
} from "./errors/MeshflowError.js";
export { acquireFileLock, type LockAttempt, type LockHolder } from "./fs/FileLock.js";
export {
  appendOwnFile,
  ensureOwnDir,
  OWN_DIR_MODE,
  OWN_FILE_MODE,
  openOwnFileForAppend,
} from "./fs/ownFile.js";
export { packageFile } from "./fs/packageFile.js";
export { processAlive } from "./fs/processAlive.js";
export { isInside, projectRoot } from "./fs/projectRoot.js";
export { userCacheDir } from "./fs/userCacheDir.js";
export {
  type ContentWriter,
  removeStaleTempFiles,
  type WriteFileAtomicOptions,
  writeFileAtomic,
} from "./fs/writeFileAtomic.js";
export { checkRepoLocation, type RepoLocation } from "./git/checkRepoLocation.js";
export { canonicalJson, digestOf, sha256Hex } from "./json/canonicalJson.js";
export {
  checkJsonLimits,
  type JsonLimitProblem,
  MAX_ARGUMENT_BYTES,
  MAX_ARGUMENT_DEPTH,
  MAX_PRD_DEPTH,
} from "./json/checkJsonLimits.js";
export { formatJsonPath } from "./json/jsonPath.js";
export { type JsonParseResult, parseJsonText, positionAt, type TextPosition } from "./json/parseJsonText.js";
export { type ExpandResult, expandEnv } from "./mcpConfig/expandEnv.js";
export {
  findMcpConfig,
  type LoadMcpConfigOptions,
  loadMcpConfig,
  type McpConfig,
  type McpConfigSource,
  redactServerConfig,
} from "./mcpConfig/loadMcpConfig.js";
export {
  type HttpServerConfig,
  HttpServerEntrySchema,
  McpConfigFileSchema,
  type McpServerConfig,
  ServerNameSchema,
  type StdioServerConfig,
  StdioServerEntrySchema,
} from "./mcpConfig/McpConfigSchema.js";
export {
  configSecrets,
  describeEndpoint,
  scrubText,
  scrubValue,
  secretValues,
} from "./mcpConfig/secretValues.js";
export { chooseHarness, type HarnessChoice, HarnessChoiceSchema } from "./model/HarnessName.js";
export {
  chooseModel,
  MODEL_PROVIDERS,
  type ModelChoice,
  ModelNameSchema,
  type ModelProvider,
  type ModelRef,
  parseModelName,
} from "./model/ModelName.js";
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
export {
  DEFAULT_PRD_LIMITS,
  MAX_PRD_BYTES_ENV,
  MAX_PRD_STORIES_ENV,
  type PrdLimits,
  prdLimits,
} from "./prd/file/prdLimits.js";
export { type PrdRead, type PrdReadOptions, type PrdSource, readPrdSync } from "./prd/file/readPrd.js";
export { type OutlineStory, outlineRunOrder, type PrdOutline, readPrdOutline } from "./prd/file/readPrdOutline.js";
export { prdDigest } from "./prd/file/replacePrd.js";
export type { StoryEdit } from "./prd/file/storyText.js";
export { type PrdWriteCache, type StoriesWritten, writePrdStories } from "./prd/file/writePrdStories.js";
export {
  MAX_STEP,
  MIN_STEP,
  type Prd,
  PrdGitSchema,
  PrdSchema,
  parseStepKey,
  type ScriptedCall,
  ScriptedCallSchema,
  StepNumberSchema,
  type Story,
  StorySchema,
  stepKey,
  type VerifyCommand,
  VerifyCommandSchema,
} from "./prd/PrdSchema.js";
export { PRD_SCHEMA_PATH, prdJsonSchema, prdJsonSchemaText } from "./prd/prdJsonSchema.js";
export { type IndexedStory, storiesInRunOrder } from "./prd/runOrder.js";
export { type PrdHead, type PrdValidation, type PrdValidationContext, validatePrd } from "./prd/validatePrd.js";
export { formatProblem, hasErrors, type Problem } from "./problems/Problem.js";
export { OutputBuffer } from "./process/OutputBuffer.js";
export { PROCESS_TREE_ENV } from "./process/ProcessTree.js";
export {
  type ProcessOutcome,
  type RunProcessOptions,
  runProcess,
  type StreamTail,
} from "./process/runProcess.js";
export {
  loadRoutingTable,
  RoutingFileSchema,
  type RoutingTable,
  routedSpecialists,
} from "./routing/RoutingTable.js";
export { eventLine } from "./run/eventLine.js";
export { eventTime } from "./run/eventTime.js";
export { type EventBase, type RunEvent, type RunEventType, sumTokens, type TokenCount } from "./run/RunEvent.js";
export { isRunId } from "./run/runId.js";
export type { ContentBlock, StepOutcome, StepStatus, ToolCall, ToolResult } from "./run/types.js";
export {
  BoundedLineSplitter,
  DEFAULT_MAX_MESSAGE_BYTES,
  type LineHandlers,
  MAX_MESSAGE_BYTES_ENV,
  maxMessageBytes,
  type OversizedLine,
} from "./stream/BoundedLineSplitter.js";
export { shorten, TURN_TEXT_CHARS } from "./text/shorten.js";
export { stripAnsi, stripAnsiDeep } from "./text/stripAnsi.js";
export { didYouMean, suggest } from "./text/suggest.js";
export {
  parseQualifiedName,
  QUALIFIED_SEPARATOR,
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
export { parseYaml, yamlCacheDir, yamlLibrary } from "./yaml/parseYaml.js";
