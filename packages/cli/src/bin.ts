#!/usr/bin/env node
import { main } from "./main.js";

// A reader that stops early (`flow plan … | head`) closes the pipe; that is not an error of ours.
for (const stream of [process.stdout, process.stderr])
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });

process.exitCode = await main(process.argv);
