import { MeshflowError } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { redisCause, redisFailure } from "./redisFailure.js";

const errno = (message: string, code: string) => Object.assign(new Error(message), { code });
const reply = (message: string) => Object.assign(new Error(message), { name: "ReplyError" });

describe("redisCause", () => {
  it("names the cause a person acts on, with the server's words", () => {
    expect(redisCause(errno("connect ECONNREFUSED 127.0.0.1:1", "ECONNREFUSED"))).toBe(
      "connection refused (connect ECONNREFUSED 127.0.0.1:1)",
    );
    expect(redisCause(reply("WRONGPASS invalid username-password pair"))).toMatch(/^authentication failed/);
    expect(redisCause(reply("NOAUTH Authentication required."))).toMatch(/^authentication required/);
    expect(redisCause(reply("CLUSTERDOWN Hash slot not served"))).toMatch(/^the cluster is down/);
    expect(redisCause(new Error("something else"))).toBe("something else");
  });
});

describe("redisFailure", () => {
  it("turns a Redis error into redis_unavailable naming the URL; leaves other errors alone", () => {
    const failure = redisFailure(new Error("Connection is closed."), "redis://:***@host:6379");
    expect(failure).toMatchObject({
      code: "redis_unavailable",
      message: "Redis at redis://:***@host:6379: Connection is closed.",
    });
    const mine = new MeshflowError("usage", "no");
    expect(redisFailure(mine, "x")).toBe(mine);
    const other = new TypeError("a bug");
    expect(redisFailure(other, "x")).toBe(other);
  });
});
