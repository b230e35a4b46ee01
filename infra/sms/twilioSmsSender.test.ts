import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTwilioStandIn } from '../../tests/support/providerStandIns/twilio.js';
import { SmsProviderError } from './smsSender.js';
import { createTwilioSmsSender } from './twilioSmsSender.js';

describe("SMS through Twilio's Messages API", () => {
  let twilio: Awaited<ReturnType<typeof startTwilioStandIn>>;
  beforeAll(async () => {
    twilio = await startTwilioStandIn();
  });
  afterAll(() => twilio?.close());

  const sender = (overrides: { authToken?: string; from?: string } = {}) =>
    createTwilioSmsSender({
      accountSid: twilio.account.sid,
      authToken: overrides.authToken ?? twilio.account.authToken,
      from: overrides.from ?? twilio.account.number,
      apiUrl: twilio.url,
    });

  it("sends To, From and Body form-encoded with the account's basic authentication", async () => {
    await sender().send('+584141234567', 'Tu código es 123456 (válido 5 min)');
    expect(twilio.messages.at(-1)).toMatchObject({
      to: '+584141234567',
      from: twilio.account.number,
      body: 'Tu código es 123456 (válido 5 min)',
    });
  });

  it('sends through a Messaging Service when the sender is its SID', async () => {
    await sender({ from: twilio.messagingService }).send('+584141234568', 'hola');
    expect(twilio.messages.at(-1)).toMatchObject({ to: '+584141234568', from: null, service: twilio.messagingService });
  });

  it("fails with Twilio's status and code, never its message (it repeats the number) nor the token", async () => {
    const failures = await Promise.all([
      sender()
        .send('0414-123', 'x')
        .catch((e: Error) => e),
      sender({ authToken: 'wrong-token' })
        .send('+584141234569', 'x')
        .catch((e: Error) => e),
      sender({ from: '+15550000000' })
        .send('+584141234569', 'x')
        .catch((e: Error) => e),
    ]);
    expect(failures.map((e) => e instanceof SmsProviderError && e.message)).toEqual([
      'Twilio answered 400 (Twilio error 21211)',
      'Twilio answered 401 (Twilio error 20003)',
      'Twilio answered 400 (Twilio error 21606)',
    ]);
  });

  it('an unreachable API is a failure', async () => {
    const closed = await startTwilioStandIn();
    await closed.close();
    const down = createTwilioSmsSender({
      ...closed.account,
      accountSid: closed.account.sid,
      from: '+1',
      apiUrl: closed.url,
    });
    await expect(down.send('+584141234567', 'x')).rejects.toThrow(/^Twilio unreachable/);
  });
});
