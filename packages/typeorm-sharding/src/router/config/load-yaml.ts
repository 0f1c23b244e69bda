import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import { RouterConfigError } from '../errors.js';
import { substituteEnv } from './env-references.js';
import { readRouterDocument, type RouterDocument } from './read-config.js';

/** Where the environment references (`${DB_PASSWORD}`) are read from. */
export interface LoadYamlOptions {
  /** @default process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Parses and validates a configuration in YAML text. Syntax errors are reported by position
 * only (line and column, the parser's error code): the parser's own message quotes the
 * offending line, which may be a password.
 */
export function parseRouterYaml(text: string, options: LoadYamlOptions = {}): RouterDocument {
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  const first = doc.errors[0];
  if (first) {
    const line = lineOf(text, first.pos[0]);
    // `{ password: ${DB_PASSWORD} }` is a nested flow mapping to YAML: the usual slip.
    const hint = /\{[^}\n]*\$\{/.test(text) ? ' (inside { } or [ ], write an environment reference in quotes: "${NAME}")' : '';
    throw new RouterConfigError('', `YAML syntax error (${first.code}) at line ${line.line}, column ${line.column}${hint}`);
  }
  const tree: unknown = doc.toJS({ maxAliasCount: 100 });
  if (tree === null || tree === undefined) throw new RouterConfigError('', 'the configuration is empty');
  const { value, substituted } = substituteEnv(tree, options.env ?? process.env);
  return readRouterDocument(value, { substituted });
}

/** Reads, parses and validates a YAML configuration file. */
export async function loadRouterYaml(file: string, options: LoadYamlOptions = {}): Promise<RouterDocument> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new RouterConfigError('', `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`, { cause: error });
  }
  try {
    return parseRouterYaml(text, options);
  } catch (error) {
    if (error instanceof RouterConfigError) throw new RouterConfigError(error.keyPath, `${error.message.slice(error.keyPath === '' ? 0 : error.keyPath.length + 2)} (in ${file})`, { cause: error });
    throw error;
  }
}

function lineOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}
