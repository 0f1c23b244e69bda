/** The `SHOW GLOBAL STATUS` variables the load score reads. */
export const STATUS_VARIABLES = ['Threads_running', 'Threads_connected', 'Innodb_data_reads'] as const;

/** One sampling statement per node every refresh: the status counters and `max_connections`. */
export const LOAD_SAMPLE_SQL =
  "SELECT VARIABLE_NAME AS name, VARIABLE_VALUE AS value FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME IN ('THREADS_RUNNING', 'THREADS_CONNECTED', 'INNODB_DATA_READS') " +
  "UNION ALL SELECT 'MAX_CONNECTIONS', @@global.max_connections";

/** The server-side counters of one sample. */
export interface StatusSample {
  /** When it was taken (the clock's milliseconds). */
  readonly at: number;
  readonly threadsRunning: number;
  readonly threadsConnected: number;
  readonly maxConnections: number;
  /** `Innodb_data_reads`: physical reads since start-up (a counter). */
  readonly dataReads: number;
}

/** Reads the rows of `LOAD_SAMPLE_SQL` (names in any case). Undefined when a value is missing. */
export function readStatusSample(rows: readonly unknown[], at: number): StatusSample | undefined {
  const values = new Map<string, number>();
  for (const row of rows) {
    const r = row as { name?: unknown; value?: unknown };
    if (typeof r.name === 'string') values.set(r.name.toUpperCase(), Number(r.value));
  }
  const get = (name: string) => values.get(name);
  const threadsRunning = get('THREADS_RUNNING');
  const threadsConnected = get('THREADS_CONNECTED');
  const maxConnections = get('MAX_CONNECTIONS');
  const dataReads = get('INNODB_DATA_READS');
  if ([threadsRunning, threadsConnected, maxConnections, dataReads].some((v) => v === undefined || !Number.isFinite(v))) return undefined;
  return { at, threadsRunning: threadsRunning!, threadsConnected: threadsConnected!, maxConnections: maxConnections!, dataReads: dataReads! };
}

/** Physical reads per second between two samples (0 for the first sample or a restarted server). */
export function readsPerSecond(previous: StatusSample | undefined, current: StatusSample): number {
  if (previous === undefined) return 0;
  const seconds = (current.at - previous.at) / 1000;
  const delta = current.dataReads - previous.dataReads;
  return seconds > 0 && delta > 0 ? delta / seconds : 0;
}
