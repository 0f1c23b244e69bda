import type { Compound, Cond, Expr, Join, OrderKey, Query, Select, SelectItem, Term } from './ast.js';
import { exprText, type Dialect } from './print.js';
import { compoundSelects, containsAggregate, firstSelect, starItems, typeOf } from './typing.js';

// Feature tags of a generated query, read off its AST: what it contains (an aggregate
// inside an expression, ORDER BY an alias of a DECIMAL, a binding join, NOT EXISTS, …).
// The summary counts refusals per class; the survey groups failures by these tags.

const PLAIN_TYPES = new Set(['int', 'bigint', 'bool']);

class Tagger {
  readonly tags = new Set<string>();

  constructor(private readonly dialect: Dialect) {}

  query(q: Query): void {
    if (q.kind === 'select') {
      this.select(q);
      return;
    }
    if (q.kind === 'compound') {
      this.compound(q);
      return;
    }
    this.tags.add(q.all ? 'union-all' : 'union');
    for (const s of q.selects) {
      if (s.from.kind === 'table' && s.from.table.distribution === 'broadcast') this.tags.add('union:broadcast');
      if (s.groupBy.length > 0) this.tags.add('union:grouped');
      this.select(s, true);
    }
    this.order(q.orderBy, q.selects[0]!.items as readonly SelectItem[]);
    this.limit(q.limit);
  }

  private compound(q: Compound, nested = false): void {
    const terms = [q.first, ...q.rest.map((r) => r.term)];
    for (const r of q.rest) this.tags.add(`setop:${r.op.replace(' ', '-').toLowerCase()}`);
    if (q.rest.length > 1) this.tags.add('setop:chain');
    if (nested) this.tags.add('setop:nested');
    for (const t of terms) {
      if (t.kind === 'paren') {
        this.tags.add('setop:paren');
        if (t.query.kind === 'compound') this.compound(t.query, true);
        else if (t.query.kind === 'select') {
          if (t.query.limit) this.tags.add('setop:branch-top-n');
          this.select(t.query, true);
        } else this.query(t.query);
      } else {
        if (t.from.kind === 'table' && t.from.table.distribution === 'broadcast') this.tags.add('union:broadcast');
        if (t.groupBy.length > 0) this.tags.add('union:grouped');
        this.select(t, true);
      }
    }
    if (compoundSelects(q).length === 0) return;
    this.order(q.orderBy, firstSelect(q).items as readonly SelectItem[]);
    this.limit(q.limit);
  }

  select(s: Select, branch = false): void {
    const items = s.items === '*' ? starItems(s.from) : s.items;
    if (s.items === '*') this.tags.add('select:*');
    if (s.with) {
      this.tags.add(s.with.recursive ? 'cte:recursive' : 'cte');
      for (const c of s.with.ctes) {
        const uses = countCteUses(s, c.name);
        if (uses > 1) this.tags.add('cte:twice');
        this.tags.add(readsSharded(c.body) ? 'cte:sharded' : 'cte:constant');
        this.query(c.body);
      }
    }
    if (s.windows && s.windows.length > 0) this.tags.add('window:named');
    if (s.calcFoundRows) this.tags.add('calc-found-rows');
    switch (s.from.kind) {
      case 'derived':
        this.tags.add(s.from.query.limit ? 'sub:from-top-n' : 'sub:from');
        if (s.from.query.from.kind === 'derived') this.tags.add('sub:from-nested');
        if (s.from.query.items !== '*' && s.from.query.items.some((i) => i.expr.kind === 'window')) this.tags.add('window:in-derived');
        this.select(s.from.query);
        break;
      case 'compoundFrom':
        this.tags.add('sub:from-compound');
        this.compound(s.from.query, true);
        break;
      case 'cte':
        this.tags.add('from:cte');
        break;
      case 'none':
        this.tags.add('from:none');
        break;
      case 'table':
        if (s.from.table.name === 'shape_lines') this.tags.add('from:lines');
        else if (s.from.table.name === 'shape_refs' && !branch) this.tags.add('from:broadcast');
    }
    for (const j of s.joins) this.join(j);
    const aggregate = items.some((i) => containsAggregate(i.expr));
    if (s.groupBy.length > 0) this.tags.add('group-by');
    else if (aggregate) this.tags.add('agg:global');
    if (s.distinct) this.tags.add('distinct');
    for (const i of items) {
      this.expr(i.expr, false);
      if (i.alias === undefined && containsAggregate(i.expr)) this.tags.add('agg:no-alias');
    }
    if (s.where) this.cond(s.where, 'where', false);
    for (const t of s.groupBy) this.groupTerm(t, items);
    if (s.having) {
      this.tags.add('having');
      this.cond(s.having, 'having', false);
    }
    if (!branch) {
      this.order(s.orderBy, items);
      this.limit(s.limit);
    }
  }

  private join(j: Join): void {
    if (j.type === 'LEFT') this.tags.add('join:left');
    if (j.inner) {
      this.tags.add('join:parenthesised');
      for (const inner of j.inner) this.join(inner);
    }
    if (j.item.kind === 'cte') {
      this.tags.add('join:cte');
      return;
    }
    const table = j.item.kind === 'table' ? j.item.table : undefined;
    const on = j.on.kind === 'logic' ? j.on.items[0]! : j.on;
    const keys = on.kind === 'compare' && on.left.kind === 'column' && on.right.kind === 'column' && on.left.column.key && on.right.column.key;
    this.tags.add(table?.distribution === 'broadcast' ? 'join:broadcast' : keys ? 'join:binding' : 'join:non-binding');
  }

  private groupTerm(t: Term, items: readonly SelectItem[]): void {
    if (t.kind !== 'expr') this.tags.add(`group:${t.kind}`);
    const e = t.kind === 'expr' ? t.expr : t.kind === 'position' ? items[t.index - 1]?.expr : items.find((i) => i.alias === t.name)?.expr;
    if (!e) return;
    if (e.kind !== 'column') this.tags.add('group:expr');
    const type = typeOf(e, this.dialect).type;
    if (!PLAIN_TYPES.has(type)) this.tags.add(`group-type:${type}`);
  }

  private order(keys: readonly OrderKey[], items: readonly SelectItem[]): void {
    const texts = items.map((i) => exprText(i.expr, this.dialect));
    for (const k of keys) {
      this.tags.add(`order:${k.term.kind}`);
      if (k.direction === 'DESC') this.tags.add('order:desc');
      let e: Expr | undefined;
      if (k.term.kind === 'position') e = items[k.term.index - 1]?.expr;
      else if (k.term.kind === 'alias') {
        const name = k.term.name;
        e = items.find((i) => i.alias === name)?.expr;
      } else {
        e = k.term.expr;
        if (!texts.includes(exprText(e, this.dialect))) this.tags.add(containsAggregate(e) ? 'order:hidden-aggregate' : 'order:hidden-expr');
        if (e.kind === 'truth' && e.cond.kind === 'isNull') this.tags.add('order:is-null');
      }
      if (!e) continue;
      if (containsAggregate(e)) this.tags.add('order:aggregate');
      const type = typeOf(e, this.dialect).type;
      if (!PLAIN_TYPES.has(type)) this.tags.add(`order-type:${type}`);
    }
  }

  private limit(limit: Select['limit']): void {
    if (!limit) return;
    this.tags.add('limit');
    if (limit.offset !== undefined) this.tags.add('offset');
  }

  /** `inAggregate`: below an aggregate's argument; an aggregate below another node is "inside an expression". */
  private expr(e: Expr, nested: boolean): void {
    switch (e.kind) {
      case 'aggregate': {
        if (nested) this.tags.add('agg-in-expr');
        this.tags.add(e.arg === undefined ? 'agg:COUNT(*)' : `agg:${e.fn}${e.distinct ? '-DISTINCT' : ''}`);
        if (e.arg && (e.fn === 'MIN' || e.fn === 'MAX')) {
          const type = typeOf(e.arg, this.dialect).type;
          if (!PLAIN_TYPES.has(type)) this.tags.add(`minmax-type:${type}`);
        }
        if (e.arg) this.expr(e.arg, false);
        return;
      }
      case 'arith':
        this.tags.add('expr:arith');
        this.expr(e.left, true);
        this.expr(e.right, true);
        return;
      case 'call':
        this.tags.add(`fn:${e.fn}`);
        for (const a of e.args) this.expr(a, true);
        return;
      case 'case':
        this.tags.add('expr:case');
        this.cond(e.when, 'case', false);
        this.expr(e.then, true);
        if (e.otherwise) this.expr(e.otherwise, true);
        return;
      case 'truth':
        this.tags.add('expr:truth');
        this.cond(e.cond, 'case', false);
        return;
      case 'scalar':
        this.tags.add(`sub:select-${correlation(e.query)}`);
        return;
      case 'window': {
        const over = 'name' in e.over ? undefined : e.over;
        this.tags.add(`window:${e.fn}`);
        if (over) {
          const keyed = over.partitionBy.some((p) => p.kind === 'column' && p.column.key);
          this.tags.add(over.partitionBy.length === 0 ? 'window:whole' : keyed ? 'window:by-key' : 'window:by-other');
          if (over.orderBy.length > 0) this.tags.add('window:ordered');
          if (over.frame) this.tags.add('window:frame');
          for (const p of over.partitionBy) this.expr(p, true);
        }
        if (e.arg) this.expr(e.arg, true);
        return;
      }
      case 'json':
        this.tags.add(`json:${e.form}`);
        return;
      case 'userVar':
        this.tags.add(e.assign ? 'var:assign' : 'var:read');
        if (e.assign) this.expr(e.assign, true);
        return;
      case 'foundRows':
        this.tags.add('found-rows');
        return;
      default:
        return;
    }
  }

  /** `underOr`: below OR or NOT, where a shard-key condition cannot prune. */
  private cond(c: Cond, where: 'where' | 'having' | 'case', underOr: boolean): void {
    const operand = (e: Expr) => {
      if (where === 'having' && (e.kind === 'param' || e.kind === 'literal') && e.value === null) this.tags.add('having:null');
      if (where === 'having' && e.kind === 'alias') this.tags.add('having:alias');
      if (e.kind === 'scalar') this.tags.add(`sub:scalar-${correlation(e.query)}`);
      else this.expr(e, where !== 'where');
    };
    const key = (arg: Expr, form: string) => {
      if (where !== 'where' || arg.kind !== 'column' || !arg.column.key) return;
      this.tags.add(`where:key-${form}`);
      if (underOr) this.tags.add('where:key-under-or');
    };
    switch (c.kind) {
      case 'compare':
        key(c.left, 'eq');
        operand(c.left);
        operand(c.right);
        return;
      case 'isNull':
        if (where === 'having') this.tags.add('having:null-test');
        operand(c.arg);
        return;
      case 'inList':
        key(c.arg, c.negated ? 'notIn' : 'in');
        operand(c.arg);
        return;
      case 'between':
        key(c.arg, 'between');
        operand(c.arg);
        return;
      case 'like':
        operand(c.arg);
        return;
      case 'inSelect':
        this.tags.add(`sub:${c.negated ? 'not-' : ''}in-${inPairing(c)}`);
        return;
      case 'exists':
        this.tags.add(`sub:${c.negated ? 'not-' : ''}exists-${correlation(c.query)}`);
        return;
      case 'logic':
        for (const i of c.items) this.cond(i, where, underOr || c.op === 'OR');
        return;
      case 'not':
        if (where === 'having') this.tags.add('having:not');
        this.cond(c.arg, where, true);
        return;
      case 'rowIn':
      case 'rowCompare':
        this.tags.add(`row:${c.kind === 'rowIn' ? (c.negated ? 'not-in' : 'in') : c.op === '=' ? 'eq' : 'ne'}${c.left.some((e) => e.kind === 'column' && e.column.key) ? '-key' : ''}`);
        for (const e of c.left) operand(e);
        return;
      case 'rowInSelect':
        this.tags.add(`row:${c.negated ? 'not-' : ''}in-select`);
        return;
    }
  }
}

/** How many times `s` (its FROM, joins and subqueries in WHERE/select list, shallowly) names the CTE `name`. */
function countCteUses(s: Select, name: string): number {
  let n = 0;
  const text = JSON.stringify({ from: s.from, joins: s.joins, where: s.where, items: s.items, having: s.having });
  for (let at = text.indexOf(`"name":"${name}"`); at >= 0; at = text.indexOf(`"name":"${name}"`, at + 1)) n++;
  return n;
}

/** True when a query reads a sharded table (anywhere inside it). */
export function readsSharded(q: Query): boolean {
  return JSON.stringify(q).includes('"distribution":"sharded"');
}

/** How a subquery refers to the outer row: by the shard key, by a broadcast key, by another column, or not. */
function correlation(q: Select): string {
  const alias = q.from.kind === 'table' ? q.from.alias : '';
  const broadcast = q.from.kind === 'table' && q.from.table.distribution === 'broadcast';
  let found = 'none';
  const visit = (c: Cond | undefined): void => {
    if (!c) return;
    if (c.kind === 'logic') c.items.forEach(visit);
    if (c.kind !== 'compare' || c.left.kind !== 'column' || c.right.kind !== 'column') return;
    const [inner, outer] = c.left.table === alias ? [c.left, c.right] : [c.right, c.left];
    if (inner.table !== alias || outer.table === alias) return;
    found = broadcast ? 'broadcast' : inner.column.key && outer.column.key ? 'key' : 'nonkey';
  };
  visit(q.where);
  return found;
}

function inPairing(c: Extract<Cond, { kind: 'inSelect' }>): string {
  const from = c.query.from;
  if (from.kind === 'table' && from.table.distribution === 'broadcast') return 'broadcast';
  const item = (c.query.items as readonly SelectItem[])[0]?.expr;
  const keyed = c.arg.kind === 'column' && c.arg.column.key && item?.kind === 'column' && item.column.key;
  if (keyed) return from.kind === 'table' && from.table.name === 'shape_facts' ? 'self' : 'key';
  return 'nonkey';
}

/** The feature tags of `q`, sorted. */
export function tagsOf(q: Query, dialect: Dialect): string[] {
  const t = new Tagger(dialect);
  t.query(q);
  return [...t.tags].sort();
}
