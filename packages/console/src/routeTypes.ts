import type { IncomingMessage, ServerResponse } from "node:http";
import { MeshflowError } from "@meshflow/core";
import type { Guard } from "@meshflow/mcp";
import type { PrdSearchBounds } from "./projectPrds.js";
import type { QueueView } from "./QueueView.js";
import type { RunCatalog } from "./RunCatalog.js";
import type { RunLauncher } from "./RunLauncher.js";
import type { RunWatcher } from "./RunWatcher.js";
import type { ToolsSource } from "./ToolsSource.js";

/** What the routes work with. */
export interface RouteContext {
  catalog: RunCatalog;
  watcher: RunWatcher;
  guard: Guard;
  launcher?: RunLauncher | undefined;
  queue?: QueueView | undefined;
  tools?: ToolsSource | undefined;
  /** Runs (newest first) the health page's latencies are computed over. */
  healthRuns: number;
  /** How far `GET /api/prds` looks for the project's PRDs. */
  prdSearch: PrdSearchBounds;
  info: Record<string, unknown>;
}

/** One JSON API route: method, path pattern (`:name` segments) and handler. */
export interface Route {
  name: string;
  method: "GET" | "POST" | "PUT";
  path: string;
  handle(
    ctx: RouteContext,
    params: Record<string, string>,
    req: IncomingMessage,
    res: ServerResponse,
    query: URLSearchParams,
  ): Promise<void>;
}

/** A request body checked against its schema: `usage` naming the field otherwise. */
export function parseBody<T>(
  schema: {
    safeParse(
      v: unknown,
    ):
      | { success: true; data: T }
      | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } };
  },
  body: unknown,
  where: string,
): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue?.path.length ? issue.path.map(String).join(".") : "(body)";
  throw new MeshflowError("usage", `${where}: ${path}: ${issue?.message ?? "invalid"}`);
}
