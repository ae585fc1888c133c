import type { ToolResult } from "@meshflow/core";

/**
 * Approximate size of a result as sent on the wire, in bytes. Text and base64 data are measured
 * without serialising them (the hot path must not copy big payloads); only blocks of other kinds
 * and structured content are serialised.
 */
export function payloadBytes(result: ToolResult): number {
  let bytes = 0;
  for (const block of result.content) {
    const text = block.text;
    const data = block.data;
    if (typeof text === "string") bytes += Buffer.byteLength(text, "utf8");
    else if (typeof data === "string") bytes += data.length;
    else bytes += JSON.stringify(block).length;
  }
  if (result.structuredContent) bytes += JSON.stringify(result.structuredContent).length;
  return bytes;
}
