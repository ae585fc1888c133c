import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { WorkspaceToolError } from "../WorkspaceToolError.js";
import { fromErrno } from "./errnoError.js";

/** A successful result: text for models that read content, the same facts as `structuredContent`. */
export function okResult(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text }], structuredContent: structured };
}

/** An `isError` result for a refusal or failure: the message as text, `{ code, message, ...details }` as structure. */
function errorResult(error: WorkspaceToolError): CallToolResult {
  return {
    isError: true,
    content: [{ type: "text", text: `${error.code}: ${error.message}${error.report ? `\n${error.report}` : ""}` }],
    structuredContent: { ...error.details, code: error.code, message: error.message },
  };
}

/**
 * Runs a tool body; refusals become `isError` results, system errors a named code (`path_invalid` for
 * ENAMETOOLONG, `symlink_loop`, `permission_denied`…), anything unexpected an `internal` one (never a protocol error).
 */
export async function guarded(body: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof WorkspaceToolError) return errorResult(error);
    const named = fromErrno(error);
    if (named) return errorResult(named);
    const message = error instanceof Error ? error.message : String(error);
    return errorResult(new WorkspaceToolError("internal", `unexpected failure: ${message}`));
  }
}
