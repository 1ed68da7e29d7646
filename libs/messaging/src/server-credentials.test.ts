import { splitServerCredentials } from './server-credentials';

describe('splitServerCredentials', () => {
  it('takes the user and password out of every URL, percent-decoded', () => {
    expect(
      splitServerCredentials(
        'nats://billing-sync:p%40ss%3Aword@nats-0:4222, nats://billing-sync:p%40ss%3Aword@nats-1:4222',
      ),
    ).toEqual({
      servers: ['nats://nats-0:4222', 'nats://nats-1:4222'],
      user: 'billing-sync',
      pass: 'p@ss:word',
      tls: false,
    });
  });

  it('leaves URLs without credentials as they are', () => {
    expect(splitServerCredentials('nats://127.0.0.1:4222,tls://nats.example:4222')).toEqual({
      servers: ['nats://127.0.0.1:4222', 'tls://nats.example:4222'],
      tls: true,
    });
    expect(splitServerCredentials('127.0.0.1:4222')).toEqual({ servers: ['nats://127.0.0.1:4222'], tls: false });
  });

  it('refuses servers with different credentials, without repeating them', () => {
    expect(() => splitServerCredentials('nats://a:secret-one@x:4222,nats://b:secret-two@y:4222')).toThrow(
      /same user and password/,
    );
    try {
      splitServerCredentials('nats://a:secret-one@x:4222,nats://b:secret-two@y:4222');
    } catch (error) {
      expect((error as Error).message).not.toContain('secret');
    }
  });
});
