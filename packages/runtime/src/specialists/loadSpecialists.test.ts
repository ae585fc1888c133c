import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defineSpecialist } from "./defineSpecialist.js";
import { loadSpecialists } from "./loadSpecialists.js";

function agents(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-agents-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const agentTs = (name: string) => `import { defineSpecialist } from "@meshflow/runtime";
interface Note { text: string }
const note: Note = { text: "typed" };
export default defineSpecialist({ name: "${name}", description: note.text, steps: [5] });
`;

describe("loadSpecialists", () => {
  it("loads TypeScript agent folders without a build step, from anywhere on disk", async () => {
    const dir = agents({ "quality-agent/agent.ts": agentTs("quality-agent"), "notes/README.md": "not an agent" });
    const loaded = await loadSpecialists([dir]);
    expect([...loaded.keys()]).toEqual(["quality-agent"]);
    expect(loaded.get("quality-agent")?.specialist).toMatchObject({ description: "typed", steps: [5] });
  });

  it("names the file when a folder's specialist is misnamed, invalid or not a defineSpecialist result", async () => {
    const misnamed = agents({ "qa/agent.ts": agentTs("quality-agent") });
    await expect(loadSpecialists([misnamed])).rejects.toThrow(
      /qa\/agent.ts: specialist "quality-agent" must live in a folder named "quality-agent"/,
    );
    const invalid = agents({ "Bad/agent.ts": agentTs("Bad") });
    await expect(loadSpecialists([invalid])).rejects.toThrow(
      /Bad\/agent.ts: invalid specialist "Bad": name: a specialist name is lower-case kebab-case/,
    );
    const plain = agents({ "x-agent/agent.mjs": "export default { name: 'x-agent' };" });
    await expect(loadSpecialists([plain])).rejects.toMatchObject({ code: "specialist_invalid" });
  });

  it("rejects a missing explicit folder but skips a missing optional one", async () => {
    await expect(loadSpecialists(["/nonexistent/agents"])).rejects.toMatchObject({ code: "file_not_found" });
    expect((await loadSpecialists(["/nonexistent/agents"], { optional: ["/nonexistent/agents"] })).size).toBe(0);
  });
});

describe("defineSpecialist", () => {
  it("validates the definition and names the field", () => {
    expect(() => defineSpecialist({ name: "a", description: "", steps: [12] })).toThrow(
      /invalid specialist "a": description: .*; steps.0: /,
    );
  });
});
