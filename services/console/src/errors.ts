/** A request the console refuses, with its HTTP status and error code (the app answers `{ error: code, message }`). */
export class ConsoleError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ConsoleError';
  }
}
