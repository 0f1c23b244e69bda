/** Reads a stream to the end into an array (what TypeORM's `query()` hands back). */
export async function collectRows<T>(rows: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const row of rows) out.push(row);
  return out;
}
