// Loaded with `node --import` into a measured process: at exit it appends the process's peak RSS
// (kB) to the file named by MESHFLOW_BENCH_RSS_FILE, so a whole `flow` process reports its own peak.
import { appendFileSync } from "node:fs";

const file = process.env.MESHFLOW_BENCH_RSS_FILE;
if (file) process.on("exit", () => appendFileSync(file, `${process.resourceUsage().maxRSS}\n`));
