/**
 * How `npm start` reads docker-compose.yml's variables (deploy/local/compose-services.ts): Compose's `${VAR:-default}`,
 * `${VAR}` and `${VAR:?message}`, and compose host names pointed at loopback.
 */
import { interpolate, toLoopback } from '../../deploy/local/compose-services';

describe('npm start: compose interpolation', () => {
  it('takes the value, else the default of ${VAR:-default}', () => {
    expect(interpolate('${A:-x}', { A: 'set' })).toBe('set');
    expect(interpolate('${A:-x}', {})).toBe('x');
    expect(interpolate('${A:-x}', { A: '' })).toBe('x');
    expect(interpolate('${A}', {})).toBe('');
  });

  it('leaves a required ${VAR:?message} empty when unset, so the service itself refuses to start naming it', () => {
    expect(interpolate('${CONSOLE_TOKENS:?set CONSOLE_TOKENS to a JSON list}', { CONSOLE_TOKENS: '[1]' })).toBe('[1]');
    expect(interpolate('${CONSOLE_TOKENS:?set CONSOLE_TOKENS to a JSON list}', {})).toBe('');
  });

  it('points URLs at compose service names to loopback, and nothing else', () => {
    const hosts = ['gateway', 'dispatcher'];
    expect(toLoopback('http://dispatcher:3100', hosts)).toBe('http://127.0.0.1:3100');
    expect(toLoopback('{"gateway":"http://gateway:3000/readyz","x":"https://gateway.example.com/"}', hosts)).toBe('{"gateway":"http://127.0.0.1:3000/readyz","x":"https://gateway.example.com/"}');
  });
});
