/**
 * One round trip per server instead of one per shard (PolarDB-X's MERGE_UNION): the
 * database-qualified statements of a scattered read that go to shards of one server are sent
 * as one `(…) UNION ALL (…)`. Each branch keeps its own ORDER BY and `LIMIT offset+count`; when
 * the merge expects each input sorted (a k-way merge, a streamed GROUP BY), the union is sorted
 * again by the same result columns, so that each server returns one sorted stream, and cut to
 * the rows the merge can use. The rows are the branches' rows: partial groups stay partial, and
 * the merge treats a server's statement as it treated a shard's.
 */
import type { PhysicalStatement } from './physical-statement.js';

/** How the statements of one logical read may be coalesced. */
export interface CoalesceSettings {
  /** The server of each shard (shards of one server share a round trip). */
  readonly serverOf: (shard: number) => string;
  /** Most branches per statement; a server with more shards gets several statements. */
  readonly maxBranches: number;
  /** The order the merge expects of each input, by result column; undefined: any order. */
  readonly order: readonly { readonly column: string; readonly direction: 'ASC' | 'DESC' }[] | undefined;
  /** The rows the merge can use of each input (offset + count of its page), when it pages. */
  readonly rowLimit: bigint | undefined;
}

/**
 * The statements with those of each server's shards joined in batches of `maxBranches`. Only
 * `qualified` statements are joined; the others stay as they are. Batches keep the statements'
 * order, so that the merge's tie-breaking by input order stays shard order.
 */
export function coalesce(statements: readonly PhysicalStatement[], settings: CoalesceSettings): PhysicalStatement[] {
  if (statements.length < 2 || settings.maxBranches < 2) return [...statements];
  const batches = new Map<string, PhysicalStatement[][]>();
  const slots: (PhysicalStatement | PhysicalStatement[])[] = [];
  for (const statement of statements) {
    if (!statement.qualified) {
      slots.push(statement);
      continue;
    }
    const server = settings.serverOf(statement.shard);
    const open = batches.get(server);
    const last = open?.[open.length - 1];
    if (last && last.length < settings.maxBranches) {
      last.push(statement);
      continue;
    }
    const batch = [statement];
    batches.set(server, [...(open ?? []), batch]);
    slots.push(batch);
  }
  return slots.map((slot) => (Array.isArray(slot) ? unionOf(slot, settings) : slot));
}

function unionOf(batch: readonly PhysicalStatement[], settings: CoalesceSettings): PhysicalStatement {
  if (batch.length === 1) return batch[0]!;
  const order = settings.order && settings.order.length > 0 ? ` ORDER BY ${settings.order.map((k) => `\`${k.column.replace(/`/g, '``')}\` ${k.direction}`).join(', ')}` : '';
  const limit = settings.rowLimit !== undefined ? ` LIMIT ${settings.rowLimit}` : '';
  const first = batch[0]!;
  // Plain loops: this runs for every scattered read, and map/join/flatMap allocate per branch.
  let sql = `(${first.sql})`;
  const parameters: unknown[] = [];
  for (const value of first.parameters) parameters.push(value);
  for (let b = 1; b < batch.length; b++) {
    const branch = batch[b]!;
    sql += ` UNION ALL (${branch.sql})`;
    for (const value of branch.parameters) parameters.push(value);
  }
  const union: PhysicalStatement = { shard: first.shard, sql: sql + order + limit, parameters, qualified: true, branches: batch };
  const exact = first.exactIntegers ? { ...union, exactIntegers: true } : union;
  return first.serverText ? { ...exact, serverText: true } : exact;
}
