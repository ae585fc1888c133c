import { extendSpecialist } from "@meshflow/runtime";
import { createSpecialistHarness, type SpecialistHarness } from "@meshflow/runtime/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FixtureFiles,
  filesystemServer,
  fixtureFiles,
  memoryServer,
  workspaceServer,
} from "../../tests/helpers/agentFixtures.js";
import securityAgent from "./agent.js";

// Planted secrets are assembled at run time: the repository itself holds no secret-shaped literal.
const AWS_KEY = ["AKIA", "QWERTYUIOPASDFGH"].join("");
const GITHUB_TOKEN = ["ghp", "_", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"].join("");

describe("security-agent", () => {
  let ws: FixtureFiles;
  let harness: SpecialistHarness;

  beforeAll(async () => {
    ws = fixtureFiles({
      "src/app.js": "export function greet(name) {\n  return `hello ${name}`;\n}\n",
      "src/config.js": `export const region = "eu-west-1";\nexport const awsKey = "${AWS_KEY}";\n`,
      "scripts/publish.sh": `#!/bin/sh\nGITHUB_TOKEN=${GITHUB_TOKEN} npm publish\n`,
      "src/legacy/run.js": "export const run = (code) => eval(code);\n",
      "ui/render.js": "export const render = (el, html) => {\n  el.innerHTML = html;\n};\n",
      "keys/server.pem": "not really a key\n",
      ".env.example": "API_URL=http://localhost\n",
      "assets/logo.png": Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]),
    });
    harness = await createSpecialistHarness({
      servers: {
        workspace: workspaceServer(ws.root),
        filesystem: filesystemServer(ws.root),
        memory: memoryServer(ws.memoryFile),
      },
    });
  });
  afterAll(async () => {
    await harness?.close();
    ws?.cleanup();
  });

  const expectNoSecret = (value: unknown) => {
    const text = JSON.stringify(value);
    expect(text).not.toContain(AWS_KEY);
    expect(text).not.toContain(GITHUB_TOKEN);
  };

  it("passes a clean scope", async () => {
    const run = await harness.run(securityAgent, {
      step: 8,
      stepServers: ["workspace"],
      story: { agentConfig: { "security-agent": { paths: ["src/app.js"] } } },
    });
    expect(run.status).toBe("passed");
    expect(run.summary).toBe("scanned 1 file with 16 rules: no findings");
  });

  it("fails with file:line: rule findings, secrets masked, through the workspace server", async () => {
    const run = await harness.run(securityAgent, { step: 8, stepServers: ["workspace"] });
    expect(run.status).toBe("failed");
    expect(run.summary).toBe(
      "4 findings at or above medium: keys/server.pem: private-key-file; " +
        "scripts/publish.sh:2: github-token (ghp_…(40 chars)); src/config.js:2: aws-access-key-id (AKIA…(20 chars)); " +
        "src/legacy/run.js:1: eval-call (scanned 7 files with 16 rules)",
    );
    const evidence = run.evidence.at(-1) as { findings: string[]; skipped: string[]; scanned: number };
    expect(evidence.findings).toEqual([
      "keys/server.pem: private-key-file [high: a private key file in the workspace]",
      "scripts/publish.sh:2: github-token (ghp_…(40 chars)) [high: GitHub token]",
      "src/config.js:2: aws-access-key-id (AKIA…(20 chars)) [high: AWS access key id]",
      "src/legacy/run.js:1: eval-call [medium: eval() runs strings as code]",
      "ui/render.js:2: inner-html [low: HTML injected from a string]",
    ]);
    expect(run.summary).toContain("src/config.js:2: aws-access-key-id (AKIA…(20 chars))");
    // The png is excluded by extension; `.env.example` is excepted from the env-file rule.
    expect(evidence.scanned).toBe(7);
    expectNoSecret({ summary: run.summary, evidence: run.evidence });
    // A read-only specialist: no tool that can change anything was in reach.
    expect(run.repertoire.every((t) => t.annotations.readOnlyHint === true)).toBe(true);
  });

  it("finds the same through the filesystem server (directory_tree + read_text_file), read-only", async () => {
    const run = await harness.run(securityAgent, { step: 10, stepServers: ["filesystem"] });
    expect(run.status).toBe("failed");
    const evidence = run.evidence.at(-1) as { findings: string[]; tools: unknown };
    expect(evidence.tools).toEqual({ list: "filesystem__directory_tree", read: "filesystem__read_text_file" });
    expect(evidence.findings.map((f) => f.split(" ")[0])).toEqual([
      "keys/server.pem:",
      "scripts/publish.sh:2:",
      "src/config.js:2:",
      "src/legacy/run.js:1:",
      "ui/render.js:2:",
    ]);
    expect(run.repertoire.map((t) => t.name)).not.toContain("write_file");
    expectNoSecret({ summary: run.summary, evidence: run.evidence });
  });

  it("reports findings below failOn without failing, and honours ignore entries", async () => {
    const run = await harness.run(securityAgent, {
      step: 8,
      stepServers: ["workspace"],
      story: {
        agentConfig: {
          "security-agent": {
            paths: ["src/legacy", "ui"],
            failOn: "high",
            ignore: [{ path: "ui/**", rules: ["inner-html"] }],
          },
        },
      },
    });
    expect(run.status).toBe("passed");
    expect(run.summary).toBe("scanned 2 files with 16 rules; 1 finding(s) below high reported");
    expect(run.evidence.at(-1)).toMatchObject({
      ignored: 1,
      findings: [expect.stringMatching(/^src\/legacy\/run\.js:1: eval-call/)],
    });
  });

  it("blocks without a tool that reads file contents", async () => {
    const run = await harness.run(securityAgent, { step: 8, stepServers: ["memory"] });
    expect(run.status).toBe("blocked");
    expect(run.summary).toMatch(/^cannot scan the workspace: no tool to list files with/);
  });

  describe("extendSpecialist(securityAgent, …): a stricter security-agent", () => {
    const strict = extendSpecialist(securityAgent, {
      name: "strict-security-agent",
      description: "security-agent that fails on low findings too, and on TODO markers about secrets",
      config: {
        failOn: "low",
        extraRules: [
          {
            id: "todo-secret",
            kind: "risky",
            severity: "low",
            pattern: "TODO.*(secret|credential)",
            flags: "i",
            description: "an open TODO about secrets",
          },
        ],
      },
    });

    it("keeps the base's rules and scope, adds its own, and fails on what the base only reports", async () => {
      ws.write("ui/todo.js", "// TODO: move the secret to the vault\n");
      const settings = { paths: ["ui"] };
      const base = await harness.run(securityAgent, {
        step: 8,
        stepServers: ["workspace"],
        story: { agentConfig: { "security-agent": settings } },
      });
      expect(base.status).toBe("passed");
      const stricter = await harness.run(strict, {
        step: 8,
        stepServers: ["workspace"],
        story: { agentConfig: { "strict-security-agent": settings } },
      });
      expect(stricter.status).toBe("failed");
      expect(stricter.summary).toMatch(
        /^2 findings at or above low: ui\/render\.js:2: inner-html; ui\/todo\.js:1: todo-secret/,
      );
      expect(strict.readOnly).toBe(true);
      expect(strict.steps).toEqual([8, 10]);
    });

    it("refuses an extension whose settings the base's schema rejects", () => {
      expect(() => extendSpecialist(securityAgent, { config: { failOn: "critical" } })).toThrow(
        /invalid config of specialist "security-agent": failOn: /,
      );
      expect(() =>
        extendSpecialist(securityAgent, {
          config: { extraRules: [{ id: "x", kind: "secret", severity: "high", pattern: "(", description: "bad" }] },
        }),
      ).toThrow(/extraRules\.0\.pattern: not a valid regular expression/);
    });
  });
});
