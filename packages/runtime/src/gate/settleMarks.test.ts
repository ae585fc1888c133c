import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { settleMarks } from "./settleMarks.js";

const story = (id: string) => ({ id, title: id, description: "", passes: false, notes: "" });
const mark = { storyId: "A", note: "Passed in run r1." };

describe("settleMarks", () => {
  // Regression: the run's last write was never checked once it landed, so an editor that saved text
  // read before it dropped its marks a moment later, and the run ended as if they were there.
  it("writes a mark again when an editor saves text read before the mark landed, keeping the save", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "meshflow-settle-")), "prd.json");
    writeFileSync(file, `${JSON.stringify({ userStories: [story("A"), story("B")] }, null, 2)}\n`);
    // An editor holding the file's text: once the mark lands, it saves its edit of that older text.
    const editor = spawn(
      process.execPath,
      [
        "-e",
        `const fs = require("node:fs");
         const held = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
         held.userStories[1].description = "edited";
         process.stdout.write("ready\\n");
         const wait = () => {
           if (!fs.readFileSync(process.argv[1], "utf8").includes('"passes": true')) return setTimeout(wait, 2);
           fs.writeFileSync(process.argv[1], JSON.stringify(held, null, 2) + "\\n");
         };
         wait();`,
        file,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    await new Promise((resolve) => editor.stdout.once("data", resolve));
    const exited = new Promise((resolve) => editor.on("exit", resolve));
    // Long enough a watch for the editor's save to land within it, however loaded the machine.
    expect(settleMarks(file, [mark], { quietMs: 5000 })).toEqual({ missing: [], marked: [mark] });
    await exited;
    const prd = JSON.parse(readFileSync(file, "utf8"));
    expect(prd.userStories[0]).toMatchObject({ passes: true, notes: mark.note });
    expect(prd.userStories[1].description).toBe("edited");
  });

  it("reports marks whose story is gone at once, with the file's name", () => {
    const file = join(mkdtempSync(join(tmpdir(), "meshflow-settle-")), "prd.json");
    writeFileSync(file, `${JSON.stringify({ userStories: [story("B")] }, null, 2)}\n`);
    const { missing, error } = settleMarks(file, [mark]);
    expect(missing).toEqual([mark]);
    expect(String(error)).toContain(`${file}: "A" no longer in userStories`);
  });
});
