import type { CoverageReport } from "@meshflow/resolver";

/** One discovered tool with its classification (`GET /api/tools`). */
export interface ToolRow {
  qualifiedName: string;
  server: string;
  tool: string;
  description?: string;
  /** The MCP annotations the server declared (readOnlyHint, destructiveHint, …). */
  annotations?: Record<string, unknown>;
  capabilities: readonly string[];
  /** `rule` (or another classifier id), `cache`, or `override`. */
  source: string;
  classifier: string;
  reasons: readonly string[];
  /** The overrides file's entry for this tool (qualified or bare key), when there is one. */
  override?: { key: string; value: unknown };
}

/** A server whose tools could not be listed. */
export interface ServerFailureRow {
  server: string;
  code: string;
  message: string;
}

/** What `GET /api/tools` answers. */
export interface ToolsView {
  tools: ToolRow[];
  /** The capability catalog's ids with their descriptions. */
  capabilities: Array<{ id: string; description?: string }>;
  /** The file override edits are written to (`capability-overrides.yaml` of the skills folder). */
  overridesFile: string;
  failures: ServerFailureRow[];
}

/** What `GET /api/coverage` answers: the resolver's coverage report, and the servers that failed. */
export interface CoverageView {
  report: CoverageReport;
  failures: ServerFailureRow[];
}

/**
 * Where the console gets tools and coverage from. `flow console` provides one that discovers the MCP
 * config's servers and classifies their tools as `flow tools` does; `refresh` discovers again (after
 * an override edit, or when asked).
 */
export interface ToolsSource {
  tools(refresh?: boolean): Promise<ToolsView>;
  coverage(refresh?: boolean): Promise<CoverageView>;
}
