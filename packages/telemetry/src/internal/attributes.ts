import type { Attributes } from "@opentelemetry/api";
import type { SpanAttributes } from "../SpanAttributes.js";

/** The attributes with a value (OpenTelemetry has no `undefined` attribute). */
export function definedAttributes(attributes: SpanAttributes): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) out[key] = value;
  return out;
}
