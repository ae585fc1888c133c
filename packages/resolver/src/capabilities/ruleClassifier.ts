import type { ToolAnnotations, ToolDescriptor } from "@meshflow/core";
import { normalizeToolName } from "../internal/toolNames.js";
import type { AnnotationRequirement, Capability, CapabilityCatalog } from "./CapabilityCatalog.js";
import type { Classifier, ClassifierVerdict } from "./Classifier.js";

// MCP's documented defaults for absent hints: a tool is assumed to write, destroy, not be idempotent and
// reach an open world unless it says otherwise.
const DEFAULTS: Required<Omit<ToolAnnotations, "title">> = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

function annotationsMeet(annotations: ToolAnnotations, required: AnnotationRequirement | undefined): boolean {
  if (!required) return true;
  for (const key of Object.keys(DEFAULTS) as (keyof typeof DEFAULTS)[]) {
    const want = required[key];
    if (want !== undefined && (annotations[key] ?? DEFAULTS[key]) !== want) return false;
  }
  return true;
}

function firstMatch(rules: readonly RegExp[], text: string): RegExp | undefined {
  for (const rule of rules) if (rule.test(text)) return rule;
  return undefined;
}

function classifyOne(tool: ToolDescriptor, catalog: CapabilityCatalog): ClassifierVerdict {
  const name = normalizeToolName(tool.name);
  const known = catalog.knownNames.get(name) ?? [];
  const capabilities: string[] = [];
  const reasons: string[] = [];
  for (const capability of catalog.capabilities.values()) {
    if (known.includes(capability.id)) {
      capabilities.push(capability.id);
      reasons.push(`${capability.id}: "${tool.name}" is a known tool name`);
      continue;
    }
    const reason = ruleReason(capability, name, tool);
    if (reason) {
      capabilities.push(capability.id);
      reasons.push(`${capability.id}: ${reason}`);
    }
  }
  return { capabilities, reasons };
}

function ruleReason(capability: Capability, name: string, tool: ToolDescriptor): string | undefined {
  if (!annotationsMeet(tool.annotations, capability.annotations)) return undefined;
  const byName = firstMatch(capability.nameRules, name);
  if (byName) return `name matches /${byName.source}/`;
  const byDescription = firstMatch(capability.descriptionRules, tool.description);
  if (byDescription) return `description matches /${byDescription.source}/`;
  return undefined;
}

/**
 * The capabilities a bare name suggests on its own (no description, no annotations): known tool names and
 * capability ids first, then name rules. Used by the resolver's capability tier.
 */
export function capabilitiesOfName(catalog: CapabilityCatalog, name: string): string[] {
  const normalized = normalizeToolName(name);
  if (catalog.capabilities.has(normalized)) return [normalized];
  const known = catalog.knownNames.get(normalized);
  if (known) return [...known];
  const found: string[] = [];
  for (const capability of catalog.capabilities.values())
    if (firstMatch(capability.nameRules, normalized)) found.push(capability.id);
  return found;
}

/**
 * The deterministic classifier: a tool gets a capability when its name is listed under it, or when its
 * annotations meet the capability's requirement and its name or description matches one of its rules.
 */
export function createRuleClassifier(): Classifier {
  return {
    id: "rule",
    version: "1",
    classify: (tools, catalog) => tools.map((tool) => classifyOne(tool, catalog)),
  };
}
