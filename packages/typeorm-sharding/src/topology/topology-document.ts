import { buildBucketIndex, type BucketRange } from '../algorithms/index.js';
import { ShardingError } from '../errors/index.js';
import { TopologyDocumentError } from './topology-errors.js';

/** Where one shard lives: a database on a server of the data source's `servers`. */
export interface TopologyShard {
  readonly name: string;
  /** A server name of `servers` (SQLite: the shard's own name — each file is its own server). */
  readonly server: string;
  /** The shard's database on that server (SQLite: the file). */
  readonly database: string;
}

/**
 * One version of the topology: which shards exist, where they live, and which buckets each
 * owns. It places every `hash`-sharded entity that uses the default bucket map (and their
 * lookup tables); broadcast tables live on every shard of the document, unsharded tables on
 * its first shard.
 */
export interface TopologyDocument {
  readonly version: number;
  /** Fixed for the life of the data. */
  readonly bucketCount: number;
  readonly shards: readonly TopologyShard[];
  readonly bucketMap: readonly BucketRange[];
}

/** What a document is checked against besides itself. */
export interface DocumentContext {
  /** Server names a shard may name; undefined: not checked. */
  readonly servers?: readonly string[];
  /** The version it replaces: bucket count and the placement of shards it shares must not change. */
  readonly previous?: TopologyDocument;
}

/**
 * Checks a topology document (throws `TopologyDocumentError` naming the fault): a positive
 * version, at least one shard with unique names, every shard on a known server, every bucket
 * `0 … bucketCount − 1` owned by exactly one listed shard; against the previous version, the
 * same bucket count and, for a shard both list, the same server and database (a shard is moved
 * by moving its buckets to a new shard, never by renaming where it lives).
 */
export function validateTopologyDocument(document: TopologyDocument, context: DocumentContext = {}): void {
  if (typeof document !== 'object' || document === null) throw new TopologyDocumentError('A topology document must be an object { version, bucketCount, shards, bucketMap }');
  if (!Number.isSafeInteger(document.version) || document.version < 1) {
    throw new TopologyDocumentError(`Topology document: version must be a positive integer, got ${JSON.stringify(document.version)}`);
  }
  if (!Array.isArray(document.shards) || document.shards.length === 0) throw new TopologyDocumentError(`Topology version ${document.version}: \`shards\` must list at least one shard`);
  const names = new Set<string>();
  for (const [i, shard] of document.shards.entries()) {
    for (const key of ['name', 'server', 'database'] as const) {
      if (typeof shard?.[key] !== 'string' || shard[key].trim() === '') {
        throw new TopologyDocumentError(`Topology version ${document.version}: shards[${i}].${key} must be a non-empty string, got ${JSON.stringify(shard?.[key])}`);
      }
    }
    if (names.has(shard.name)) throw new TopologyDocumentError(`Topology version ${document.version}: shard "${shard.name}" is listed twice`);
    names.add(shard.name);
    if (context.servers && !context.servers.includes(shard.server)) {
      throw new TopologyDocumentError(`Topology version ${document.version}: shard "${shard.name}" is on server "${shard.server}", which is not a configured server (servers: ${context.servers.join(', ')})`);
    }
  }
  if (!Array.isArray(document.bucketMap)) throw new TopologyDocumentError(`Topology version ${document.version}: \`bucketMap\` must be a list of { from, to, shard }`);
  try {
    buildBucketIndex(document.bucketMap, [...names], document.bucketCount);
  } catch (error) {
    if (!(error instanceof ShardingError)) throw error;
    throw new TopologyDocumentError(`Topology version ${document.version}: ${error.message}`, { cause: error });
  }
  const previous = context.previous;
  if (previous === undefined) return;
  if (document.bucketCount !== previous.bucketCount) {
    throw new TopologyDocumentError(`Topology version ${document.version}: the bucket count is fixed (${previous.bucketCount} in version ${previous.version}), got ${document.bucketCount}`);
  }
  for (const shard of document.shards) {
    const before = previous.shards.find((s) => s.name === shard.name);
    if (before && (before.server !== shard.server || before.database !== shard.database)) {
      throw new TopologyDocumentError(
        `Topology version ${document.version}: shard "${shard.name}" moved from ${before.server}/${before.database} to ${shard.server}/${shard.database}; a shard's place is fixed — move its buckets to a new shard instead`,
      );
    }
  }
}

/** Reads a stored document (the JSON of `tsh_topology.document`) and checks that it is the row's version. */
export function parseTopologyDocument(text: string, version: number): TopologyDocument {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new TopologyDocumentError(`Topology version ${version}: the stored document is not JSON`, { cause });
  }
  const document = parsed as TopologyDocument;
  if (typeof document !== 'object' || document === null || document.version !== version) {
    throw new TopologyDocumentError(`Topology version ${version}: the stored document names version ${JSON.stringify((document as { version?: unknown } | null)?.version)}`);
  }
  validateTopologyDocument(document);
  return freezeDocument(document);
}

/** A deep-frozen copy (the read-only view handed to listeners and `ds.topology.document`). */
export function freezeDocument(document: TopologyDocument): TopologyDocument {
  return Object.freeze({
    version: document.version,
    bucketCount: document.bucketCount,
    shards: Object.freeze(document.shards.map((s) => Object.freeze({ name: s.name, server: s.server, database: s.database }))),
    bucketMap: Object.freeze(document.bucketMap.map((r) => Object.freeze({ from: r.from, to: r.to, shard: r.shard }))),
  });
}

/** Which shard owns each bucket of `document`, as a function of the bucket. */
export function ownerOfBucket(document: TopologyDocument): (bucket: number) => string {
  const names = document.shards.map((s) => s.name);
  const index = buildBucketIndex(document.bucketMap, names, document.bucketCount);
  return (bucket) => names[index[bucket]!]!;
}

/**
 * The next version of `document` with the buckets of `ranges` owned by `to` (a shard of
 * `document`, or a new one given by `addShard`): the bucket map recomputed as the shortest list
 * of contiguous runs. Pure; the result still has to be published.
 */
export function reassignBuckets(document: TopologyDocument, ranges: readonly { readonly from: number; readonly to: number }[], to: string, addShard?: TopologyShard): TopologyDocument {
  const shards = addShard && !document.shards.some((s) => s.name === addShard.name) ? [...document.shards, addShard] : [...document.shards];
  if (!shards.some((s) => s.name === to)) throw new TopologyDocumentError(`Shard "${to}" is not in topology version ${document.version} (shards: ${document.shards.map((s) => s.name).join(', ')})`);
  const owner = ownerOfBucket(document);
  const owners = Array.from({ length: document.bucketCount }, (_, b) => owner(b));
  for (const range of ranges) {
    if (!Number.isInteger(range.from) || !Number.isInteger(range.to) || range.from < 0 || range.from > range.to || range.to >= document.bucketCount) {
      throw new TopologyDocumentError(`Bucket range {from: ${String(range.from)}, to: ${String(range.to)}} is not inside 0…${document.bucketCount - 1}`);
    }
    owners.fill(to, range.from, range.to + 1);
  }
  const bucketMap: { from: number; to: number; shard: string }[] = [];
  owners.forEach((shard, bucket) => {
    const last = bucketMap[bucketMap.length - 1];
    if (last && last.shard === shard) last.to = bucket;
    else bucketMap.push({ from: bucket, to: bucket, shard });
  });
  const next = { version: document.version + 1, bucketCount: document.bucketCount, shards, bucketMap };
  validateTopologyDocument(next, { previous: document });
  return next;
}
