import { AsyncLocalStorage } from 'node:async_hooks';
import { hintSet, NO_HINTS, type RoutingHintName, type RoutingHints } from './hint.js';
import { RoutingSession } from './routing-session.js';

/** Hints for every statement run inside a `withRouting` callback. */
export interface RoutingScopeOptions {
  /** `FORCE_MASTER`. */
  readonly forceMaster?: boolean;
  /** `FORCE_SLAVE`. */
  readonly forceSlave?: boolean;
  /** `CONSISTENT_READ`: reads see the writes made in this scope (GTID wait on the replica). */
  readonly consistentRead?: boolean;
  /** `ROUTE_STICKY`: every read of the scope on the same node of each server. */
  readonly sticky?: boolean;
  /** `MASTER_ONLY`: transactions begun in the scope on the primary (every statement of the scope, too). */
  readonly masterOnly?: boolean;
}

const OPTION_HINTS: Readonly<Record<keyof RoutingScopeOptions, RoutingHintName>> = {
  forceMaster: 'FORCE_MASTER',
  forceSlave: 'FORCE_SLAVE',
  consistentRead: 'CONSISTENT_READ',
  sticky: 'ROUTE_STICKY',
  masterOnly: 'MASTER_ONLY',
};

/** The scope a callback runs in. */
export interface RoutingScope {
  readonly hints: RoutingHints;
  readonly session: RoutingSession;
  /**
   * Inside a write's own work (see `forWritesOwnReads`): its reads — save's existence check,
   * the reload after an insert, cascades — run on the primary whatever the hints say.
   */
  readonly writesOwnReads?: boolean;
}

const scopes = new AsyncLocalStorage<RoutingScope>();
/**
 * Callbacks running now. An enabled AsyncLocalStorage slows every promise of the process down
 * (measured 1.5–2× on a sharded `findOneBy`, see `sharded-entity-manager.ts`), so it is
 * disabled whenever no scope is open; `run()` enables it again.
 */
let open = 0;

/**
 * Runs `fn` with routing hints for every statement it issues, directly or through code it
 * awaits (`withRouting({ forceMaster: true }, () => repo.find(…))`). Nested scopes add their
 * hints to the outer scope's and share its session, so read-your-writes and stickiness
 * carry over. Unknown option keys throw a TypeError (a misspelt hint must not be ignored).
 */
export function withRouting<T>(options: RoutingScopeOptions, fn: () => T): T {
  const names: RoutingHintName[] = [];
  for (const [key, value] of Object.entries(options)) {
    const hint = OPTION_HINTS[key as keyof RoutingScopeOptions];
    if (hint === undefined) throw new TypeError(`withRouting: unknown option ${key} (expected ${Object.keys(OPTION_HINTS).join(', ')})`);
    if (typeof value !== 'boolean' && value !== undefined) throw new TypeError(`withRouting: ${key} must be true or false`);
    if (value === true) names.push(hint);
  }
  const outer = open > 0 ? scopes.getStore() : undefined;
  const own = hintSet(names);
  const hints = outer === undefined ? own : hintSet([...names, ...hintNamesOf(outer.hints)]);
  const scope: RoutingScope = { hints, session: outer?.session ?? new RoutingSession() };
  open++;
  let result: T;
  try {
    result = scopes.run(scope, fn);
  } catch (error) {
    close();
    throw error;
  }
  if (result instanceof Promise) return result.finally(close) as T;
  close();
  return result;
}

/**
 * Runs a write of TypeORM's EntityManager (`save`, `insert`, `upsert`, `remove` …) so that the
 * reads it makes for itself go to the primary: a hint may move reads, never a write's own reads
 * (under `withRouting({ forceSlave: true })` save's existence check on a lagging replica would find
 * the old row and send no UPDATE). Costs one counter check unless a scope with `forceSlave` is open
 * (outside one, those reads run on a `master` QueryRunner, which reads the primary anyway).
 */
export function forWritesOwnReads<T>(fn: () => Promise<T>): Promise<T> {
  const outer = currentRoutingScope();
  if (outer === undefined || !outer.hints.forceSlave || outer.writesOwnReads === true) return fn();
  const scope: RoutingScope = { hints: outer.hints, session: outer.session, writesOwnReads: true };
  open++;
  let result: Promise<T>;
  try {
    result = scopes.run(scope, fn);
  } catch (error) {
    close();
    throw error;
  }
  return result.finally(close);
}

/** The scope of the running code, if any (one counter check when none is open). */
export function currentRoutingScope(): RoutingScope | undefined {
  return open > 0 ? scopes.getStore() : undefined;
}

/** The hints of the running scope (NO_HINTS outside). */
export function scopeHints(): RoutingHints {
  return currentRoutingScope()?.hints ?? NO_HINTS;
}

function close(): void {
  if (--open === 0) scopes.disable();
}

function hintNamesOf(hints: RoutingHints): RoutingHintName[] {
  return (Object.keys(OPTION_HINTS) as (keyof RoutingScopeOptions)[]).filter((k) => hints[k]).map((k) => OPTION_HINTS[k]);
}
