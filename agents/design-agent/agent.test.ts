import { createSpecialistHarness, type SpecialistHarness } from "@meshflow/runtime/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FixtureFiles,
  filesystemServer,
  fixtureFiles,
  memoryServer,
  workspaceServer,
} from "../../tests/helpers/agentFixtures.js";
import designAgent from "./agent.js";

const INDEX = `<!doctype html>
<html>
  <head><link rel="stylesheet" href="styles.css?v=2"></head>
  <body><script type="module" src="./app.js"></script></body>
</html>
`;

describe("design-agent", () => {
  let ws: FixtureFiles;
  let harness: SpecialistHarness;

  beforeAll(async () => {
    ws = fixtureFiles({
      "ui/index.html": INDEX,
      "ui/styles.css": "body { background: url(img/bg.svg); }\n",
      "ui/img/bg.svg": "<svg xmlns='http://www.w3.org/2000/svg'/>\n",
      "ui/app.js": 'import { list } from "./widgets/list";\nlist(document.body);\n',
      "ui/widgets/list.js": "export const list = (el) => el;\n",
      "ui/orphan.css": "p { margin: 0; }\n",
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

  const named = (uiFiles: string[], extra: Record<string, unknown> = {}) => ({
    agentConfig: { "design-agent": { uiFiles, entries: ["ui/index.html"], ...extra } },
  });
  const WIRED = ["ui/index.html", "ui/app.js", "ui/styles.css", "ui/widgets/list.js", "ui/img/bg.svg"];

  it("passes when every named UI file exists and is referenced (entries need only exist)", async () => {
    const run = await harness.run(designAgent, { step: 11, stepServers: ["workspace"], story: named(WIRED) });
    expect(run.status).toBe("passed");
    expect(run.summary).toBe(
      "5 UI file(s) exist and are wired in: ui/index.html (entry); ui/app.js (from ui/index.html); " +
        "ui/styles.css (from ui/index.html); ui/widgets/list.js (from ui/app.js); ui/img/bg.svg (from ui/styles.css)",
    );
  });

  it("fails on a missing and an unreferenced UI file, naming both (also through the filesystem server)", async () => {
    for (const server of ["workspace", "filesystem"]) {
      const run = await harness.run(designAgent, {
        step: 11,
        stepServers: [server],
        story: named(["ui/index.html", "ui/orphan.css", "ui/missing.js", "ui/gone/deeper.js"]),
      });
      expect(run.status, server).toBe("failed");
      expect(run.summary, server).toBe(
        "3 UI file problem(s): ui/missing.js: missing; ui/gone/deeper.js: missing; ui/orphan.css: not referenced by any file in .",
      );
    }
  });

  it("without UI files to check: runs the step's scripted calls, or is blocked", async () => {
    const blocked = await harness.run(designAgent, { step: 11, stepServers: ["workspace"] });
    expect(blocked.status).toBe("blocked");
    expect(blocked.summary).toBe(
      'no UI files to check, no calls for step 11 and no model: name them in agentConfig["design-agent"].uiFiles, add calls or configure a model',
    );

    const scripted = await harness.run(designAgent, {
      step: 11,
      stepServers: ["memory"],
      story: {
        calls: {
          step11: [
            {
              tool: "memory__create_entities",
              args: { entities: [{ name: "palette", entityType: "design", observations: ["dark mode first"] }] },
            },
          ],
        },
      },
    });
    expect(scripted.status).toBe("passed");
    expect(scripted.summary).toBe("1 scripted call(s) succeeded; no UI files named to check");
    expect(scripted.calls.map((c) => c.tool)).toEqual(["memory__create_entities"]);
  });
});
