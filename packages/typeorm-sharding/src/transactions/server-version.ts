/**
 * Whether a server keeps prepared XA branches when their connection closes, which recovery
 * needs: a coordinator that dies after its decision leaves branches that someone else must
 * commit. MariaDB does from 10.5.2 (MDEV-742; before, closing the connection rolled a
 * prepared branch back, so a crash after the decision lost those parts), MySQL from 5.7.7.
 *
 * @param version `SELECT VERSION()` (e.g. `10.11.19-MariaDB-0+deb12u1`, `8.0.36`)
 * @returns undefined when XA is safe on it, else why not
 */
export function xaUnsafeReason(version: string): string | undefined {
  // Replication handshakes report MariaDB as "5.5.5-10.x…".
  const text = version.replace(/^5\.5\.5-/, '');
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(text);
  if (!m) return `its version (${version}) could not be read`;
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const at = (a: number, b: number, c: number) => major * 1e6 + minor * 1e3 + patch >= a * 1e6 + b * 1e3 + c;
  if (/mariadb/i.test(text)) {
    return at(10, 5, 2) ? undefined : `MariaDB ${m[0]} rolls a prepared XA branch back when its connection closes (kept from 10.5.2 on), so a crash after the commit decision could lose that server's part`;
  }
  return at(5, 7, 7) ? undefined : `MySQL ${m[0]} rolls a prepared XA branch back when its connection closes (kept from 5.7.7 on)`;
}
