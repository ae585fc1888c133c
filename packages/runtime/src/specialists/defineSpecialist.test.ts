import { UniversalTool } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { defineSpecialist, specialistInfo } from "./defineSpecialist.js";

describe("defineSpecialist harnessTools", () => {
  it("keeps the universal tools a specialist asks a harness for; the resolver's info leaves them out", () => {
    const specialist = defineSpecialist({
      name: "docs-agent",
      description: "writes docs",
      harnessTools: [UniversalTool.read, UniversalTool.edit, UniversalTool.custom("NotebookEdit")],
    });
    expect(specialist.harnessTools).toEqual([
      { kind: "read" },
      { kind: "edit" },
      { kind: "custom", name: "NotebookEdit" },
    ]);
    expect(specialistInfo(specialist)).not.toHaveProperty("harnessTools");
  });

  it("a string or an unknown kind is specialist_invalid naming the field", () => {
    const bad = (harnessTools: unknown) =>
      defineSpecialist({ name: "docs-agent", description: "d", harnessTools } as Parameters<
        typeof defineSpecialist
      >[0]);
    expect(() => bad(["bash"])).toThrow(/invalid specialist "docs-agent": harnessTools\.0/);
    expect(() => bad([{ kind: "shell" }])).toThrow(/harnessTools\.0/);
  });
});
