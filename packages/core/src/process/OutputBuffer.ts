/**
 * Keeps the first or the last `limit` bytes written to it and counts everything: capped output without
 * unbounded memory. Command output keeps its tail (failures show at the end); a diff keeps its head.
 */
export class OutputBuffer {
  private chunks: Buffer[] = [];
  private kept = 0;
  /** Every byte written, kept or not. */
  total = 0;

  constructor(
    private readonly limit: number,
    private readonly keep: "head" | "tail" = "tail",
  ) {}

  write(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.keep === "head") {
      const room = this.limit - this.kept;
      if (room <= 0) return;
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      this.chunks.push(part);
      this.kept += part.length;
      return;
    }
    this.chunks.push(chunk);
    this.kept += chunk.length;
    while (this.kept > this.limit && this.chunks.length > 0) {
      const first = this.chunks[0] as Buffer;
      const excess = this.kept - this.limit;
      if (first.length <= excess) {
        this.chunks.shift();
        this.kept -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.kept -= excess;
      }
    }
  }

  /** True when bytes were dropped. */
  get truncated(): boolean {
    return this.total > this.kept;
  }

  /** The kept bytes as UTF-8; a character cut in half at the cut is dropped. */
  text(): string {
    const text = Buffer.concat(this.chunks).toString("utf8");
    if (!this.truncated) return text;
    return this.keep === "tail" ? text.replace(/^\uFFFD+/, "") : text.replace(/\uFFFD+$/, "");
  }
}
