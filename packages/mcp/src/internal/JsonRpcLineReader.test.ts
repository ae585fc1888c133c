import { describe, expect, it } from "vitest";
import { JsonRpcLineReader } from "./JsonRpcLineReader.js";

describe("JsonRpcLineReader", () => {
  it("gives one message per line, across chunks and CRLF line ends", () => {
    const reader = new JsonRpcLineReader();
    const text =
      '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"é"}]}}\r\n' +
      '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n' +
      '{"jsonrpc":"2.0","id":"b","error":{"code":-32602,"message":"bad"}}\n';
    const bytes = Buffer.from(text);
    const messages = [];
    for (let at = 0; at < bytes.length; at += 7) {
      reader.append(bytes.subarray(at, at + 7));
      for (let m = reader.readMessage(); m; m = reader.readMessage()) messages.push(m);
    }
    expect(messages).toEqual(
      text
        .trim()
        .split(/\r?\n/)
        .map((line) => JSON.parse(line)),
    );
  });

  it("checks requests and notifications, and anything not a well-formed response, against the SDK's schema", () => {
    const reader = new JsonRpcLineReader();
    for (const line of [
      '{"jsonrpc":"2.0","method":5}', // a method that is not a string
      '{"jsonrpc":"1.0","id":1,"result":{}}',
      '{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}',
      "[1,2]",
    ]) {
      reader.append(Buffer.from(`${line}\n`));
      expect(() => reader.readMessage(), line).toThrow();
    }
    reader.append(Buffer.from("not json\n"));
    expect(() => reader.readMessage()).toThrow(SyntaxError);
    expect(reader.readMessage()).toBeNull();
  });

  it("refuses a buffer past its limit, as the SDK's does", () => {
    const reader = new JsonRpcLineReader(10);
    expect(() => reader.append(Buffer.alloc(11))).toThrow(/exceeded maximum size of 10 bytes/);
  });
});
