/** What the hover card shows, and where (the pointer's client coordinates). */
export interface Hovered {
  x: number;
  y: number;
  title: string;
  lines: string[];
}

/** A card beside the pointer with a bar's or an edge's details. */
export function HoverCard({ x, y, title, lines }: Hovered) {
  const left = Math.min(x + 14, window.innerWidth - 340);
  return (
    <div class="hover-card" role="tooltip" style={{ left: `${left}px`, top: `${y + 14}px` }}>
      <strong>{title}</strong>
      {lines.map((l, i) => (
        <div key={i}>{l}</div>
      ))}
    </div>
  );
}

/** Offsets (ms from the start) of about six round ticks over `width` ms. */
export function axisTicks(width: number): number[] {
  const rough = width / 6;
  const power = 10 ** Math.floor(Math.log10(Math.max(rough, 1)));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? power * 10;
  const ticks: number[] = [];
  for (let t = 0; t <= width; t += step) ticks.push(t);
  return ticks;
}
