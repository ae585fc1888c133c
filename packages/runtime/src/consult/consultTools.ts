import { isMeshflowError, type ToolDescriptor, type ToolResult } from "@meshflow/core";
import type { ConsultAnswer } from "../specialists/Consultation.js";

/** The prefix of the tools that let a model consult a specialist: `consult_<specialist>`. */
const CONSULT_TOOL_PREFIX = "consult_";

/** The `consult_<name>` tool a model is offered for each specialist it may consult. */
export function consultTools(specialists: readonly string[]): ToolDescriptor[] {
  return specialists.map((name) => ({
    qualifiedName: `${CONSULT_TOOL_PREFIX}${name}`,
    server: "meshflow",
    name: `${CONSULT_TOOL_PREFIX}${name}`,
    description: `Ask the ${name} specialist a question about this story step. It works on the step with its own tools and answers with its outcome (passed, failed or blocked) and a summary.`,
    inputSchema: {
      type: "object",
      properties: { question: { type: "string", description: `What ${name} should check or answer.` } },
      required: ["question"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false },
  }));
}

/** The specialist a consult tool name asks for, when it is one of `allowed`'s tools. */
export function consultTarget(name: string, allowed: readonly string[]): string | undefined {
  if (!name.startsWith(CONSULT_TOOL_PREFIX)) return undefined;
  const target = name.slice(CONSULT_TOOL_PREFIX.length);
  return allowed.includes(target) ? target : undefined;
}

/** A consultation's answer (or refusal) as a tool result for the model. */
export async function consultResult(asked: () => Promise<ConsultAnswer>): Promise<ToolResult> {
  try {
    const { specialist, outcome } = await asked();
    return { content: [{ type: "text", text: `${specialist} ${outcome.status}: ${outcome.summary}` }] };
  } catch (error) {
    const code = isMeshflowError(error) ? error.code : "internal";
    const message = error instanceof Error ? error.message : String(error);
    return { isError: true, code, content: [{ type: "text", text: `${code}: ${message}` }] };
  }
}
