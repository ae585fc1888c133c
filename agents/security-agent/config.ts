import { z } from "@meshflow/runtime";
import { ScopeSchema } from "../shared/scope.js";

/** How bad a finding is; a finding at or above `failOn` fails the step. */
const SeveritySchema = z.enum(["low", "medium", "high"]);

/** A finding's severity. */
export type Severity = z.infer<typeof SeveritySchema>;

const RegexSchema = z
  .string()
  .min(1)
  .superRefine((pattern, ctx) => {
    try {
      new RegExp(pattern);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: `not a valid regular expression: ${(error as Error).message}` });
    }
  });

/** A pattern looked for on every line of every file in scope. */
const LineRuleSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "a rule id is lower-case kebab-case"),
  kind: z.enum(["secret", "risky"]).describe("secret: the match is masked in every report"),
  severity: SeveritySchema,
  pattern: RegexSchema.describe("A JavaScript regular expression; a named group `secret` narrows what is masked"),
  flags: z
    .string()
    .regex(/^[imsu]*$/, "flags may be i, m, s, u")
    .optional(),
  files: z.array(z.string().min(1)).optional().describe("Globs: only files matching them are searched"),
  description: z.string().min(1),
});

/** A file whose presence is a finding (a committed `.env`, a private key file). */
const FileRuleSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "a rule id is lower-case kebab-case"),
  severity: SeveritySchema,
  files: z.array(z.string().min(1)).min(1).describe("Globs over root-relative paths"),
  except: z.array(z.string().min(1)).default([]),
  description: z.string().min(1),
});

/** security-agent's settings: `config.yaml` beside the agent, a story's `agentConfig["security-agent"]` over it. */
export const SecurityConfigSchema = ScopeSchema.extend({
  failOn: SeveritySchema.describe("Findings at or above this severity fail the step; lower ones are reported"),
  maxFileBytes: z.number().int().positive().describe("Larger files are skipped and listed as skipped"),
  rules: z.array(LineRuleSchema),
  extraRules: z.array(LineRuleSchema).describe("Added to `rules` (so an extension or a story need not repeat them)"),
  fileRules: z.array(FileRuleSchema),
  ignore: z
    .array(z.strictObject({ path: z.string().min(1), rules: z.array(z.string().min(1)).optional() }))
    .describe("Findings in files matching `path` (of `rules`, or of every rule) are not reported"),
});

/** security-agent's settings, validated. */
export type SecurityConfig = z.infer<typeof SecurityConfigSchema>;
/** One line rule. */
export type LineRule = z.infer<typeof LineRuleSchema>;
