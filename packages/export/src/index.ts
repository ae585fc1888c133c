export {
  type EnricherSpec,
  type ExportConfig,
  type HarnessExportSettings,
  loadExportSettings,
} from "./config/ExportConfig.js";
export { stripMcpEnricher } from "./enrichers/harnessEnrichers.js";
export {
  type AgentHarness,
  type OutputFormat,
  parseFormat,
  parseHarness,
} from "./harness/AgentHarness.js";

export type { AgentRender, HarnessTool, HarnessWriter } from "./harness/HarnessWriter.js";

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
  loadExportSpecialists,
  selectSpecialists,
} from "./load/loadExportSpecialists.js";
export type { ToolUniverse } from "./model/baseToolMap.js";
export type { ExportSpecialist } from "./model/ExportSpecialist.js";
export type { ExportTool } from "./model/exportTool.js";

export {
  type AgentExportInput,
  type ExportedAgent,
  type ExportPlan,
  type FileStatus,
  type PlannedFile,
  planAgentExport,
} from "./write/planAgentExport.js";
export { outdatedFiles, writeExportPlan } from "./write/writeExportPlan.js";
