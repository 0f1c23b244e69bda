/**
 * The routing hints of the article (§2.2.1, §3.3, §6.1, §6.3):
 * - `FORCE_MASTER`: run on the primary;
 * - `FORCE_SLAVE`: run on a replica even when the statement would otherwise go elsewhere
 *   (analytics shape, `defaultReads: 'primary'`); never for a write, a locking read or a
 *   statement inside a transaction, which stay on the primary (reported as overridden);
 * - `CONSISTENT_READ`: read-your-writes: a replica only once it has applied the writes the
 *   session made (GTID wait), else the primary;
 * - `ROUTE_STICKY`: the same node for the session (or, outside a session, for the statement
 *   shape) as long as it stays eligible, against routing jitter;
 * - `MASTER_ONLY`: on `BEGIN` / `START TRANSACTION`, the whole transaction on the primary.
 */
export type RoutingHintName = 'FORCE_MASTER' | 'FORCE_SLAVE' | 'CONSISTENT_READ' | 'ROUTE_STICKY' | 'MASTER_ONLY';

export const HINT_NAMES: readonly RoutingHintName[] = ['FORCE_MASTER', 'FORCE_SLAVE', 'CONSISTENT_READ', 'ROUTE_STICKY', 'MASTER_ONLY'];

/** A parsed, frozen set of hints. */
export interface RoutingHints {
  readonly forceMaster: boolean;
  readonly forceSlave: boolean;
  readonly consistentRead: boolean;
  readonly sticky: boolean;
  readonly masterOnly: boolean;
  /** Canonical text of the set (names in a fixed order, comma-separated); '' for none. Part of route-cache keys. */
  readonly key: string;
}

const FLAG: Readonly<Record<RoutingHintName, keyof Omit<RoutingHints, 'key'>>> = {
  FORCE_MASTER: 'forceMaster',
  FORCE_SLAVE: 'forceSlave',
  CONSISTENT_READ: 'consistentRead',
  ROUTE_STICKY: 'sticky',
  MASTER_ONLY: 'masterOnly',
};

const interned = new Map<string, RoutingHints>();

/** The hint set holding exactly `names` (interned: equal sets are the same object). */
export function hintSet(names: Iterable<RoutingHintName>): RoutingHints {
  const present = new Set(names);
  const key = HINT_NAMES.filter((n) => present.has(n)).join(',');
  let found = interned.get(key);
  if (!found) {
    const flags = { forceMaster: false, forceSlave: false, consistentRead: false, sticky: false, masterOnly: false };
    for (const n of present) flags[FLAG[n]] = true;
    found = Object.freeze({ ...flags, key });
    interned.set(key, found);
  }
  return found;
}

/** Names in a set. */
export function hintNames(hints: RoutingHints): RoutingHintName[] {
  return HINT_NAMES.filter((n) => hints[FLAG[n]]);
}

/** Both sets together (the union; conflicts are resolved by the decision). */
export function unionHints(a: RoutingHints, b: RoutingHints): RoutingHints {
  if (b.key === '' || a === b) return a;
  if (a.key === '') return b;
  return hintSet([...hintNames(a), ...hintNames(b)]);
}

/** No hints. */
export const NO_HINTS: RoutingHints = hintSet([]);
