import { RouterConfigError } from '../errors.js';
import { Secret } from '../secret.js';
import { isPlainObject, type Substitutions } from './env-references.js';

/** What every reader of one configuration document shares. */
export interface ConfigContext {
  /** Key paths whose value came from an environment variable (never printed). */
  readonly substituted: Substitutions;
}

interface NumberRule {
  readonly min?: number;
  readonly max?: number;
  readonly integer?: boolean;
  /** `min` itself is not allowed (e.g. an interval of 0). */
  readonly exclusiveMin?: boolean;
}

/** `a.b` / `a[0]`: the path of a child key. */
export function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

/**
 * Typed, path-aware access to one mapping of a configuration: every read checks the type
 * and range and names the key path in its error; `of` refuses keys it does not know, so a
 * typo (`intervall`) is an error rather than a silently ignored setting.
 */
export class Fields {
  private constructor(
    readonly obj: Readonly<Record<string, unknown>>,
    readonly path: string,
    readonly ctx: ConfigContext,
  ) {}

  /** Reads `value` at `path` as a mapping whose keys are all in `allowed`. */
  static of(value: unknown, path: string, ctx: ConfigContext, allowed: readonly string[]): Fields {
    if (!isPlainObject(value)) throw new RouterConfigError(path, `expected a mapping, got ${describe(value, path, ctx)}`);
    for (const key of Object.keys(value)) {
      if (!allowed.includes(key)) throw new RouterConfigError(childPath(path, key), `unknown key (expected one of: ${allowed.join(', ')})`);
    }
    return new Fields(value, path, ctx);
  }

  has(key: string): boolean {
    return this.obj[key] !== undefined && this.obj[key] !== null;
  }

  at(key: string): string {
    return childPath(this.path, key);
  }

  raw(key: string): unknown {
    return this.obj[key];
  }

  number(key: string, fallback: number, rule: NumberRule = {}): number {
    const value = this.optionalNumber(key, rule);
    return value === undefined ? fallback : value;
  }

  optionalNumber(key: string, rule: NumberRule = {}): number | undefined {
    if (!this.has(key)) return undefined;
    const path = this.at(key);
    let value = this.obj[key];
    // An environment reference always yields text: `port: ${DB_PORT}` is meant as a number.
    if (typeof value === 'string' && this.ctx.substituted.has(path) && /^-?\d+(\.\d+)?$/.test(value.trim())) value = Number(value);
    const expected = `${rule.integer ? 'an integer' : 'a number'}${rangeText(rule)}`;
    if (typeof value !== 'number' || !Number.isFinite(value)) throw new RouterConfigError(path, `expected ${expected}, got ${describe(value, path, this.ctx)}`);
    if (rule.integer && !Number.isInteger(value)) throw new RouterConfigError(path, `expected ${expected}, got ${describe(value, path, this.ctx)}`);
    const belowMin = rule.min !== undefined && (rule.exclusiveMin ? value <= rule.min : value < rule.min);
    if (belowMin || (rule.max !== undefined && value > rule.max)) throw new RouterConfigError(path, `expected ${expected}, got ${describe(value, path, this.ctx)}`);
    return value;
  }

  string(key: string, fallback: string): string {
    return this.optionalString(key) ?? fallback;
  }

  optionalString(key: string): string | undefined {
    if (!this.has(key)) return undefined;
    const value = this.obj[key];
    const path = this.at(key);
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    if (typeof value !== 'string' || value === '') throw new RouterConfigError(path, `expected a non-empty string, got ${describe(value, path, this.ctx)}`);
    return value;
  }

  boolean(key: string, fallback: boolean): boolean {
    if (!this.has(key)) return fallback;
    const path = this.at(key);
    let value = this.obj[key];
    if (typeof value === 'string' && this.ctx.substituted.has(path) && (value === 'true' || value === 'false')) value = value === 'true';
    if (typeof value !== 'boolean') throw new RouterConfigError(path, `expected true or false, got ${describe(value, path, this.ctx)}`);
    return value;
  }

  oneOf<T extends string>(key: string, allowed: readonly T[], fallback: T): T {
    if (!this.has(key)) return fallback;
    const value = this.obj[key];
    const path = this.at(key);
    if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
      throw new RouterConfigError(path, `expected one of ${allowed.join(', ')}, got ${describe(value, path, this.ctx)}`);
    }
    return value as T;
  }

  /** A password: text or an existing `Secret`; its value is never described in an error. */
  secret(key: string, fallback: Secret): Secret {
    if (!this.has(key)) return fallback;
    const value = this.obj[key];
    const path = this.at(key);
    if (value instanceof Secret) return value;
    if (typeof value === 'number') return new Secret(String(value), this.ctx.substituted.get(path));
    if (typeof value !== 'string') throw new RouterConfigError(path, `expected a string (write it as \${ENV_VARIABLE}), got a ${kindOf(value)}`);
    return new Secret(value, this.ctx.substituted.get(path));
  }

  /** A mapping under `key` with the keys it may hold, or undefined when absent. */
  child(key: string, allowed: readonly string[]): Fields | undefined {
    if (!this.has(key)) return undefined;
    return Fields.of(this.obj[key], this.at(key), this.ctx, allowed);
  }

  /** A sequence under `key`, or undefined when absent. */
  list(key: string): readonly unknown[] | undefined {
    if (!this.has(key)) return undefined;
    const value = this.obj[key];
    if (!Array.isArray(value)) throw new RouterConfigError(this.at(key), `expected a list, got ${describe(value, this.at(key), this.ctx)}`);
    return value;
  }
}

function rangeText(rule: NumberRule): string {
  const parts: string[] = [];
  if (rule.min !== undefined) parts.push(`${rule.exclusiveMin ? '>' : '≥'} ${rule.min}`);
  if (rule.max !== undefined) parts.push(`≤ ${rule.max}`);
  return parts.length === 0 ? '' : ` ${parts.join(' and ')}`;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  return typeof value === 'object' ? 'mapping' : typeof value;
}

/**
 * A value for an error message. A value that came from the environment is named by its
 * variable, never shown: the variable may hold a secret whatever the key is called.
 */
export function describe(value: unknown, path: string, ctx: ConfigContext): string {
  const variable = ctx.substituted.get(path);
  if (variable !== undefined) return `the value of \${${variable}}`;
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return `a ${kindOf(value)}`;
}
