/**
 * Whether a request failed because the server closed or reset the connection while the client was still sending:
 * what a sender of an oversize body may see instead of the answer (401, 413) when the server refuses it without
 * reading it, more often on a loaded machine. Node's `http` puts the socket error's code on the error, undici's
 * `fetch` on its `cause`. Read by code, not `instanceof Error`: Node's socket errors come from outside Jest's realm.
 */
export function closedTheConnection(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, cause } = error as { code?: string; cause?: { code?: string } };
  return [code, cause?.code].some((found) => found === 'ECONNRESET' || found === 'EPIPE' || found === 'UND_ERR_SOCKET');
}
