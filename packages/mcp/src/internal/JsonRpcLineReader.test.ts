import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { JsonRpcLineReader, type OversizedMessage } from "./JsonRpcLineReader.js";

function reader(maxBytes?: number) {
  const messages: JSONRPCMessage[] = [];
  const oversized: OversizedMessage[] = [];
  const noise: string[] = [];
  const r = new JsonRpcLineReader(
    {
      onMessage: (m) => messages.push(m),
      onOversized: (m) => oversized.push(m),
      onNoise: (line) => noise.push(line),
    },
    maxBytes,
  );
  return { r, messages, oversized, noise };
}

describe("JsonRpcLineReader", () => {
  it("gives one message per line, across chunks and CRLF line ends", () => {
    const { r, messages } = reader();
    const text =
      '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"é"}]}}\r\n' +
      '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n' +
      '{"jsonrpc":"2.0","id":"b","error":{"code":-32602,"message":"bad"}}\n';
    const bytes = Buffer.from(text);
    for (let at = 0; at < bytes.length; at += 7) r.push(bytes.subarray(at, at + 7));
    expect(messages).toEqual(
      text
        .trim()
        .split(/\r?\n/)
        .map((line) => JSON.parse(line)),
    );
  });

  it("reports lines that are not JSON-RPC messages as noise and goes on", () => {
    const { r, messages, noise } = reader();
    for (const line of [
      '{"jsonrpc":"2.0","method":5}', // a method that is not a string
      '{"jsonrpc":"1.0","id":1,"result":{}}',
      '{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}',
      "[1,2]",
      "not json",
    ])
      r.push(Buffer.from(`${line}\n`));
    r.push(Buffer.from('{"jsonrpc":"2.0","id":2,"result":{}}\n'));
    expect(noise).toHaveLength(5);
    expect(messages).toEqual([{ jsonrpc: "2.0", id: 2, result: {} }]);
  });

  // Regression: the reader threw "ReadBuffer exceeded maximum size" from the stream's data handler,
  // an uncaught exception that ended the whole process.
  it("drops a message over the limit, names its id from either end, and reads the next one", () => {
    const { r, messages, oversized } = reader(100);
    const big = "x".repeat(1000);
    const sdkOrder = `{"result":{"content":[{"type":"text","text":"${big}"}]},"jsonrpc":"2.0","id":7}\n`;
    for (let at = 0; at < sdkOrder.length; at += 33) r.push(Buffer.from(sdkOrder.slice(at, at + 33)));
    const idFirst = `{"jsonrpc":"2.0","id":"q","result":{"t":"${big}"}}`;
    r.push(Buffer.from(`${idFirst}\n`));
    r.push(Buffer.from(`${big}\n`));
    r.push(Buffer.from('{"jsonrpc":"2.0","id":8,"result":{}}\n'));
    expect(oversized).toEqual([
      { bytes: sdkOrder.length - 1, limit: 100, id: 7 },
      { bytes: idFirst.length, limit: 100, id: "q" },
      { bytes: big.length, limit: 100 },
    ]);
    expect(messages).toEqual([{ jsonrpc: "2.0", id: 8, result: {} }]);
  });
});
