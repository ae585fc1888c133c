import { useEffect, useState } from "preact/hooks";

/** An error the API answered with (`{ error: { code, message } }`). */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Calls the console's JSON API; non-2xx answers become an ApiError with the server's message. */
export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const res = await fetch(path, {
    method: init.method ?? "GET",
    headers: init.body !== undefined || init.method ? { "content-type": "application/json" } : {},
    ...(init.body !== undefined || init.method ? { body: JSON.stringify(init.body ?? {}) } : {}),
    credentials: "same-origin",
  });
  const data = (await res.json().catch(() => ({}))) as { error?: { code: string; message: string } };
  if (!res.ok) throw new ApiError(data.error?.code ?? String(res.status), data.error?.message ?? res.statusText);
  return data as T;
}

type Listener = (event: string, data: { changed?: unknown }) => void;
const listeners = new Set<Listener>();
let source: EventSource | undefined;
let connected = false;
const statusListeners = new Set<(up: boolean) => void>();

function ensureStream(): void {
  if (source) return;
  source = new EventSource("/api/stream");
  source.onopen = () => {
    connected = true;
    for (const l of statusListeners) l(true);
  };
  source.onerror = () => {
    connected = false;
    for (const l of statusListeners) l(false);
  };
  for (const name of ["runs", "console"])
    source.addEventListener(name, (e) => {
      const data = JSON.parse((e as MessageEvent<string>).data) as { changed?: unknown };
      for (const l of listeners) l(name, data);
    });
}

/** Calls `listener` for every live event (`runs`, `console`) while the component is mounted. */
export function useLive(listener: Listener): void {
  useEffect(() => {
    ensureStream();
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }, [listener]);
}

/** Whether the live stream is connected. */
export function useLiveStatus(): boolean {
  const [up, setUp] = useState(connected);
  useEffect(() => {
    ensureStream();
    statusListeners.add(setUp);
    return () => {
      statusListeners.delete(setUp);
    };
  }, []);
  return up;
}

/** Loads `path` and reloads it when `reload()` is called; keeps the last data while reloading. */
export function useApi<T>(path: string): {
  data: T | undefined;
  error: ApiError | undefined;
  reload: () => void;
} {
  const [state, setState] = useState<{ data: T | undefined; error: ApiError | undefined; path: string }>({
    data: undefined,
    error: undefined,
    path,
  });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    api<T>(path).then(
      (data) => live && setState({ data, error: undefined, path }),
      (error: unknown) =>
        live &&
        setState((s) => ({
          data: s.path === path ? s.data : undefined,
          error: error instanceof ApiError ? error : new ApiError("internal", String(error)),
          path,
        })),
    );
    return () => {
      live = false;
    };
  }, [path, tick]);
  return {
    data: state.path === path ? state.data : undefined,
    error: state.path === path ? state.error : undefined,
    reload: () => setTick((t) => t + 1),
  };
}

/** `1.2 s`, `340 ms`, `3 min`. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

const NUMBER = new Intl.NumberFormat("en");
const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: "short", timeStyle: "medium" });
const TIME = new Intl.DateTimeFormat(undefined, { timeStyle: "medium" });

/** `12,345` (one formatter for every cell: creating one per call dominates a long list's render). */
export const num = (n: number): string => NUMBER.format(n);

/** `1 story`, `3 stories`: a count with its noun in the right number (`many` for irregular plurals). */
export const plural = (n: number, one: string, many = `${one}s`): string => `${num(n)} ${n === 1 ? one : many}`;

/** A date and time in the reader's locale. */
export const dateTime = (iso: string): string => DATE_TIME.format(new Date(iso));

/** A time of day in the reader's locale. */
export const timeOfDay = (iso: string): string => TIME.format(new Date(iso));
