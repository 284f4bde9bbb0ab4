// Secrets in what the server sends live, not only in what it logs: a
// provider's error message that quotes a configured secret (an echoed header,
// a key in a URL) reaches a connected client masked, in every frame (the
// logged error event as it is broadcast, the retry notice, the streamed
// text), and the log records the masked message too.
import { afterEach, describe, expect, it } from 'vitest';
import { ProviderError } from '../../server/llm/types.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';
import { scriptedProvider } from '../helpers/scripted-provider.js';
import { storedLines } from '../helpers/stored-events.js';
import { TestClient } from '../helpers/ws-client.js';

const SECRET = 'live-frame-secret-0123456789abcdef';
const MASK = '[redacted LIVE_FRAME_API_KEY]';
const servers: TestServer[] = [];
const saved = process.env.LIVE_FRAME_API_KEY;
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  if (saved === undefined) delete process.env.LIVE_FRAME_API_KEY;
  else process.env.LIVE_FRAME_API_KEY = saved;
});

describe('live frames are masked as the log is', () => {
  it('a provider error quoting a secret (retried once, then final): every frame a client got carries the mask, none the secret', async () => {
    process.env.LIVE_FRAME_API_KEY = SECRET;
    const provider = scriptedProvider((_, n) =>
      n === 0
        ? new ProviderError(`overloaded: upstream refused key ${SECRET} (retry)`, 529, true, 10)
        : new ProviderError(`invalid_request: the header Authorization: Bearer ${SECRET} is not valid`, 400, false),
    );
    const server = await startTestServer({ SKEIN_MODEL: 'predictable' }, undefined, undefined, { wrapProvider: () => provider });
    servers.push(server);
    const { body } = await api<{ id: string }>(server.url, '/api/sessions', { body: {} });
    const client = await TestClient.connect(server.url, body.id);
    client.send({ type: 'user_message', text: 'go' });
    // The final error, as the client sees it live.
    await client.until(() => JSON.stringify(client.frames).includes('is not valid'), 'the provider error frame', 60_000);
    const live = JSON.stringify(client.frames);
    expect(live).not.toContain(SECRET);
    const events = client.events;
    // The retry notice, the final error and the state changes (the status a client shows) each carry the mask.
    expect(events.find((e) => e.kind === 'error' && e.code === 'retrying')).toMatchObject({ message: expect.stringContaining(`refused key ${MASK} (retry)`) });
    expect(events.find((e) => e.kind === 'error' && e.code === 'provider_400')).toMatchObject({ message: `invalid_request: the header Authorization: Bearer ${MASK} is not valid` });
    expect(events.filter((e) => e.kind === 'state' && e.reason?.includes(MASK)).map((e) => e.kind === 'state' && e.to)).toEqual(['Error', 'WaitingForUserInput']);
    const logged = (await storedLines(server, body.id)).join('\n');
    expect(logged).not.toContain(SECRET);
    expect(logged).toContain(MASK);
    client.close();
  }, 90_000);
});
