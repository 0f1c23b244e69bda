import type { ParameterizedSql } from '../../parameterize/index.js';
import type { KeyCondition, Plan } from '../../plan/plan.js';
import { readsSessionState, type LockingRead, type StatementDescriptor, type StatementKind } from '../../router/statement.js';

/** The shape part of a descriptor: fixed for every statement of one plan-cache key. */
export type ShapeDescriptor = Omit<StatementDescriptor, 'hints' | 'shardCount' | 'inTransaction' | 'session'> & { readonly shapeKey: string };

const KIND_OF_VERB: Readonly<Record<string, StatementKind>> = {
  INSERT: 'insert',
  REPLACE: 'insert',
  UPDATE: 'update',
  DELETE: 'delete',
  CREATE: 'ddl',
  ALTER: 'ddl',
  DROP: 'ddl',
  TRUNCATE: 'ddl',
  RENAME: 'ddl',
  BEGIN: 'transaction',
  START: 'transaction',
  COMMIT: 'transaction',
  ROLLBACK: 'transaction',
  SAVEPOINT: 'transaction',
  RELEASE: 'transaction',
  XA: 'transaction',
  SET: 'session',
  USE: 'session',
};

// Read on the plan-cache key: literals are `?` there, so a word inside a string cannot match.
const INTO = /\bINTO\b/i;
const WRITE_WORD = /\b(?:INSERT|UPDATE|DELETE|REPLACE)\b/i;
const FOR_UPDATE = /\bFOR\s+UPDATE\b/i;
const FOR_SHARE = /\bFOR\s+SHARE\b|\bLOCK\s+IN\s+SHARE\s+MODE\b/i;
const AGGREGATE = /\b(?:COUNT|SUM|AVG|MIN|MAX|GROUP_CONCAT|BIT_AND|BIT_OR|BIT_XOR|STD|STDDEV|STDDEV_POP|STDDEV_SAMP|VARIANCE|VAR_POP|VAR_SAMP|JSON_ARRAYAGG|JSON_OBJECTAGG)\s*\(/i;
const GROUP_BY = /\bGROUP\s+BY\b/i;

/**
 * What the query router needs to know of a statement shape (docs/router.md §1), from its plan
 * and its plan-cache key, computed once per shape. Anything that is not plainly a read is
 * classified so that it runs on the primary: when in doubt the primary is always correct, and a
 * write must never reach a replica.
 */
export function describeShape(p: ParameterizedSql, plan: Plan): ShapeDescriptor {
  const key = p.key;
  const kind = kindOf(p.verb, key, plan);
  const select = plan.kind === 'select' ? plan : undefined;
  const merged = select?.merge;
  return Object.freeze({
    kind,
    locking: lockingOf(key),
    readsSessionState: kind === 'select' && readsSessionState(key),
    hasAggregates: merged ? (merged.aggregates?.length ?? 0) > 0 : AGGREGATE.test(key),
    hasGroupBy: merged ? (merged.groupBy?.length ?? 0) > 0 : GROUP_BY.test(key),
    fullScan: select !== undefined && !restrictsKey(select.condition),
    shapeKey: key,
  });
}

function kindOf(verb: string, key: string, plan: Plan): StatementKind {
  if (plan.kind === 'session') return 'transaction';
  if (verb === 'SELECT' || verb === 'TABLE' || verb === 'VALUES') return INTO.test(key) ? 'other' : 'select';
  // `WITH … UPDATE / DELETE` is a write; `WITH … SELECT … INTO` writes session variables.
  if (verb === 'WITH') return WRITE_WORD.test(key) ? 'update' : INTO.test(key) ? 'other' : 'select';
  return KIND_OF_VERB[verb] ?? 'other';
}

function lockingOf(key: string): LockingRead {
  if (FOR_UPDATE.test(key)) return 'for-update';
  return FOR_SHARE.test(key) ? 'for-share' : 'none';
}

/** Whether the condition limits the shard key (to values, or to nothing): false for a scan of every shard. */
function restrictsKey(condition: KeyCondition): boolean {
  switch (condition.kind) {
    case 'any':
      return false;
    case 'values':
    case 'const-equal':
      return true;
    case 'and':
      return condition.terms.some(restrictsKey);
    case 'or':
      return condition.terms.every(restrictsKey);
  }
}
