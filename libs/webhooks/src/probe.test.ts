import { Webhook } from 'svix';
test('svix loads', () => { expect(typeof Webhook).toBe('function'); });
