/** The servers of a step: the fewest that cover the most of `needs`, greedily, ties in config order. */
export function chooseServers(
  needs: readonly string[],
  offered: ReadonlyMap<string, ReadonlySet<string>>,
): { servers: string[]; missing: string[] } {
  const remaining = new Set(needs);
  const servers: string[] = [];
  for (;;) {
    let best: string | undefined;
    let bestCount = 0;
    for (const [server, capabilities] of offered) {
      if (servers.includes(server)) continue;
      const count = [...remaining].filter((c) => capabilities.has(c)).length;
      if (count > bestCount) {
        best = server;
        bestCount = count;
      }
    }
    if (!best) break;
    servers.push(best);
    for (const c of offered.get(best) ?? []) remaining.delete(c);
  }
  return { servers, missing: needs.filter((c) => remaining.has(c)) };
}
