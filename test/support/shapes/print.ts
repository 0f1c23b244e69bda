import type { Compound, CompoundTerm, Cond, Expr, FromItem, Join, Limit, OrderKey, Query, Select, Term, WindowSpec } from './ast.js';

/** The SQL dialect a query is printed for. */
export type Dialect = 'mysql' | 'sqlite';

/** A printed query: the text and the values of its `?` placeholders, in order. */
export interface PrintedQuery {
  readonly sql: string;
  readonly params: readonly (number | string | null)[];
}

/** Writes one query for one dialect. Parameters are collected left to right, as the text is written. */
class Printer {
  readonly params: (number | string | null)[] = [];

  constructor(private readonly dialect: Dialect) {}

  query(q: Query): string {
    if (q.kind === 'select') return this.select(q);
    if (q.kind === 'compound') return this.compound(q);
    const body = q.selects.map((s) => this.select(s)).join(q.all ? ' UNION ALL ' : ' UNION ');
    return body + this.tail(q.orderBy, q.limit);
  }

  private compound(q: Compound): string {
    const term = (t: CompoundTerm) => (t.kind === 'paren' ? `(${this.query(t.query)})` : this.select(t));
    let out = term(q.first);
    for (const r of q.rest) out += ` ${r.op} ${term(r.term)}`;
    return out + this.tail(q.orderBy, q.limit);
  }

  select(s: Select): string {
    let out = '';
    if (s.with) out += `WITH ${s.with.recursive ? 'RECURSIVE ' : ''}${s.with.ctes.map((c) => `${c.name}${c.columns ? `(${c.columns.join(', ')})` : ''} AS (${this.query(c.body)})`).join(', ')} `;
    out += `SELECT ${s.distinct ? 'DISTINCT ' : ''}${s.calcFoundRows ? 'SQL_CALC_FOUND_ROWS ' : ''}`;
    out += s.items === '*' ? '*' : s.items.map((i) => (i.alias === undefined ? this.expr(i.expr) : `${this.expr(i.expr)} AS ${i.alias}`)).join(', ');
    if (s.from.kind !== 'none') out += ` FROM ${this.from(s.from)}`;
    const joined = (j: Join): string => {
      const item = j.inner ? `(${this.from(j.item)}${j.inner.map(joined).join('')})` : this.from(j.item);
      return ` ${j.type === 'LEFT' ? 'LEFT JOIN' : 'JOIN'} ${item} ON ${this.cond(j.on)}`;
    };
    for (const j of s.joins) out += joined(j);
    if (s.where) out += ` WHERE ${this.cond(s.where)}`;
    if (s.groupBy.length > 0) out += ` GROUP BY ${s.groupBy.map((t) => this.term(t)).join(', ')}`;
    if (s.having) out += ` HAVING ${this.cond(s.having)}`;
    if (s.windows && s.windows.length > 0) out += ` WINDOW ${s.windows.map((w) => `${w.name} AS (${this.windowSpec(w.spec)})`).join(', ')}`;
    return out + this.tail(s.orderBy, s.limit);
  }

  private windowSpec(w: WindowSpec): string {
    const parts: string[] = [];
    if (w.partitionBy.length > 0) parts.push(`PARTITION BY ${w.partitionBy.map((e) => this.expr(e)).join(', ')}`);
    if (w.orderBy.length > 0) parts.push(`ORDER BY ${w.orderBy.map((k) => this.term(k.term) + (k.direction ? ` ${k.direction}` : '')).join(', ')}`);
    if (w.frame) parts.push(w.frame);
    return parts.join(' ');
  }

  private tail(orderBy: readonly OrderKey[], limit: Limit | undefined): string {
    let out = '';
    if (orderBy.length > 0) out += ` ORDER BY ${orderBy.map((k) => this.term(k.term) + (k.direction ? ` ${k.direction}` : '')).join(', ')}`;
    if (limit) {
      if (limit.form === 'params') {
        this.params.push(limit.count);
        out += ' LIMIT ?';
        if (limit.offset !== undefined) {
          this.params.push(limit.offset);
          out += ' OFFSET ?';
        }
      } else if (limit.offset === undefined) out += ` LIMIT ${limit.count}`;
      else out += limit.form === 'comma' ? ` LIMIT ${limit.offset}, ${limit.count}` : ` LIMIT ${limit.count} OFFSET ${limit.offset}`;
    }
    return out;
  }

  private from(f: FromItem): string {
    switch (f.kind) {
      case 'table':
        return `${f.table.name} ${f.alias}`;
      case 'derived':
        return `(${this.select(f.query)}) ${f.alias}`;
      case 'compoundFrom':
        return `(${this.compound(f.query)}) ${f.alias}`;
      case 'cte':
        return f.alias === f.name ? f.name : `${f.name} ${f.alias}`;
      case 'none':
        throw new Error('no FROM item to print');
    }
  }

  term(t: Term): string {
    switch (t.kind) {
      case 'expr':
        return this.expr(t.expr);
      case 'position':
        return String(t.index);
      case 'alias':
        return t.name;
    }
  }

  expr(e: Expr): string {
    switch (e.kind) {
      case 'column':
        return `${e.table}.${e.column.name}`;
      case 'literal':
        return literal(e.value);
      case 'hex':
        return `X'${e.hex}'`;
      case 'param':
        this.params.push(e.value);
        return '?';
      case 'arith':
        return `(${this.expr(e.left)} ${e.op} ${this.expr(e.right)})`;
      case 'call':
        return this.call(e.fn, e.args);
      case 'case':
        return `CASE WHEN ${this.cond(e.when)} THEN ${this.expr(e.then)}${e.otherwise ? ` ELSE ${this.expr(e.otherwise)}` : ''} END`;
      case 'truth':
        return `(${this.cond(e.cond)})`;
      case 'aggregate':
        return this.aggregate(e);
      case 'scalar':
        return `(${this.select(e.query)})`;
      case 'alias':
        return e.name;
      case 'window': {
        const args = e.arg === undefined ? (e.fn === 'COUNT' ? '*' : '') : this.expr(e.arg);
        return `${e.fn}(${args}) OVER ${'name' in e.over ? e.over.name : `(${this.windowSpec(e.over)})`}`;
      }
      case 'json': {
        const path = literal(e.path);
        switch (e.form) {
          case 'arrow':
            return `(${this.expr(e.arg)} ->> ${path})`;
          case 'value':
            return `JSON_VALUE(${this.expr(e.arg)}, ${path})`;
          case 'unquote':
            return `JSON_UNQUOTE(JSON_EXTRACT(${this.expr(e.arg)}, ${path}))`;
          case 'extract':
            return `JSON_EXTRACT(${this.expr(e.arg)}, ${path})`;
        }
        break;
      }
      case 'userVar':
        return e.assign === undefined ? `@${e.name}` : `(@${e.name} := ${this.expr(e.assign)})`;
      case 'foundRows':
        return 'FOUND_ROWS()';
    }
  }

  private row(items: readonly Expr[]): string {
    return `(${items.map((i) => this.expr(i)).join(', ')})`;
  }

  private call(fn: Extract<Expr, { kind: 'call' }>['fn'], args: readonly Expr[]): string {
    if (fn === 'CONCAT' && this.dialect === 'sqlite') return `(${args.map((a) => this.expr(a)).join(' || ')})`;
    const name = fn === 'CHAR_LENGTH' && this.dialect === 'sqlite' ? 'LENGTH' : fn;
    return `${name}(${args.map((a) => this.expr(a)).join(', ')})`;
  }

  private aggregate(e: Extract<Expr, { kind: 'aggregate' }>): string {
    if (e.arg === undefined) return `${e.fn}(*)`;
    const distinct = e.distinct ? 'DISTINCT ' : '';
    const arg = this.expr(e.arg);
    if (e.fn === 'GROUP_CONCAT') {
      // The order inside the list is fixed, so that both databases build the same text.
      const again = this.expr(e.arg);
      if (this.dialect === 'mysql') return `GROUP_CONCAT(${distinct}${arg} ORDER BY ${again} SEPARATOR ',')`;
      return e.distinct ? `GROUP_CONCAT(DISTINCT ${arg} ORDER BY ${again})` : `GROUP_CONCAT(${arg}, ',' ORDER BY ${again})`;
    }
    return `${e.fn}(${distinct}${arg})`;
  }

  cond(c: Cond): string {
    switch (c.kind) {
      case 'compare':
        return `${this.expr(c.left)} ${c.op} ${this.expr(c.right)}`;
      case 'isNull':
        return `${this.expr(c.arg)} IS ${c.negated ? 'NOT ' : ''}NULL`;
      case 'inList':
        return `${this.expr(c.arg)} ${c.negated ? 'NOT ' : ''}IN (${c.items.map((i) => this.expr(i)).join(', ')})`;
      case 'inSelect':
        return `${this.expr(c.arg)} ${c.negated ? 'NOT ' : ''}IN (${this.select(c.query)})`;
      case 'exists':
        return `${c.negated ? 'NOT ' : ''}EXISTS (${this.select(c.query)})`;
      case 'between':
        return `${this.expr(c.arg)} BETWEEN ${this.expr(c.low)} AND ${this.expr(c.high)}`;
      case 'like':
        return `${this.expr(c.arg)} ${c.negated ? 'NOT ' : ''}LIKE ${this.expr(c.pattern)}`;
      case 'logic':
        return `(${c.items.map((i) => this.cond(i)).join(` ${c.op} `)})`;
      case 'not':
        return `NOT (${this.cond(c.arg)})`;
      case 'rowIn':
        return `${this.row(c.left)} ${c.negated ? 'NOT ' : ''}IN (${c.rows.map((r) => this.row(r)).join(', ')})`;
      case 'rowCompare':
        return `${this.row(c.left)} ${c.op} ${this.row(c.right)}`;
      case 'rowInSelect':
        return `${this.row(c.left)} ${c.negated ? 'NOT ' : ''}IN (${this.select(c.query)})`;
    }
  }
}

function literal(value: number | string | null): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') return String(value);
  return `'${value.replace(/'/g, "''")}'`;
}

/** The query as SQL text for `dialect`, with its parameters. */
export function printQuery(q: Query, dialect: Dialect): PrintedQuery {
  const p = new Printer(dialect);
  const sql = p.query(q);
  return { sql, params: p.params };
}

/** The text of one expression (parameters shown as `?`): used as its identity when judging orders. */
export function exprText(e: Expr, dialect: Dialect): string {
  return new Printer(dialect).expr(e);
}
