import type { LookupSite } from './lookup-routing.js';

/**
 * The owners that lookups of unique global indexes found, remembered by value, so that the next
 * `findOneBy({ email })` of a value goes straight to its owner's shard: one round trip instead
 * of two.
 *
 * A remembered owner is a guess that the read itself checks, never a fact the result depends
 * on. The owner's read keeps its own `WHERE email = ?`, so each row it returns holds the value,
 * and a unique value has at most one row in all shards: a read that returns a row has read the
 * only one. A read that returns nothing proves nothing (the value moved, was deleted, or the
 * rest of the WHERE filtered the row out): the engine forgets the guess and reads the lookup
 * table as if nothing had been remembered. What stays correct only under that argument is
 * decided by `LookupSite.rememberable` (a unique index, one value per column, a row-preserving
 * SELECT: no aggregate without GROUP BY, no locking read) and by `keyOf` below.
 *
 * The owner is kept as its shard-key value, not as a shard: the shard is worked out from the
 * rules when the guess is used, as it is for a lookup's rows, so a bucket moved by resharding
 * sends the read to where the row is now.
 */
export class OwnerMemory {
  /** Insertion order is recency order: a used entry is moved to the end, the first is the oldest. */
  private readonly owners = new Map<string, unknown>();

  constructor(private readonly capacity: number) {}

  get enabled(): boolean {
    return this.capacity > 0;
  }

  /**
   * The memory's key of one value per column of `site`'s index; undefined when such values
   * cannot be remembered. Only strings, numbers and bigints: a string column compared with a
   * number matches by numeric value (`'5'`, `'05'` and `'5.0'` all equal 5 on MySQL), a
   * comparison uniqueness does not cover; the types are part of the key for that reason, and
   * `remember` keeps a value only when the lookup row's own value has the asked value's type.
   */
  keyOf(site: LookupSite, values: readonly (readonly unknown[])[]): string | undefined {
    if (!site.rememberable || !this.enabled) return undefined;
    const parts: string[] = [site.index.lookupTable];
    for (const column of values) {
      if (column.length !== 1) return undefined;
      const kind = kindOf(column[0]);
      if (kind === undefined) return undefined;
      parts.push(kind + String(column[0]));
    }
    return JSON.stringify(parts);
  }

  /** The remembered owner (shard-key value) of `key`, marked as recently used. */
  ownerOf(key: string): unknown {
    const owner = this.owners.get(key);
    if (owner === undefined) return undefined;
    this.owners.delete(key);
    this.owners.set(key, owner);
    return owner;
  }

  /**
   * Remembers what a lookup read found for the one value per column it was asked: only when
   * it found exactly one entry whose values have the asked types (see `keyOf`).
   */
  remember(key: string, site: LookupSite, asked: readonly (readonly unknown[])[], rows: readonly Record<string, unknown>[]): void {
    if (rows.length !== 1) return;
    const row = rows[0]!;
    const columns = site.index.columns;
    for (let i = 0; i < columns.length; i++) if (kindOf(row[columns[i]!]) !== kindOf(asked[i]![0])) return;
    const owner = row[site.index.ownerColumn];
    if (owner === null || owner === undefined) return;
    this.owners.delete(key);
    this.owners.set(key, owner);
    if (this.owners.size > this.capacity) this.owners.delete(this.owners.keys().next().value!);
  }

  forget(key: string): void {
    this.owners.delete(key);
  }

  get size(): number {
    return this.owners.size;
  }
}

/** `s` for a string, `n` for a number or bigint (they compare alike), undefined for anything else. */
function kindOf(value: unknown): 's' | 'n' | undefined {
  switch (typeof value) {
    case 'string':
      return 's';
    case 'number':
    case 'bigint':
      return 'n';
    default:
      return undefined;
  }
}
