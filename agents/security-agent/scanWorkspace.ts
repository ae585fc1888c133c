import picomatch from "picomatch";
import type { WorkspaceFiles } from "../shared/WorkspaceFiles.js";
import type { SecurityConfig } from "./config.js";
import { atLeast, compileRules, type Finding, formatFinding, scanText } from "./scanText.js";

/** The verdict of a scan and the evidence it records (secrets masked). */
export interface Scan {
  outcome: "passed" | "failed" | "blocked";
  summary: string;
  evidence: Record<string, unknown>;
}

const SUMMARY_FINDINGS = 5;

/** Scans the files of the configured scope with the line rules and file rules of the settings. */
export async function scanWorkspace(files: WorkspaceFiles, config: SecurityConfig): Promise<Scan> {
  const scope = { paths: config.paths, include: config.include, exclude: config.exclude };
  const listing = await files.list(config);
  const rules = [...config.rules, ...config.extraRules];
  const base = { tools: files.tools, scope, rules: rules.length + config.fileRules.length, failOn: config.failOn };
  if (listing.truncated)
    return {
      outcome: "blocked",
      summary: `the listing stopped at ${listing.files.length} files; narrow "paths" or "include" so every file is scanned`,
      evidence: base,
    };
  if (!listing.files.length)
    return {
      outcome: "blocked",
      summary: `no file matches the scope ${JSON.stringify(scope)}: nothing to scan`,
      evidence: base,
    };

  const compiled = compileRules(rules);
  const fileRules = config.fileRules.map((r) => ({
    rule: r,
    matches: picomatch(r.files, { dot: true }),
    except: r.except.length ? picomatch(r.except, { dot: true }) : () => false,
  }));
  const ignored = config.ignore.map((i) => ({ path: picomatch(i.path, { dot: true }), rules: i.rules }));
  const isIgnored = (f: Finding) => ignored.some((i) => i.path(f.path) && (!i.rules || i.rules.includes(f.rule)));

  const findings: Finding[] = [];
  const skipped: string[] = [];
  let scanned = 0;
  for (const file of listing.files) {
    for (const { rule, matches, except } of fileRules)
      if (matches(file.path) && !except(file.path))
        findings.push({
          path: file.path,
          line: 0,
          rule: rule.id,
          kind: "file",
          severity: rule.severity,
          description: rule.description,
        });
    if (file.binary) {
      skipped.push(`${file.path}: binary`);
      continue;
    }
    if (file.bytes !== undefined && file.bytes > config.maxFileBytes) {
      skipped.push(`${file.path}: ${file.bytes} bytes > maxFileBytes ${config.maxFileBytes}`);
      continue;
    }
    const content = await files.read(file.path);
    if (content.binary) {
      skipped.push(`${file.path}: binary`);
      continue;
    }
    scanned++;
    findings.push(...scanText(file.path, content.text, compiled));
  }

  const reported = findings.filter((f) => !isIgnored(f));
  const failing = reported.filter((f) => atLeast(f.severity, config.failOn));
  const evidence = {
    ...base,
    scanned,
    skipped,
    ignored: findings.length - reported.length,
    findings: reported.map((f) => `${formatFinding(f)} [${f.severity}: ${f.description}]`),
    details: reported,
  };
  const counted = `scanned ${scanned} file${scanned === 1 ? "" : "s"} with ${base.rules} rules`;
  if (!failing.length) {
    const below = reported.length ? `; ${reported.length} finding(s) below ${config.failOn} reported` : ": no findings";
    return { outcome: "passed", summary: `${counted}${below}`, evidence };
  }
  const shown = failing.slice(0, SUMMARY_FINDINGS).map(formatFinding).join("; ");
  const more = failing.length > SUMMARY_FINDINGS ? `; and ${failing.length - SUMMARY_FINDINGS} more` : "";
  return {
    outcome: "failed",
    summary: `${failing.length} finding${failing.length === 1 ? "" : "s"} at or above ${config.failOn}: ${shown}${more} (${counted})`,
    evidence,
  };
}
