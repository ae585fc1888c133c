import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { processAlive } from "./processAlive.js";

describe("processAlive", () => {
  it("is true for a running process and false for no pid or one that ended", async () => {
    expect(processAlive(process.pid)).toBe(true);
    expect(processAlive(0)).toBe(false);
    expect(processAlive(-1)).toBe(false);
    const child = spawn(process.execPath, ["-e", ""]);
    await once(child, "exit");
    expect(processAlive(child.pid as number)).toBe(false);
  });

  it.runIf(process.platform === "linux")(
    "is false for a zombie: a process that exited and was not reaped",
    async () => {
      // `sh` starts a short child, then becomes `sleep`, which never reaps it: the child stays a zombie
      // until the test kills its parent (a parent that exited by itself would hand it to init, which reaps it).
      const parent = spawn("sh", ["-c", "sleep 0 & echo $!; exec sleep 60"], { stdio: ["ignore", "pipe", "ignore"] });
      try {
        const [chunk] = (await once(parent.stdout, "data")) as [Buffer];
        const pid = Number(chunk.toString().trim());
        const state = () => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.charAt(0);
        for (let i = 0; i < 100 && state() !== "Z"; i++) await new Promise((r) => setTimeout(r, 20));
        expect(state()).toBe("Z");
        expect(processAlive(pid)).toBe(false);
      } finally {
        parent.kill("SIGKILL");
      }
    },
  );
});
