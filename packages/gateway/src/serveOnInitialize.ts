import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  type InitializeRequest,
  isInitializeRequest,
  type JSONRPCMessage,
  type MessageExtraInfo,
} from "@modelcontextprotocol/sdk/types.js";

/** Hands an already started transport to a server: `start` does nothing, the rest is forwarded. */
class StartedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  constructor(private readonly inner: Transport) {}

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  async start(): Promise<void> {}

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** A connection served by {@link serveOnInitialize}. */
export interface ServedConnection {
  /** Resolves when the transport closes (the client went away, or {@link close}). */
  closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts `transport` and waits for the client's `initialize` request; `open` then builds the
 * server for that client (its mode, tools and instructions depend on the request), which is
 * connected and handed the request and anything that arrived meanwhile. A request before
 * `initialize` is answered with an error.
 */
export async function serveOnInitialize(
  transport: Transport,
  open: (params: InitializeRequest["params"]) => McpServer | Promise<McpServer>,
): Promise<ServedConnection> {
  const forward = new StartedTransport(transport);
  let server: McpServer | undefined;
  /** Messages that arrive while the server is being built and connected. */
  let queued: [JSONRPCMessage, MessageExtraInfo | undefined][] | undefined;
  let markClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  const refuse = (message: JSONRPCMessage, code: number, text: string) => {
    if ("id" in message && "method" in message)
      void transport.send({ jsonrpc: "2.0", id: message.id, error: { code, message: text } }).catch(() => undefined);
  };

  transport.onmessage = (message, extra) => {
    if (server && !queued) {
      forward.onmessage?.(message, extra);
      return;
    }
    if (queued) {
      queued.push([message, extra]);
      return;
    }
    if (!isInitializeRequest(message)) {
      refuse(message, ErrorCode.InvalidRequest, "the server is not initialized: send initialize first");
      return;
    }
    queued = [[message, extra]];
    Promise.resolve()
      .then(() => open(message.params))
      .then(async (built) => {
        server = built;
        await built.connect(forward);
        const pending = queued ?? [];
        queued = undefined;
        for (const [m, e] of pending) forward.onmessage?.(m, e);
      })
      .catch((error: unknown) => {
        queued = undefined;
        server = undefined;
        refuse(message, ErrorCode.InternalError, error instanceof Error ? error.message : String(error));
      });
  };
  transport.onclose = () => {
    forward.onclose?.();
    markClosed();
  };
  transport.onerror = (error) => forward.onerror?.(error);
  await transport.start();
  return {
    closed,
    close: async () => {
      if (server) await server.close();
      else await transport.close();
      markClosed();
    },
  };
}
