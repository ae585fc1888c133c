export {
  DEFAULT_EXPORT_CONFIG,
  type EnricherSpec,
  EnricherSpecSchema,
  type ExportConfig,
  ExportConfigSchema,
  enricherOf,
  type HarnessExportSettings,
  harnessSettings,
  loadExportSettings,
  parseExportConfig,
} from "./config/ExportConfig.js";
export {
  addToolsEnricher,
  forSpecialists,
  harnessReadOnlyEnricher,
  stripMcpEnricher,
} from "./enrichers/harnessEnrichers.js";
export {
  AGENT_HARNESSES,
  type AgentHarness,
  OUTPUT_FORMATS,
  type OutputFormat,
  parseFormat,
  parseHarness,
} from "./harness/AgentHarness.js";
export { claudeCodeWriter } from "./harness/claudeCode.js";
export { copilotWriter } from "./harness/copilot.js";
export { type AgentRender, type HarnessTool, type HarnessWriter, harnessTools } from "./harness/HarnessWriter.js";
export { harnessWriter } from "./harness/harnessWriters.js";
export { opencodeWriter } from "./harness/opencode.js";
export {
  buildInventory,
  type Inventory,
  type InventoryInput,
  type InventoryRepertoireTool,
  type InventorySkill,
  type InventorySkillTool,
  type InventorySpecialist,
  type InventoryTool,
} from "./inventory/buildInventory.js";
export { type InventorySource, renderInventory } from "./inventory/renderInventory.js";
export {
  exportSpecialistOf,
  exportSpecialists,
  INSTRUCTIONS_FILE,
  loadExportSpecialists,
  selectSpecialists,
} from "./load/loadExportSpecialists.js";
export { baseToolMap, repertoireMap, type ToolUniverse } from "./model/baseToolMap.js";
export type { ExportSpecialist } from "./model/ExportSpecialist.js";
export { type ExportTool, exportTool, isMcpEntry } from "./model/exportTool.js";
export { GENERATED_MARK, isGeneratedMarkdown, markdownFile } from "./write/markdownFile.js";
export {
  type AgentExportInput,
  type ExportedAgent,
  type ExportPlan,
  exportEnricher,
  type FileStatus,
  type PlannedFile,
  planAgentExport,
} from "./write/planAgentExport.js";
export { outdatedFiles, writeExportPlan } from "./write/writeExportPlan.js";
