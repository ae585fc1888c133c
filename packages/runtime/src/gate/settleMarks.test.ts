import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type PassMark, settleMarks } from "./settleMarks.js";

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

function file(text: string, mode = 0o640): string {
  const path = join(mkdtempSync(join(tmpdir(), "meshflow-prd-")), "prd.json");
  writeFileSync(path, text, { mode });
  return path;
}

/** Marks as `flow mark` does: watched only when some were missing at the first look. */
function marked(path: string, marks: PassMark[]): { missing: string[]; marked: string[]; error?: string } {
  const settled = settleMarks(path, marks, { alwaysWatch: false });
  const ids = (list: PassMark[]) => list.map((m) => m.storyId);
  return {
    missing: ids(settled.missing),
    marked: ids(settled.marked),
    ...(settled.error !== undefined && { error: String(settled.error) }),
  };
}

describe("settleMarks on a PRD nobody else saves", () => {
  it("changes only passes and notes, keeping tabs, CRLF, key order, unknown fields and the file mode", () => {
    const text =
      '{\r\n\t"userStories": [\r\n\t\t{"zeta": 1, "id": "A", "notes": "earlier", "passes": false, "x": {"passes": false}},\r\n' +
      '\t\t{"id": "B", "passes": false, "notes": ""}\r\n\t],\r\n\t"trailer": "é ✓"\r\n}\r\n';
    const path = file(text);
    expect(marked(path, [{ storyId: "A", note: "Passed in run r1." }])).toEqual({ missing: [], marked: ["A"] });
    expect(readFileSync(path, "utf8")).toBe(
      text.replace('"notes": "earlier", "passes": false', '"notes": "earlier Passed in run r1.", "passes": true'),
    );
    expect(statSync(path).mode & 0o777).toBe(0o640);
  });

  it("is idempotent and inserts missing fields with the file's indentation", () => {
    const text = '{\n    "userStories": [\n        {\n            "id": "A"\n        }\n    ]\n}\n';
    const path = file(text);
    marked(path, [{ storyId: "A", note: "n1" }]);
    const once = readFileSync(path, "utf8");
    expect(JSON.parse(once).userStories[0]).toEqual({ id: "A", passes: true, notes: "n1" });
    expect(once).toContain('\n            "passes": true');
    expect(marked(path, [{ storyId: "A", note: "n1" }])).toEqual({ missing: [], marked: [] });
    expect(readFileSync(path, "utf8")).toBe(once);
    // Set back to not passed by hand, its note kept: passed again, the note not repeated.
    writeFileSync(path, once.replace('"passes": true', '"passes": false'));
    marked(path, [{ storyId: "A", note: "n1" }]);
    expect(readFileSync(path, "utf8")).toBe(once);
  });

  it("refuses a story that is no longer in the PRD, leaving the file untouched", () => {
    const text = '{"userStories": [{"id": "A", "passes": false, "notes": ""}]}';
    const path = file(text);
    expect(marked(path, [{ storyId: "Z", note: "n" }]).error).toMatch(/"Z" no longer in userStories/);
    expect(readFileSync(path, "utf8")).toBe(text);
  });
});
