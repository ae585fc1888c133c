import { describe, expect, it } from "vitest";
import { isLoopbackHost, parseListenAddress } from "./listenAddress.js";

describe("parseListenAddress", () => {
  it.each([
    ["127.0.0.1:8766", { host: "127.0.0.1", port: 8766 }],
    ["localhost:0", { host: "localhost", port: 0 }],
    ["[::1]:8766", { host: "::1", port: 8766 }],
    [":9000", { host: "127.0.0.1", port: 9000 }],
    ["9000", { host: "127.0.0.1", port: 9000 }],
    ["0.0.0.0:80", { host: "0.0.0.0", port: 80 }],
  ])("reads %s", (text, expected) => {
    expect(parseListenAddress(text)).toEqual(expected);
  });

  it.each([
    ["host:http", '"http" is not a port number'],
    ["::1:80", "write an IPv6 address in brackets"],
    ["[nope]:80", '"nope" is not an IPv6 address'],
    ["1.2.3.4:70000", "port 70000 is above 65535"],
  ])("refuses %s", (text, why) => {
    expect(() => parseListenAddress(text)).toThrow(why);
  });
});

describe("isLoopbackHost", () => {
  it("knows which addresses only this machine reaches", () => {
    for (const host of ["127.0.0.1", "127.8.9.10", "localhost", "::1", "[::1]", "::ffff:127.0.0.1"])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ["0.0.0.0", "::", "192.168.1.2", "10.0.0.1", "example.com", "128.0.0.1"])
      expect(isLoopbackHost(host), host).toBe(false);
  });
});
