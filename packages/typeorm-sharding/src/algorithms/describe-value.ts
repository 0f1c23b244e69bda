const MAX_TEXT = 60;

/**
 * A short human description of any value for error messages: its type and, where it is
 * cheap and safe, its content (`number 1.5`, `string "abc"`, `a Date (2024-01-01T…)`).
 * Never throws, whatever the value.
 */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  switch (typeof value) {
    case 'number':
      return `number ${Object.is(value, -0) ? '-0' : String(value)}`;
    case 'bigint':
      return `bigint ${truncate(value.toString())}n`;
    case 'string':
      return `string ${truncate(JSON.stringify(value))}`;
    case 'boolean':
      return `boolean ${String(value)}`;
    case 'symbol':
      return `symbol ${truncate(value.toString())}`;
    case 'function':
      return 'a function';
  }
  if (value instanceof Date) {
    return `a Date (${Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString()})`;
  }
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  if (value instanceof Uint8Array) return `a ${value.constructor.name} of ${value.length} bytes`;
  const ctorName = constructorName(value);
  return ctorName === undefined || ctorName === 'Object' ? 'an object' : `an object of class ${ctorName}`;
}

function constructorName(value: object): string | undefined {
  try {
    const name: unknown = (value as { constructor?: { name?: unknown } }).constructor?.name;
    return typeof name === 'string' && name !== '' ? name : undefined;
  } catch {
    return undefined; // a Proxy or getter may throw; the description must not
  }
}

function truncate(text: string): string {
  return text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT)}…`;
}
