import type { IncomingMessage } from 'node:http';

/** The request body is (or announces to be) larger than the limit; the request is answered 413. */
export class BodyTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`request body exceeds ${limitBytes} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/** The body did not arrive in full within its deadline; the request is answered 408 and the connection closed. */
export class BodyTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`request body not complete within ${timeoutMs} ms`);
    this.name = 'BodyTimeoutError';
  }
}

/** The client went away before sending its whole body; there is nobody left to answer. */
export class RequestAbortedError extends Error {
  constructor() {
    super('request aborted before its body was complete');
    this.name = 'RequestAbortedError';
  }
}

/** The announced `Content-Length` as a number, or undefined without one (chunked) or when it is not a length. */
function announcedLength(request: IncomingMessage): number | undefined {
  const announced = request.headers['content-length'];
  if (announced === undefined) return undefined;
  const length = Number(announced);
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
}

/** True when `Content-Length` announces more than `limitBytes`, so the request can be refused before reading it. */
export function announcesTooLargeBody(request: IncomingMessage, limitBytes: number): boolean {
  const announced = request.headers['content-length'];
  return announced !== undefined && !(Number(announced) <= limitBytes);
}

/** Limits of {@link readRawBody}. */
export interface RawBodyLimits {
  readonly limitBytes: number;
  /** Longest time the whole body may take to arrive. */
  readonly timeoutMs: number;
}

/**
 * Collects chunks into one Buffer as they arrive, so a body costs its own bytes whatever the chunking: a client
 * trickling a body one byte at a time must not cost a Buffer object per byte. The target is allocated once from
 * `Content-Length` (already checked against the limit), or grown by doubling for a chunked body.
 */
class BodyAccumulator {
  private first?: Buffer;
  private target?: Buffer;
  private received = 0;

  constructor(private readonly announced: number | undefined) {}

  get size(): number {
    return this.received;
  }

  add(chunk: Buffer): void {
    if (this.first === undefined && this.target === undefined) {
      this.first = chunk;
      this.received = chunk.length;
      return;
    }
    if (this.target === undefined) this.target = this.allocate(this.received + chunk.length);
    if (this.first !== undefined) {
      this.first.copy(this.target, 0);
      this.first = undefined;
    }
    if (this.received + chunk.length > this.target.length) this.target = this.grow(this.received + chunk.length);
    chunk.copy(this.target, this.received);
    this.received += chunk.length;
  }

  /** The body; a body that came in one chunk is returned without copying. */
  result(): Buffer {
    if (this.target !== undefined) return this.target.subarray(0, this.received);
    return this.first ?? Buffer.alloc(0);
  }

  private allocate(needed: number): Buffer {
    return Buffer.alloc(Math.max(needed, this.announced ?? Math.min(needed * 2, 64 * 1024)));
  }

  private grow(needed: number): Buffer {
    const grown = Buffer.alloc(Math.max(needed, this.target!.length * 2));
    this.target!.copy(grown, 0, 0, this.received);
    return grown;
  }
}

/**
 * Reads the request body into one Buffer, exactly as sent (no decoding, no parsing). Stops with
 * {@link BodyTooLargeError} as soon as more than `limitBytes` arrived, and with {@link BodyTimeoutError} when the
 * body is not complete within `timeoutMs`, so a slow client holds neither memory nor a socket for long.
 */
export function readRawBody(request: IncomingMessage, limits: RawBodyLimits): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const announced = announcedLength(request);
    const body = new BodyAccumulator(announced !== undefined && announced <= limits.limitBytes ? announced : undefined);

    const cleanup = (): void => {
      clearTimeout(deadline);
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      request.off('close', onClose);
    };
    const stop = (error: Error): void => {
      cleanup();
      request.pause();
      reject(error);
    };
    const onData = (chunk: Buffer): void => {
      if (body.size + chunk.length > limits.limitBytes) stop(new BodyTooLargeError(limits.limitBytes));
      else body.add(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(body.result());
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const onClose = (): void => {
      cleanup();
      reject(new RequestAbortedError());
    };
    const deadline = setTimeout(() => stop(new BodyTimeoutError(limits.timeoutMs)), limits.timeoutMs);

    request.on('data', onData);
    request.once('end', onEnd);
    request.once('error', onError);
    request.once('close', onClose);
  });
}
