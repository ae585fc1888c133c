import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { approvalReason, readApprovalRules } from "./ApprovalPolicy.js";
import { ownToolDescriptor } from "./approveOwnTool.js";
import { maskArguments } from "./maskArguments.js";

const runCommand = { server: "workspace", name: "run_command", qualifiedName: "workspace__run_command" };

describe("approvalReason", () => {
  it("asks for run_command whose command is git with push, and not for git status", () => {
    const policy = {
      approve: "none" as const,
      rules: [
        { tool: "run_command", args: { command: "^git$", args: "\\bpush\\b" }, reason: "pushes leave the machine" },
      ],
      file: "approvals.yaml",
    };
    expect(approvalReason(policy, runCommand, { command: "git", args: ["push", "origin"] })).toBe(
      "rule 1 of approvals.yaml: pushes leave the machine",
    );
    expect(approvalReason(policy, runCommand, { command: "git", args: ["status"] })).toBeUndefined();
    expect(approvalReason(policy, runCommand, { command: "gitk", args: ["push"] })).toBeUndefined();
  });

  it("matches servers with *, capabilities by id, and the modes destructive and all", () => {
    const write = { ...runCommand, server: "fs-work", name: "write_file", qualifiedName: "fs-work__write_file" };
    expect(approvalReason({ approve: "none", rules: [{ server: "fs-*" }] }, write, {})).toMatch(/^rule 1 of/);
    expect(
      approvalReason({ approve: "none", rules: [{ capability: "filesystem_write" }] }, write, {}, ["filesystem_write"]),
    ).toMatch(/^rule 1/);
    expect(
      approvalReason({ approve: "none", rules: [{ capability: "filesystem_write" }] }, write, {}, []),
    ).toBeUndefined();
    const destructive = { ...write, annotations: { destructiveHint: true } };
    expect(approvalReason({ approve: "destructive", rules: [] }, destructive, {})).toContain("destructiveHint");
    expect(approvalReason({ approve: "destructive", rules: [] }, write, {})).toBeUndefined();
    expect(approvalReason({ approve: "all", rules: [] }, write, {})).toBe("--approve all");
  });
});

describe("approvalReason of a coding agent's own tools (claude-code__<Tool>)", () => {
  const bash = ownToolDescriptor("claude-code", "Bash");
  const read = ownToolDescriptor("claude-code", "Read");

  it("--approve all asks for every tool; --approve destructive for those that can change something, not read-only ones", () => {
    expect(approvalReason({ approve: "all", rules: [] }, read, { file_path: "/x" })).toBe("--approve all");
    const destructive = { approve: "destructive" as const, rules: [] };
    for (const tool of ["Bash", "Write", "Edit", "MultiEdit", "NotebookEdit", "SomeNewTool"])
      expect(approvalReason(destructive, ownToolDescriptor("claude-code", tool), {}), tool).toMatch(
        /^--approve destructive/,
      );
    for (const tool of ["Read", "Glob", "Grep", "LS", "WebFetch", "WebSearch", "TodoWrite"])
      expect(approvalReason(destructive, ownToolDescriptor("claude-code", tool), {}), tool).toBeUndefined();
    // Another program's tools are not known to be read-only.
    expect(approvalReason(destructive, ownToolDescriptor("other-agent", "Read"), {})).toMatch(/^--approve destructive/);
    expect(approvalReason({ approve: "none", rules: [] }, bash, { command: "rm -rf /" })).toBeUndefined();
  });

  it("rules match the server, the tool (own name or claude-code__<Tool>) and the input's fields", () => {
    const policy = {
      approve: "none" as const,
      rules: [
        { server: "claude-code", tool: "Bash", args: { command: "\\bgit\\s+push\\b" } },
        { tool: "claude-code__Read" },
      ],
      file: "approvals.yaml",
    };
    expect(approvalReason(policy, bash, { command: "git push origin main" })).toBe("rule 1 of approvals.yaml");
    expect(approvalReason(policy, bash, { command: "git status" })).toBeUndefined();
    expect(approvalReason(policy, read, { file_path: "/etc/hosts" })).toBe("rule 2 of approvals.yaml");
    expect(approvalReason(policy, ownToolDescriptor("claude-code", "Grep"), { pattern: "x" })).toBeUndefined();
  });
});

describe("readApprovalRules", () => {
  it("names the file and the JSON path of a rule that names nothing", () => {
    const file = join(mkdtempSync(join(tmpdir(), "approvals-")), "approvals.yaml");
    writeFileSync(file, "rules:\n  - reason: no fields\n");
    expect(() => readApprovalRules(file, true)).toThrow(
      /approvals\.yaml: \$\.rules\[0\]: a rule names at least one of/,
    );
    expect(readApprovalRules(join(file, "..", "absent.yaml"), false)).toEqual([]);
    expect(() => readApprovalRules(join(file, "..", "absent.yaml"), true)).toThrow(/no such approvals file/);
  });
});

describe("maskArguments", () => {
  it("masks the config's secret values anywhere and arguments named like secrets", () => {
    const masked = maskArguments(
      {
        url: "https://x/?k=s3cr3t-value",
        headers: { Authorization: "Bearer abc" },
        apiKey: "k",
        list: [{ token: "t" }],
      },
      (text) => text.split("s3cr3t-value").join("***"),
    );
    expect(masked).toEqual({
      url: "https://x/?k=***",
      headers: { Authorization: "***" },
      apiKey: "***",
      list: [{ token: "***" }],
    });
  });
});
