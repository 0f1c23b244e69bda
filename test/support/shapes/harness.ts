import type { DataSource } from 'typeorm';
import { UnsupportedShardingError } from '../../../packages/typeorm-sharding/src/index.js';
import type { Session, ShapeCase } from './ast.js';
import { differenceOf, distinctRowsOf, floatDrift, showRows, typeDrift } from './compare.js';
import type { PrintedQuery } from './print.js';

// Runs one generated query on the plain and the sharded source and judges the answers
// (DESIGN.md §4): the same rows (in order when the ORDER BY fixes it), or a refusal with
// UnsupportedShardingError. Anything else fails: a different answer, another error, or an
// error of the plain source that the sharded one does not reproduce with the same class.

export type OutcomeKind =
  /** Same answer (or the same error class from both, see `invalid`). */
  | 'pass'
  /** The sharded source refused with UnsupportedShardingError: allowed, counted. */
  | 'refused'
  /** The plain source rejected the SQL: a generator bug, counted (too many fail the run). */
  | 'invalid'
  /** Failures: */
  | 'wrong-answer'
  | 'wrong-error'
  | 'error-mismatch';

export interface Outcome {
  readonly kind: OutcomeKind;
  /** What went wrong, or the refusal / plain error message. */
  readonly detail: string;
  /** The error class and a message with names and numbers blanked (groups refusals and failures). */
  readonly errorTemplate?: string;
  /** Both answers, for failure messages. */
  readonly plain?: string;
  readonly sharded?: string;
  /** A value whose JS type differs between the answers though its value agrees. */
  readonly drift?: string;
  /** A floating-point aggregate that agrees within the tolerance but not exactly. */
  readonly floatDrift?: string;
  /** The plain server's SELECT DISTINCT returned duplicate rows (how many of how many); judged against the distinct rows. */
  readonly serverDuplicates?: string;
}

export function isFailure(o: Outcome): boolean {
  return o.kind === 'wrong-answer' || o.kind === 'wrong-error' || o.kind === 'error-mismatch';
}

type Settled = { ok: true; rows: Record<string, unknown>[] } | { ok: false; error: unknown };

async function settle(ds: DataSource, q: PrintedQuery): Promise<Settled> {
  try {
    return { ok: true, rows: await ds.query(q.sql, [...q.params]) };
  } catch (error) {
    return { ok: false, error };
  }
}

/** The answers of one source to a session: `before`, the query and `after`, on one connection. */
async function settleSession(ds: DataSource, session: Session, q: PrintedQuery): Promise<Settled[]> {
  const runner = ds.createQueryRunner();
  try {
    await runner.connect();
    const run = async (sql: string, params: readonly unknown[]): Promise<Settled> => {
      try {
        return { ok: true, rows: await runner.query(sql, [...params]) };
      } catch (error) {
        return { ok: false, error };
      }
    };
    const out: Settled[] = [];
    for (const sql of session.before) {
      const r = await run(sql, []);
      if (!r.ok) return [r];
    }
    out.push(await run(q.sql, q.params));
    for (const a of session.after) out.push(await run(a.sql, []));
    return out;
  } finally {
    await runner.release();
  }
}

/**
 * A session case: the query's answer and then each `after` statement's, each judged like a
 * query (a statement of `before` that fails is judged as the query's answer).
 */
async function runSession(plain: DataSource, sharded: DataSource, c: ShapeCase, session: Session, q: PrintedQuery): Promise<Outcome> {
  const expected = await settleSession(plain, session, q);
  const got = await settleSession(sharded, session, q);
  const steps: { q: PrintedQuery; c: ShapeCase }[] = [{ q, c }, ...session.after.map((a) => ({ q: { sql: a.sql, params: [] }, c: { ...c, outputs: a.outputs, ordered: true } }))];
  for (let i = 0; i < Math.max(expected.length, got.length); i++) {
    const e = expected[i];
    const s = got[i];
    if (!e || !s) return { kind: 'wrong-answer', detail: `the ${!e ? 'plain' : 'sharded'} session stopped before statement ${i + 1}` };
    const o = judge(e, s, steps[i]!.c);
    if (o.kind !== 'pass') return i === 0 ? o : { ...o, detail: `${steps[i]!.q.sql}: ${o.detail}` };
  }
  return { kind: 'pass', detail: '' };
}

function className(error: unknown): string {
  return error instanceof Error ? error.constructor.name : typeof error;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `ClassName: message` with quoted names, numbers and the physical SQL blanked, so that one cause gives one template. */
export function errorTemplate(error: unknown): string {
  const text = message(error)
    .split('\n')[0]!
    .replace(/"[^"]*"|'[^']*'|`[^`]*`/g, '…')
    .replace(/\d+/g, 'N')
    .replace(/; it reaches N shards.*$/, '')
    .slice(0, 160);
  return `${className(error)}: ${text}`;
}

/** Runs `c` (printed as `q`) on both sources and judges the answers. */
export async function runCase(plain: DataSource, sharded: DataSource, c: ShapeCase, q: PrintedQuery): Promise<Outcome> {
  if (c.session) return runSession(plain, sharded, c, c.session, q);
  return judge(await settle(plain, q), await settle(sharded, q), c);
}

function judge(expected: Settled, got: Settled, c: ShapeCase): Outcome {
  if (!expected.ok) {
    const plainError = `${className(expected.error)}: ${message(expected.error)}`;
    if (got.ok) return { kind: 'error-mismatch', detail: `the plain source threw ${plainError}; the sharded source answered`, sharded: showRows(got.rows), errorTemplate: errorTemplate(expected.error) };
    // A refusal of invalid SQL is harmless: the planner need not know the SQL is invalid.
    if (got.error instanceof UnsupportedShardingError || className(got.error) === className(expected.error)) return { kind: 'invalid', detail: plainError, errorTemplate: errorTemplate(expected.error) };
    return {
      kind: 'error-mismatch',
      detail: `the plain source threw ${plainError}; the sharded source threw ${className(got.error)}: ${message(got.error)}`,
      errorTemplate: `${className(expected.error)} vs ${errorTemplate(got.error)}`,
    };
  }
  if (!got.ok) {
    if (got.error instanceof UnsupportedShardingError) return { kind: 'refused', detail: message(got.error), errorTemplate: errorTemplate(got.error) };
    return { kind: 'wrong-error', detail: `the sharded source threw ${className(got.error)}: ${message(got.error)}`, errorTemplate: errorTemplate(got.error), plain: showRows(expected.rows) };
  }
  const difference = differenceOf(expected.rows, got.rows, c);
  if (difference !== undefined) {
    // The server's own DISTINCT bug (see `distinctRowsOf`): without LIMIT, the rows made distinct are the answer.
    const distinct = c.query.kind === 'select' && c.query.distinct && c.query.limit === undefined ? distinctRowsOf(expected.rows) : undefined;
    if (distinct && differenceOf(distinct, got.rows, c) === undefined) return { kind: 'pass', detail: '', serverDuplicates: `${expected.rows.length - distinct.length} of ${expected.rows.length}` };
    return { kind: 'wrong-answer', detail: difference, plain: showRows(expected.rows), sharded: showRows(got.rows) };
  }
  return { kind: 'pass', detail: '', drift: typeDrift(expected.rows, got.rows, c), floatDrift: floatDrift(expected.rows, got.rows, c) };
}

/** The failure message: the SQL, its parameters, both answers, and how to run it again. */
export function failureMessage(backend: string, c: ShapeCase, q: PrintedQuery, o: Outcome, reproduce: string): string {
  return [
    `[${backend}] ${o.kind} (shape class ${c.shapeClass}, ${c.ordered ? 'compared in order' : 'compared as a multiset'})`,
    ...(c.session?.before ?? []).map((sql) => `  before: ${sql}`),
    `  SQL:    ${q.sql}`,
    ...(c.session?.after ?? []).map((a) => `  after:  ${a.sql}`),
    `  params: ${JSON.stringify(q.params)}`,
    `  ${o.detail}`,
    ...(o.plain ? [`  plain:   ${o.plain}`] : []),
    ...(o.sharded ? [`  sharded: ${o.sharded}`] : []),
    `  tags: ${c.tags.join(' ')}`,
    `  reproduce: ${reproduce}`,
  ].join('\n');
}

/** Counts per shape class: runs, refusals (by message), invalid SQL, failures, type drift. */
export class ShapeStats {
  private readonly perClass = new Map<string, { runs: number; passed: number; refused: Map<string, number>; invalid: string[]; failed: number; drift: Map<string, { n: number; example: string }>; floatDrift: string[]; serverDuplicates: string[] }>();

  private readonly known = new Map<string, number>();

  /** A failure of a listed known failure (random-shapes.known-failures.ts): counted apart, not failed. */
  recordKnown(backend: string, c: ShapeCase, id: string): void {
    const key = `${backend}/${c.shapeClass}: ${id}`;
    this.known.set(key, (this.known.get(key) ?? 0) + 1);
  }

  record(backend: string, c: ShapeCase, q: PrintedQuery, o: Outcome): void {
    const key = `${backend}/${c.shapeClass}`;
    let s = this.perClass.get(key);
    if (!s) this.perClass.set(key, (s = { runs: 0, passed: 0, refused: new Map(), invalid: [], failed: 0, drift: new Map(), floatDrift: [], serverDuplicates: [] }));
    s.runs++;
    if (o.kind === 'pass') s.passed++;
    if (o.kind === 'refused') s.refused.set(o.errorTemplate!, (s.refused.get(o.errorTemplate!) ?? 0) + 1);
    if (o.kind === 'invalid') s.invalid.push(`${o.detail}\n      ${q.sql} ${JSON.stringify(q.params)}`);
    if (isFailure(o)) s.failed++;
    if (o.floatDrift) s.floatDrift.push(o.floatDrift);
    if (o.serverDuplicates) s.serverDuplicates.push(`${o.serverDuplicates} rows in ${q.sql}`);
    if (o.drift) {
      const kind = o.drift.replace(/^[^:]*: /, '');
      const seen = s.drift.get(kind);
      s.drift.set(kind, { n: (seen?.n ?? 0) + 1, example: seen?.example ?? `${o.drift} in ${q.sql} ${JSON.stringify(q.params)}` });
    }
  }

  /** Invalid (plain-rejected) queries of one backend: count and total. */
  invalid(backend: string): { invalid: string[]; runs: number } {
    const invalid: string[] = [];
    let runs = 0;
    for (const [key, s] of this.perClass) {
      if (!key.startsWith(`${backend}/`)) continue;
      invalid.push(...s.invalid);
      runs += s.runs;
    }
    return { invalid, runs };
  }

  summary(): string {
    const lines: string[] = ['random query shapes: runs / passed / refused / invalid SQL / failed (a failing property stops at its first failure)'];
    for (const [key, s] of this.perClass) {
      lines.push(`  ${key.padEnd(22)} ${String(s.runs).padStart(5)} ${String(s.passed).padStart(6)} ${String([...s.refused.values()].reduce((a, b) => a + b, 0)).padStart(6)} ${String(s.invalid.length).padStart(4)} ${String(s.failed).padStart(4)}`);
      const refusals = [...s.refused].sort((a, b) => b[1] - a[1]);
      for (const [template, n] of refusals.slice(0, 6)) lines.push(`      refused ${String(n).padStart(4)}× ${template}`);
      if (refusals.length > 6) lines.push(`      … ${refusals.length - 6} more refusal messages`);
      for (const [drift, { n, example }] of s.drift) lines.push(`      type drift ${n}× (same value, other JS type: ${drift}), e.g. ${example.slice(0, 300)}`);
      if (s.floatDrift.length > 0) lines.push(`      float drift ${s.floatDrift.length}× (a floating-point aggregate equal only within the tolerance, e.g. ${s.floatDrift[0]})`);
      if (s.serverDuplicates.length > 0) lines.push(`      server DISTINCT duplicates ${s.serverDuplicates.length}× (the plain answer repeated rows under SELECT DISTINCT; judged against them made distinct), e.g. ${s.serverDuplicates[0]!.slice(0, 300)}`);
    }
    if (this.known.size > 0) lines.push('known failures (random-shapes.known-failures.ts), not counted as runs above:');
    for (const [key, n] of this.known) lines.push(`  ${String(n).padStart(5)}× ${key}`);
    return lines.join('\n');
  }
}
