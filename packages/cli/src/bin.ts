#!/usr/bin/env node
import { main } from "./main.js";
import { tracingAbandoned } from "./tracing.js";

// A reader that stops early (`flow plan … | head`) closes the pipe; that is not an error of ours.
for (const stream of [process.stdout, process.stderr])
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });

process.exitCode = await main(process.argv);

if (tracingAbandoned()) {
  // The traces' exporter still retries an endpoint that is down, on timers the process would wait
  // for (up to 10 s after the work ended): end now, once what was printed is written.
  const code = process.exitCode;
  await Promise.all([process.stdout, process.stderr].map((stream) => new Promise((done) => stream.write("", done))));
  process.exit(code);
}
