// Public API of @meshflow/runtime/testing: run one specialist's think() on a story step against real
// MCP servers (in-process over InMemoryTransport, or stdio/HTTP configs), without a PRD file or run store.

export {
  /** @public The MCP SDK's server class, to build the in-memory servers a specialist's test runs against. */
  McpServer,
} from "@modelcontextprotocol/sdk/server/mcp.js";
export {
  /** @public for a project's specialist tests (see README) */
  MemoryCallJournal,
} from "./testing/MemoryCallJournal.js";
export {
  createSpecialistHarness,
  /** @public for a project's specialist tests (see README) */
  runSpecialist,
  type SpecialistHarness,
  type SpecialistHarnessOptions,
  type StepInput,
  type StepRun,
  type TestServer,
} from "./testing/SpecialistHarness.js";
