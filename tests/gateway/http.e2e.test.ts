import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  codeOf,
  dataOf,
  type GatewayFixture,
  gatewayFixture,
  type HttpFlow,
  startHttpFlow,
  textOf,
  until,
} from "../helpers/flowServe.js";
import { runFlow } from "../helpers/runFlow.js";

const TOKEN = "test-serve-token-9f8e7d6c5b4a";
const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "1" } },
};

let fx: GatewayFixture;
let flow: HttpFlow;
beforeAll(async () => {
  fx = gatewayFixture();
  flow = await startHttpFlow([], { cwd: fx.dir, env: { FLOW_SERVE_TOKEN: TOKEN } });
});
afterAll(async () => {
  const code = await flow?.stop();
  expect(code).toBe(0);
  fx?.cleanup();
});

/** A raw POST with any headers, Host included (fetch does not let a caller set Host). */
function rawPost(
  headers: Record<string, string>,
  body: unknown = initialize,
): Promise<{ status: number; body: string }> {
  const url = new URL(flow.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      },
      (res) => {
        let text = "";
        res.on("data", (d: Buffer) => {
          text += d.toString("utf8");
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

/** A raw POST to the gateway, as any HTTP client would send it. */
function post(headers: Record<string, string>, body: unknown = initialize, url = flow.url): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body),
  });
}

describe("flow serve --http", () => {
  it("serves an SDK client that sends the bearer token: list, call, confirm", async () => {
    const s = await flow.connect("cline", TOKEN);
    try {
      const names = await s.names();
      expect(names.length).toBeLessThanOrEqual(40);
      expect(names).toContain("everything__echo");
      expect(textOf(await s.call("everything__echo", { message: "over http" }))).toBe("Echo: over http");
      // filesystem does not fit in the default 40 tools beside everything and memory: this session adds it.
      expect(dataOf(await s.call("enable_toolset", { name: "filesystem" })).status).toBe("enabled");
      const args = { path: `${fx.files}/http.txt`, content: "via http" };
      const refused = await s.call("filesystem__write_file", args);
      expect(codeOf(refused)).toBe("confirmation_required");
      const token = (dataOf(refused).error as { confirmationToken: string }).confirmationToken;
      const ok = await s.call("filesystem__write_file", { ...args, confirmation_token: token });
      expect(ok.isError).toBeFalsy();
    } finally {
      await s.close();
    }
  });

  it("answers 401 without the token or with a wrong one", async () => {
    const missing = await post({});
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toBe('Bearer realm="meshflow"');
    expect(await missing.text()).toContain("unauthorized");
    expect((await post({ authorization: `Bearer ${TOKEN}x` })).status).toBe(401);
    expect((await post({ authorization: TOKEN })).status).toBe(401);
    await expect(flow.connect("cursor")).rejects.toThrow(/unauthorized/);
    expect(flow.stderr()).toContain("HTTP 401 for 127.0.0.1");
    expect(flow.stderr()).not.toContain(TOKEN);
  });

  it("refuses other hosts and origins (DNS rebinding) before looking at the token", async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const evilHost = await rawPost({ ...auth, host: "attacker.example:80" });
    expect(evilHost.status).toBe(403);
    expect(evilHost.body).toContain('Host \\"attacker.example:80\\" is not allowed');
    // A rebinding page has neither the token nor a local Host: the Host check answers first.
    expect((await rawPost({ host: "attacker.example" })).status).toBe(403);
    const evilOrigin = await post({ ...auth, origin: "http://attacker.example" });
    expect(evilOrigin.status).toBe(403);
    const local = await post({ ...auth, origin: new URL(flow.url).origin });
    expect(local.status).toBe(200);
    await local.body?.cancel();
  });

  it("has one endpoint and needs a session for anything but initialize", async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect((await post(auth, initialize, flow.url.replace("/mcp", "/other"))).status).toBe(404);
    const notInit = await post(auth, { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
    expect(notInit.status).toBe(400);
    const unknown = await post(
      { ...auth, "mcp-session-id": "no-such-session" },
      { jsonrpc: "2.0", id: 3, method: "tools/list" },
    );
    expect(unknown.status).toBe(404);
  });

  it("keeps sessions apart: enabling a toolset notifies only that session", async () => {
    const a = await flow.connect("cline", TOKEN);
    const b = await flow.connect("gemini-cli", TOKEN);
    try {
      expect(dataOf(await a.call("enable_toolset", { name: "filesystem" })).status).toBe("enabled");
      expect(await until(() => a.listChanged() > 0)).toBe(true);
      expect((await a.names()).some((n) => n.startsWith("filesystem__"))).toBe(true);
      expect((await b.names()).some((n) => n.startsWith("filesystem__"))).toBe(false);
      expect(b.listChanged()).toBe(0);
      const sessions = dataOf(await a.call("flow_diagnose")).sessions as { client: string }[];
      expect(sessions.map((x) => x.client)).toEqual(expect.arrayContaining(["cline", "gemini-cli"]));
      expect(JSON.stringify(await a.call("flow_diagnose"))).not.toContain(TOKEN);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("shares the guard across sessions: an emergency stop in one locks the others", async () => {
    const a = await flow.connect("cline", TOKEN);
    const b = await flow.connect("claude-code", TOKEN);
    try {
      await a.call("flow_emergency_stop", { reason: "stop everyone" });
      const refused = await b.call("everything__echo", { message: "x" });
      expect(codeOf(refused)).toBe("guard_locked");
      // claude-code reads annotations: unlock needs no token there.
      expect(dataOf(await b.call("flow_emergency_unlock")).locked).toBe(false);
      expect(textOf(await a.call("everything__echo", { message: "y" }))).toBe("Echo: y");
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe("flow serve --http binding", () => {
  it("refuses a non-loopback address without FLOW_SERVE_TOKEN", async () => {
    const result = await runFlow(["serve", "--http", "0.0.0.0:0"], { cwd: fx.dir, env: { FLOW_SERVE_TOKEN: "" } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("flow: refusing to serve on 0.0.0.0 without a token: set FLOW_SERVE_TOKEN");
  });

  // Regression: a one-character or whitespace token was accepted for a non-loopback bind.
  it.each([["x"], ["                    "], ["a b c d e f g h i j k l m n o"]])(
    "refuses a non-loopback address with a weak token %j (exit 2, says how many characters are needed)",
    async (weak) => {
      const result = await runFlow(["serve", "--http", "0.0.0.0:0"], { cwd: fx.dir, env: { FLOW_SERVE_TOKEN: weak } });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("refusing to serve on 0.0.0.0 with a weak token");
      expect(result.stderr).toContain("at least 16 are needed");
    },
  );

  // The loopback warning counted every character (white space too) and did not say the rule the
  // non-loopback refusal applies; both now count non-space characters against the same minimum.
  it("serves loopback with a weak token, warning with the rule a non-loopback bind enforces", async () => {
    const weak = "  abc def  ";
    const served = await startHttpFlow(["--toolsets", "everything"], { cwd: fx.dir, env: { FLOW_SERVE_TOKEN: weak } });
    try {
      expect(served.stderr()).toContain(
        "warning: FLOW_SERVE_TOKEN has 6 non-space characters; at least 16 are needed to serve beyond loopback",
      );
      expect(served.stderr()).toContain("(bearer token required)");
    } finally {
      expect(await served.stop()).toBe(0);
    }
  });

  it("serves loopback without a token, and says so", async () => {
    const open = await startHttpFlow(["--toolsets", "everything"], { cwd: fx.dir });
    try {
      expect(open.stderr()).toContain("(no token: loopback only)");
      const s = await open.connect("cline");
      expect(textOf(await s.call("everything__echo", { message: "open" }))).toBe("Echo: open");
    } finally {
      expect(await open.stop()).toBe(0);
    }
  });

  it("rejects a malformed --http address as a usage error", async () => {
    const result = await runFlow(["serve", "--http", "localhost:http"], { cwd: fx.dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--http "localhost:http": "http" is not a port number');
  });
});
