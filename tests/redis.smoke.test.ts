import { describe, expect, inject, it } from "vitest";
import { redisCommand } from "./helpers/redisServer.js";

describe("test harness redis-server", () => {
  it("answers PING on the port the global setup started it on", async () => {
    const port = Number(new URL(inject("redisUrl")).port);
    expect(port).toBeGreaterThan(0);
    expect(await redisCommand(port, "PING")).toBe("+PONG");
  });

  it("runs with the settings queued runs rely on (noeviction, no RDB snapshots)", async () => {
    const port = Number(new URL(inject("redisUrl")).port);
    // CONFIG GET answers with a RESP array: *2, then the key and the value as bulk strings.
    expect(await redisCommand(port, "CONFIG GET maxmemory-policy", 1_000, 5)).toBe(
      "*2\n$16\nmaxmemory-policy\n$10\nnoeviction",
    );
    expect(await redisCommand(port, "CONFIG GET save", 1_000, 5)).toBe("*2\n$4\nsave\n$0\n");
  });
});
