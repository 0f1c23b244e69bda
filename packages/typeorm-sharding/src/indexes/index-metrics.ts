import { Counter, Registry } from 'prom-client';

/** Where the global indexes' metrics go. */
export interface IndexMetricsOptions {
  /** @default a new Registry of its own (`ds.indexMetrics.registry.metrics()` gives the text format) */
  readonly registry?: Registry;
  /** @default 'typeorm_sharding_index_' */
  readonly prefix?: string;
}

/**
 * Prometheus metrics of the global indexes, labelled by lookup table (never by value):
 *
 * | metric | type | labels |
 * |---|---|---|
 * | `lookup_hits_total` (values a routed read found in the lookup table) | counter | index |
 * | `lookup_misses_total` (values it did not find: no row has them) | counter | index |
 * | `remembered_hits_total` (reads sent straight to a remembered owner's shard that found their row) | counter | index |
 * | `remembered_stale_total` (such reads that found nothing: the lookup table was read after all) | counter | index |
 * | `findings_total` (what `checkIndexes()` found) | counter | index, kind |
 * | `repairs_total` (entries `checkIndexes({ repair })` and `buildIndexes()` wrote, deleted, repointed or recounted) | counter | index, action |
 */
export class IndexMetrics {
  readonly registry: Registry;
  readonly lookupHits: Counter<'index'>;
  readonly lookupMisses: Counter<'index'>;
  readonly rememberedHits: Counter<'index'>;
  readonly rememberedStale: Counter<'index'>;
  readonly findings: Counter<'index' | 'kind'>;
  readonly repairs: Counter<'index' | 'action'>;

  constructor(options: IndexMetricsOptions = {}) {
    const registry = (this.registry = options.registry ?? new Registry());
    const p = options.prefix ?? 'typeorm_sharding_index_';
    const registers = [registry];
    this.lookupHits = new Counter({ name: `${p}lookup_hits_total`, help: 'Values a read routed by a global index found in its lookup table.', labelNames: ['index'], registers });
    this.lookupMisses = new Counter({ name: `${p}lookup_misses_total`, help: 'Values a read routed by a global index did not find in its lookup table (no row holds them).', labelNames: ['index'], registers });
    this.rememberedHits = new Counter({ name: `${p}remembered_hits_total`, help: 'Reads by a unique global index sent straight to the remembered owner shard of their value that found their row.', labelNames: ['index'], registers });
    this.rememberedStale = new Counter({ name: `${p}remembered_stale_total`, help: 'Reads sent to a remembered owner shard that found no row (the value moved or is gone): the lookup table was read after all.', labelNames: ['index'], registers });
    this.findings = new Counter({ name: `${p}findings_total`, help: 'Dangling, missing, miscounted entries and values owned twice found by checkIndexes().', labelNames: ['index', 'kind'], registers });
    this.repairs = new Counter({ name: `${p}repairs_total`, help: 'Entries written, deleted, repointed or recounted by checkIndexes({ repair }) and buildIndexes().', labelNames: ['index', 'action'], registers });
  }
}
