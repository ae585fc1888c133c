import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A real `redis-server` child process on a loopback port, owned by a test. */
export interface RedisServer {
  url: string;
  port: number;
  /** Graceful stop (SIGTERM), waits for exit. */
  stop(): Promise<void>;
  /** SIGKILL, waits for exit (for fault tests). */
  kill(): Promise<void>;
  /** Starts the server again on the same port and data folder (after stop or kill). */
  restart(): Promise<void>;
}

/** Options for {@link startRedisServer}. */
export interface RedisServerOptions {
  /** Turn on AOF persistence (for restart tests); off by default. */
  appendOnly?: boolean;
  port?: number;
  /** More `redis-server` arguments (`["--appendfsync", "always"]`). */
  args?: string[];
}

/** A free TCP port on 127.0.0.1 (the OS picks it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Sends one inline command over a raw socket and resolves to the first `lines` reply lines joined by
 * newlines (`+PONG`; `CONFIG GET x` needs 5 lines), or rejects.
 */
export function redisCommand(port: number, command: string, timeoutMs = 1_000, lines = 1): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`redis on port ${port} did not answer "${command}" within ${timeoutMs} ms`));
    }, timeoutMs);
    let buffer = "";
    socket.on("data", (chunk) => {
      buffer += chunk.toString("utf8");
      const parts = buffer.split("\r\n");
      if (parts.length > lines) {
        clearTimeout(timer);
        socket.end();
        resolve(parts.slice(0, lines).join("\n"));
      }
    });
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.connect(port, "127.0.0.1", () => socket.write(`${command}\r\n`));
  });
}

function assertRedisInstalled(): void {
  const probe = spawnSync("redis-server", ["--version"], { encoding: "utf8" });
  if (probe.error || probe.status !== 0)
    throw new Error(
      "redis-server is not on PATH: the test suite starts its own Redis. Install Debian's package " +
        "(apt-get install -y redis-server) or run scripts/ensure-redis-server.",
    );
}

async function waitForPing(port: number, child: ChildProcess, deadlineMs: number): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server on port ${port} exited with code ${child.exitCode}`);
    try {
      // A server with --requirepass answers NOAUTH: it is up all the same.
      const reply = await redisCommand(port, "PING", 250);
      if (reply === "+PONG" || reply.startsWith("-NOAUTH")) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer PING`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once("exit", () => resolve()));
}

/**
 * Starts `redis-server --port <free> --bind 127.0.0.1 --save '' --maxmemory-policy noeviction`
 * in a temporary folder and waits until it answers PING.
 */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  assertRedisInstalled();
  const dir = mkdtempSync(join(tmpdir(), "meshflow-redis-"));
  const port = options.port ?? (await freePort());
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--maxmemory-policy",
    "noeviction",
    "--dir",
    dir,
    "--appendonly",
    options.appendOnly ? "yes" : "no",
    "--protected-mode",
    "yes",
    ...(options.args ?? []),
  ];
  let child!: ChildProcess;
  const launch = async () => {
    child = spawn("redis-server", args, { stdio: "ignore" });
    await waitForPing(port, child, 10_000);
  };
  await launch();
  let removed = false;
  const cleanup = () => {
    if (!removed) rmSync(dir, { recursive: true, force: true });
    removed = true;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      child.kill("SIGTERM");
      await exited(child);
      cleanup();
    },
    async kill() {
      child.kill("SIGKILL");
      await exited(child);
    },
    async restart() {
      await launch();
    },
  };
}
