/**
 * Inserts `item` into `items` where its sequence number puts it, `seqs` holding the sequence number of
 * each item: calls run side by side (a model's reads) end in any order, and their evidence keeps the
 * order they were asked for in. Appending, the common case, costs one comparison.
 */
export function insertBySeq<T>(items: T[], seqs: number[], seq: number, item: T): void {
  let at = items.length;
  while (at > 0 && (seqs[at - 1] ?? 0) > seq) at--;
  items.splice(at, 0, item);
  seqs.splice(at, 0, seq);
}
