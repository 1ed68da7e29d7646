import { Catch, type RpcExceptionFilter } from '@nestjs/common';
import { throwError, type Observable } from 'rxjs';

/**
 * Hands a handler's error to the JetStream transport unchanged. Nest's default RPC exception filter replaces any
 * error that is not an `RpcException` with `{ status: 'error', message: 'Internal server error' }`, which would hide
 * `RetryLaterError` (its delay) and `UnrecoverableError` (give up at once) from the transport.
 */
@Catch()
export class RethrowErrorsFilter implements RpcExceptionFilter<unknown> {
  catch(exception: unknown): Observable<never> {
    return throwError(() => exception);
  }
}
