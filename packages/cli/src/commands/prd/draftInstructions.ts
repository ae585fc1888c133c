import { readFileSync } from "node:fs";
import { type RoutingTable, stepPurpose, type VerifyCommand } from "@meshflow/core";
import { chooseServers } from "./chooseServers.js";
import { dataFile } from "./readDataFile.js";
import type { StepNeeds } from "./stepNeeds.js";

/** What the model drafting a PRD is told about the project. */
export interface DraftFacts {
  /** The PRD file the draft becomes. */
  file: string;
  project: string;
  /** The project's test command as a story's `verify` entry, if it has one. */
  verify: VerifyCommand | undefined;
  routing: RoutingTable;
  needs: StepNeeds;
  /** Capabilities of each configured server whose tools were listed (empty: none configured or listed). */
  servers: ReadonlyMap<string, ReadonlySet<string>>;
  /** Configured servers whose tools could not be listed (their names may still be used). */
  unlisted: readonly string[];
}

function stepLines(facts: DraftFacts): string[] {
  const lines: string[] = [];
  for (const [step, specialist] of [...facts.routing.steps].sort(([a], [b]) => a - b)) {
    const needs = facts.needs.get(step) ?? [];
    const { servers } = chooseServers(needs, facts.servers);
    const fits = servers.length ? `; servers that fit: ${servers.join(", ")}` : "";
    lines.push(`- ${step} (${specialist}): ${stepPurpose(step)} Needs ${needs.join(" or ") || "nothing"}${fits}.`);
  }
  return lines;
}

function serverLines(facts: DraftFacts): string[] {
  if (!facts.servers.size && !facts.unlisted.length)
    return ["None are configured: leave `mcpTools` empty (`{}`) in every story."];
  return [
    ...[...facts.servers].map(([name, caps]) => `- ${name}: ${[...caps].sort().join(", ") || "no known capability"}`),
    ...facts.unlisted.map((name) => `- ${name}: its tools could not be listed`),
  ];
}

/**
 * The instructions of the model that drafts a PRD: how to write the stories (`data/prd-writer.md`),
 * then the project's facts: its name and test command, the steps (purpose, specialist, what each
 * needs and the servers that fit), and the servers with their capabilities.
 */
export function draftInstructions(facts: DraftFacts): string {
  const verify = facts.verify
    ? `\`${facts.verify.run.join(" ")}\`: use ${JSON.stringify(facts.verify)} as each story's verify`
    : "none: give no verify";
  return [
    readFileSync(dataFile("prd-writer.md"), "utf8").trim(),
    "",
    "## The project",
    `- Name: ${facts.project} (the PRD's \`project\`).`,
    `- The PRD file: ${facts.file}.`,
    `- Test command: ${verify}.`,
    "",
    "## Steps (mavenSteps), each with its specialist",
    ...stepLines(facts),
    "",
    "## MCP servers (the only names mcpTools may use), with what their tools offer",
    ...serverLines(facts),
  ].join("\n");
}
