import { readFile } from "node:fs/promises";
import { MeshflowError } from "../errors/MeshflowError.js";
import { parseJsonText } from "../json/parseJsonText.js";
import type { Problem } from "../problems/Problem.js";
import type { Prd } from "./PrdSchema.js";
import { type PrdValidationContext, validatePrd } from "./validatePrd.js";

/** A PRD file as read from disk: its exact text, the typed PRD when valid, and every problem. */
export interface LoadedPrd {
  file: string;
  text: string;
  prd: Prd | undefined;
  problems: Problem[];
}

/**
 * Reads and validates a PRD file. Never writes to it. Throws `file_not_found` when the file cannot be
 * read; every other problem (invalid JSON with line and column, schema, semantics) is in `problems`.
 */
export async function loadPrdFile(file: string, context: Omit<PrdValidationContext, "file">): Promise<LoadedPrd> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (cause) {
    const reason = (cause as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : String(cause);
    throw new MeshflowError("file_not_found", `${file}: cannot read PRD: ${reason}`, {
      cause,
      details: { file },
    });
  }
  const parsed = parseJsonText(text);
  if (!parsed.ok) {
    const { line, column } = parsed.position;
    return {
      file,
      text,
      prd: undefined,
      problems: [
        {
          file,
          path: "$",
          message: `invalid JSON at line ${line}, column ${column}: ${parsed.message}`,
          severity: "error",
        },
      ],
    };
  }
  const { prd, problems } = validatePrd(parsed.value, { ...context, file });
  return { file, text, prd, problems };
}
