import { describe, expect, it } from "vitest";
import { redactRedisUrl } from "./connectRedis.js";
import { hashTagged, queueSettings } from "./QueueSettings.js";
import { parseRedisClusterUrl, redisClusterUrl } from "./redisClusterUrl.js";

describe("parseRedisClusterUrl", () => {
  it("reads the seed nodes, credentials and TLS of a cluster URL", () => {
    expect(parseRedisClusterUrl("redis+cluster://10.0.0.1:7000,10.0.0.2:7001")).toEqual({
      nodes: [
        { host: "10.0.0.1", port: 7000 },
        { host: "10.0.0.2", port: 7001 },
      ],
      tls: false,
    });
    expect(parseRedisClusterUrl("rediss+cluster://u:p%40ss@a:1")).toEqual({
      nodes: [{ host: "a", port: 1 }],
      username: "u",
      password: "p@ss",
      tls: true,
    });
  });

  it("names the node that is not host:port, never the password", () => {
    expect(() => parseRedisClusterUrl("redis+cluster://:secret@a:1,b:x")).toThrow(/"b:x" is not host:port/);
    expect(() => parseRedisClusterUrl("redis+cluster://:secret@a:1,b:x")).not.toThrow(/secret/);
    expect(redactRedisUrl("redis+cluster://user:secret@a:1,b:2")).toBe("redis+cluster://user:***@a:1,b:2");
  });

  it("turns --redis-cluster's node list into the URL --redis takes", () => {
    expect(redisClusterUrl("a:1,b:2")).toBe("redis+cluster://a:1,b:2");
    expect(redisClusterUrl("redis+cluster://a:1")).toBe("redis+cluster://a:1");
  });
});

describe("hashTagged", () => {
  it("puts every key of a prefix in one cluster slot, keeping a tag the user chose", () => {
    expect(hashTagged("meshflow:")).toBe("{meshflow}:");
    expect(hashTagged("team-a")).toBe("{team-a}:");
    expect(hashTagged("{mf}:batch:")).toBe("{mf}:batch:");
    expect(queueSettings({ prefix: "meshflow:" }, true).prefix).toBe("{meshflow}:");
    expect(queueSettings({ prefix: "meshflow:" }).prefix).toBe("meshflow:");
  });
});
