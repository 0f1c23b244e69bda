/** One MariaDB GTID: `domain-server-sequence`. Sequence numbers are ordered within a domain. */
export interface Gtid {
  readonly domain: number;
  readonly server: number;
  readonly sequence: number;
}

/**
 * A GTID position: the newest GTID per replication domain (MariaDB's `@@gtid_binlog_pos`,
 * `@@gtid_slave_pos`, `MASTER_GTID_WAIT`'s argument: `0-1-42,1-2-7`).
 */
export type GtidPosition = ReadonlyMap<number, Gtid>;

const GTID = /^(\d+)-(\d+)-(\d+)$/;

/** Parses a position; '' is the empty position. Throws a TypeError on anything else. */
export function parseGtidPosition(text: string): GtidPosition {
  const out = new Map<number, Gtid>();
  for (const part of text.split(',')) {
    const item = part.trim();
    if (item === '') continue;
    const m = GTID.exec(item);
    if (!m) throw new TypeError(`not a MariaDB GTID position: ${JSON.stringify(text)}`);
    const gtid = { domain: Number(m[1]), server: Number(m[2]), sequence: Number(m[3]) };
    const before = out.get(gtid.domain);
    if (before === undefined || gtid.sequence > before.sequence) out.set(gtid.domain, gtid);
  }
  return out;
}

/** `0-1-42,1-2-7`, domains in ascending order. */
export function formatGtidPosition(position: GtidPosition): string {
  return [...position.values()]
    .sort((a, b) => a.domain - b.domain)
    .map((g) => `${g.domain}-${g.server}-${g.sequence}`)
    .join(',');
}

/** Whether `applied` has reached `required` in every domain of `required`. */
export function coversPosition(applied: GtidPosition, required: GtidPosition): boolean {
  for (const [domain, need] of required) {
    const have = applied.get(domain);
    if (have === undefined || have.sequence < need.sequence) return false;
  }
  return true;
}

/** The newer of the two per domain. */
export function mergePositions(a: GtidPosition, b: GtidPosition): GtidPosition {
  const out = new Map(a);
  for (const [domain, g] of b) {
    const have = out.get(domain);
    if (have === undefined || g.sequence > have.sequence) out.set(domain, g);
  }
  return out;
}
