import { coalesce } from './coalesce.js';
import type { PhysicalStatement } from './physical-statement.js';

/**
 * Sort key types whose order MySQL applies to a UNION's result column exactly as the merge
 * compares them: numbers, dates, bytes, MariaDB UUIDs. Text weights are compared pad-aware by
 * the merge but byte-wise by the server (see `values/mysql-weight.ts`).
 */
const UNION_SORTABLE: ReadonlySet<string> = new Set(['numeric', 'date', 'binary', 'mariadb-uuid', 'mariadb-uuid-swap-all']);

/** What the merge expects of each of its inputs. */
export interface MergeInputs {
  /** The order each input must come in (see `merge/build-merge.ts`'s `inputOrderOf`); undefined: any. */
  readonly order: readonly { readonly column: string; readonly direction: 'ASC' | 'DESC'; readonly type?: string }[] | undefined;
  /** The merge only concatenates its inputs (no ORDER BY, no grouping). */
  readonly concatenates: boolean;
  /** Rows each input must send for the page (see `plan/select/pagination.ts`); undefined: all of them. */
  readonly rowsPerInput: bigint | undefined;
}

/** A scattered read's statements once coalesced, and whether the merge must now sort its inputs itself. */
export interface CoalescedRead {
  readonly statements: PhysicalStatement[];
  /** Some input holds several shards' rows that the server could not sort as the merge compares them. */
  readonly unsortedInputs: boolean;
}

/**
 * One round trip per server for a scattered read (see `coalesce.ts`). When the merge expects
 * sorted inputs but a sort key is one the server cannot sort a UNION by as the merge compares it
 * (text weights of a PAD SPACE collation), the server's rows come unsorted and the merge sorts
 * them in memory; a server's rows are cut to the page only when they come in the merge's order.
 */
export function coalesceRead(statements: readonly PhysicalStatement[], inputs: MergeInputs, settings: { readonly serverOf: (shard: number) => string; readonly maxBranches: number }): CoalescedRead {
  const order = inputs.order;
  const sortable = order === undefined || order.every((k) => UNION_SORTABLE.has(k.type ?? 'auto'));
  const cut = order === undefined ? inputs.concatenates : sortable;
  const out = coalesce(statements, {
    serverOf: settings.serverOf,
    maxBranches: settings.maxBranches,
    order: sortable ? order?.map((k) => ({ column: k.column, direction: k.direction })) : undefined,
    rowLimit: cut ? inputs.rowsPerInput : undefined,
  });
  return { statements: out, unsortedInputs: !sortable && out.some((s) => s.branches !== undefined) };
}
