import picomatch from "picomatch";
import type { LineRule, Severity } from "./config.js";

/** One thing the scan found. */
export interface Finding {
  path: string;
  /** 1-based; 0 for a file rule (the file itself is the finding). */
  line: number;
  rule: string;
  kind: "secret" | "risky" | "file";
  severity: Severity;
  description: string;
  /** For secrets: the matched secret, masked (never the secret itself). */
  masked?: string;
}

const RANK: Record<Severity, number> = { low: 1, medium: 2, high: 3 };

/** True when `severity` is at or above `threshold`. */
export function atLeast(severity: Severity, threshold: Severity): boolean {
  return RANK[severity] >= RANK[threshold];
}

/**
 * A secret as reports may show it: a short prefix (enough to recognise the kind of key, never enough to
 * use it) and its length. `AKIAIOSFODNN7EXAMPLE` → `AKIA…(20 chars)`.
 */
function maskSecret(secret: string): string {
  const shown = Math.min(4, Math.floor(secret.length / 5));
  return `${secret.slice(0, shown)}…(${secret.length} chars)`;
}

/** `file:line: rule`, with the masked secret for secrets. */
export function formatFinding(finding: Finding): string {
  const where = finding.line ? `${finding.path}:${finding.line}` : finding.path;
  return `${where}: ${finding.rule}${finding.masked ? ` (${finding.masked})` : ""}`;
}

/** A rule compiled once for a scan. */
export interface CompiledRule {
  rule: LineRule;
  regex: RegExp;
  applies: (path: string) => boolean;
}

/** Compiles line rules (their patterns were validated with the settings). */
export function compileRules(rules: readonly LineRule[]): CompiledRule[] {
  return rules.map((rule) => ({
    rule,
    regex: new RegExp(rule.pattern, `${(rule.flags ?? "").replace("g", "")}g`),
    applies: rule.files ? picomatch(rule.files, { dot: true }) : () => true,
  }));
}

/** Every match of every applicable rule on every line of a file's text. */
export function scanText(path: string, text: string, rules: readonly CompiledRule[]): Finding[] {
  const applicable = rules.filter((r) => r.applies(path));
  if (!applicable.length) return [];
  const findings: Finding[] = [];
  const lines = text.split("\n");
  lines.forEach((line, i) => {
    for (const { rule, regex } of applicable) {
      regex.lastIndex = 0;
      for (let m = regex.exec(line); m; m = regex.exec(line)) {
        const secret = m.groups?.secret ?? m[0];
        findings.push({
          path,
          line: i + 1,
          rule: rule.id,
          kind: rule.kind,
          severity: rule.severity,
          description: rule.description,
          ...(rule.kind === "secret" ? { masked: maskSecret(secret) } : {}),
        });
        if (m[0] === "") regex.lastIndex++;
      }
    }
  });
  return findings;
}
