import { existsSync, readFileSync } from "node:fs";
import { formatJsonPath, MeshflowError, parseYaml, type ToolDescriptor } from "@meshflow/core";
import { z } from "zod";

/** `--approve`: which calls need a person's approval besides the rules' (default `none`). */
const ApproveModeSchema = z.enum(["none", "destructive", "all"]);
/** One of {@link ApproveModeSchema}'s values. */
export type ApproveMode = z.infer<typeof ApproveModeSchema>;

/**
 * One rule of an approvals file: a call matches when every field given matches. `server` and `tool`
 * are names (`*` matches any run of characters; `tool` is the tool's own name or `<server>__<tool>`),
 * `capability` a capability id of the catalog (`filesystem_write`), `args` regular expressions tested
 * against each named argument's text (a string as it is, an array's items joined with spaces,
 * anything else as JSON).
 */
const ApprovalRuleSchema = z
  .strictObject({
    server: z.string().min(1).optional(),
    tool: z.string().min(1).optional(),
    capability: z.string().min(1).optional(),
    args: z
      .record(
        z.string(),
        z.string().refine(
          (pattern) => {
            try {
              new RegExp(pattern);
              return true;
            } catch {
              return false;
            }
          },
          { message: "not a valid regular expression" },
        ),
      )
      .optional(),
    /** Said with the request: why this call needs a person. */
    reason: z.string().optional(),
  })
  .refine((rule) => rule.server ?? rule.tool ?? rule.capability ?? rule.args, {
    message: "a rule names at least one of server, tool, capability or args",
  });
/** One rule of an approvals file. */
export type ApprovalRule = z.infer<typeof ApprovalRuleSchema>;

/** `.flow/approvals.yaml` (or `--approvals <file>`): the calls that need a person's approval. */
const ApprovalsFileSchema = z.strictObject({ rules: z.array(ApprovalRuleSchema).default([]) });

/** What needs approval in a run: the `--approve` mode and the rules, recorded with the run. */
export const ApprovalPolicySchema = z.strictObject({
  approve: ApproveModeSchema,
  rules: z.array(ApprovalRuleSchema),
  /** The rules file they came from (absolute), for messages. */
  file: z.string().optional(),
});
/** What needs approval in a run. */
export type ApprovalPolicy = z.infer<typeof ApprovalPolicySchema>;

/** A policy carried as plain data (a queued run's job), validated: `approvals_invalid` otherwise. */
export function approvalPolicyOf(value: unknown, where: string): ApprovalPolicy {
  const parsed = ApprovalPolicySchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new MeshflowError(
    "approvals_invalid",
    `${where}: ${formatJsonPath(issue?.path ?? [])}: ${issue?.message ?? "not an approvals policy"}`,
  );
}

/**
 * Reads an approvals rules file (YAML or JSON). Absent and not `required`: no rules. Invalid:
 * `approvals_invalid` naming the file and the JSON path of what is wrong.
 */
export function readApprovalRules(file: string, required: boolean): ApprovalRule[] {
  if (!existsSync(file)) {
    if (!required) return [];
    throw new MeshflowError("file_not_found", `${file}: no such approvals file (--approvals)`);
  }
  let data: unknown;
  try {
    data = parseYaml(readFileSync(file, "utf8")) ?? {};
  } catch (cause) {
    throw new MeshflowError("approvals_invalid", `${file}: $: not valid YAML or JSON: ${String(cause)}`, { cause });
  }
  const parsed = ApprovalsFileSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new MeshflowError(
      "approvals_invalid",
      `${file}: ${formatJsonPath(issue?.path ?? [])}: ${issue?.message ?? "invalid"} (expected {"rules": [{"server"?, "tool"?, "capability"?, "args"?: {"<name>": "<regex>"}, "reason"?}]})`,
      { details: { file } },
    );
  }
  return parsed.data.rules;
}

/** Each pattern of the rules compiled once: every call is checked against them (a long-lived process keeps the last 1,000). */
const compiled = new Map<string, RegExp>();
function regex(source: string): RegExp {
  let pattern = compiled.get(source);
  if (!pattern) {
    if (compiled.size >= 1_000) compiled.clear();
    pattern = new RegExp(source);
    compiled.set(source, pattern);
  }
  return pattern;
}

/** A name pattern with `*` wildcards as a whole-name regular expression. */
function namePattern(pattern: string): RegExp {
  return regex(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`);
}

/** An argument's text as rules test it. */
function argumentText(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join(" ");
  return JSON.stringify(value) ?? "";
}

function ruleMatches(
  rule: ApprovalRule,
  tool: Pick<ToolDescriptor, "server" | "name" | "qualifiedName">,
  args: Record<string, unknown>,
  capabilities: readonly string[],
): boolean {
  if (rule.server && !namePattern(rule.server).test(tool.server)) return false;
  if (rule.tool) {
    const pattern = namePattern(rule.tool);
    if (!pattern.test(tool.name) && !pattern.test(tool.qualifiedName)) return false;
  }
  if (rule.capability && !capabilities.includes(rule.capability)) return false;
  for (const [name, pattern] of Object.entries(rule.args ?? {})) {
    if (!(name in args)) return false;
    if (!regex(pattern).test(argumentText(args[name]))) return false;
  }
  return true;
}

/** A rule as said in messages: `rule 2 of .flow/approvals.yaml (reason)`. */
function ruleName(policy: ApprovalPolicy, index: number): string {
  const rule = policy.rules[index];
  const where = `rule ${index + 1} of ${policy.file ?? "the approvals rules"}`;
  return rule?.reason ? `${where}: ${rule.reason}` : where;
}

/**
 * Why a call needs a person's approval under `policy` (the mode, or the first rule it matches), or
 * undefined when it does not. `capabilities`: the tool's capability ids, when known.
 * @example approvalReason({ approve: "destructive", rules: [] }, tool, args) // "--approve destructive"
 */
export function approvalReason(
  policy: ApprovalPolicy,
  tool: Pick<ToolDescriptor, "server" | "name" | "qualifiedName"> & { annotations?: ToolDescriptor["annotations"] },
  args: Record<string, unknown>,
  capabilities: readonly string[] = [],
): string | undefined {
  if (policy.approve === "all") return "--approve all";
  if (policy.approve === "destructive" && tool.annotations?.destructiveHint === true)
    return "--approve destructive (the tool is destructiveHint)";
  const index = policy.rules.findIndex((rule) => ruleMatches(rule, tool, args, capabilities));
  return index >= 0 ? ruleName(policy, index) : undefined;
}

/**
 * A run's policy: `approve` and the rules of `file` (`required`: it must exist; otherwise an absent
 * file has no rules), validated; the file is named only when it gave rules.
 */
export function loadApprovalPolicy(approve: ApproveMode, file: string, required: boolean): ApprovalPolicy {
  const rules = readApprovalRules(file, required);
  return { approve, rules, ...(rules.length ? { file } : {}) };
}

/** True when the policy may ask for anything (a mode other than `none`, or a rule). */
export function asksForApproval(policy: ApprovalPolicy | undefined): policy is ApprovalPolicy {
  return policy !== undefined && (policy.approve !== "none" || policy.rules.length > 0);
}
