import type { IncomingMessage } from 'node:http';

/** The request body is (or announces to be) larger than the limit; the request is answered 413. */
export class BodyTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`request body exceeds ${limitBytes} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/** The client went away before sending its whole body; there is nobody left to answer. */
export class RequestAbortedError extends Error {
  constructor() {
    super('request aborted before its body was complete');
    this.name = 'RequestAbortedError';
  }
}

/** True when `Content-Length` announces more than `limitBytes`, so the request can be refused before reading it. */
export function announcesTooLargeBody(request: IncomingMessage, limitBytes: number): boolean {
  const announced = request.headers['content-length'];
  return announced !== undefined && Number(announced) > limitBytes;
}

/**
 * Reads the request body into one Buffer, exactly as sent (no decoding, no parsing), and stops with
 * {@link BodyTooLargeError} as soon as more than `limitBytes` arrived. A body in one chunk (the usual case for a
 * webhook) is returned without copying.
 */
export function readRawBody(request: IncomingMessage, limitBytes: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    let first: Buffer | undefined;
    let rest: Buffer[] | undefined;
    let received = 0;

    const cleanup = (): void => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      request.off('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > limitBytes) {
        cleanup();
        request.pause();
        reject(new BodyTooLargeError(limitBytes));
        return;
      }
      if (first === undefined) first = chunk;
      else (rest ??= [first]).push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      if (rest !== undefined) resolve(Buffer.concat(rest, received));
      else resolve(first ?? Buffer.alloc(0));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const onClose = (): void => {
      cleanup();
      reject(new RequestAbortedError());
    };

    request.on('data', onData);
    request.once('end', onEnd);
    request.once('error', onError);
    request.once('close', onClose);
  });
}
