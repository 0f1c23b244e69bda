import { RouterConfigError } from '../errors.js';

/** `${NAME}` or `${NAME:-default}`; `$${` writes a literal `${`. */
const REFERENCE = /\$\$\{|\$\{([^}]*)\}/g;
const NAME = /^([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s;

/** Key paths whose value came from the environment, with the variable that gave it. */
export type Substitutions = ReadonlyMap<string, string>;

/**
 * Replaces environment references in every string of a parsed configuration tree. Returns
 * the new tree and the key paths whose value came from a variable: their values are never
 * printed in errors (only the variable's name), whatever the key.
 */
export function substituteEnv(tree: unknown, env: Readonly<Record<string, string | undefined>>): { readonly value: unknown; readonly substituted: Substitutions } {
  const substituted = new Map<string, string>();
  const walk = (value: unknown, path: string): unknown => {
    if (typeof value === 'string') return substituteString(value, path, env, substituted);
    if (Array.isArray(value)) return value.map((item, i) => walk(item, `${path}[${i}]`));
    if (isPlainObject(value)) {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) out[key] = walk(item, path === '' ? key : `${path}.${key}`);
      return out;
    }
    return value;
  };
  return { value: walk(tree, ''), substituted };
}

function substituteString(text: string, path: string, env: Readonly<Record<string, string | undefined>>, substituted: Map<string, string>): string {
  if (!text.includes('${')) return text;
  const names: string[] = [];
  const result = text.replace(REFERENCE, (match, inner: string | undefined) => {
    if (match === '$${') return '${';
    const parsed = NAME.exec(inner ?? '');
    if (!parsed) throw new RouterConfigError(path, `malformed environment reference \`\${${inner ?? ''}}\` (expected \${NAME} or \${NAME:-default})`);
    const name = parsed[1]!;
    names.push(name);
    const found = env[name];
    if (found !== undefined) return found;
    if (parsed[2] !== undefined) return parsed[2];
    throw new RouterConfigError(path, `environment variable ${name} is not set (referenced as \${${name}})`);
  });
  if (names.length > 0) substituted.set(path, names.join(', '));
  return result;
}

/** A mapping as YAML and JSON give them (not an array, not null, not a class instance such as a Secret). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
