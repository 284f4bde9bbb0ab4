// The REST calls the CLI makes, with the access token; an HTTP failure
// becomes a CliError with the status the process should exit with.
import type { ApprovalDecision, SessionSnapshot, SkeinEvent } from '../../shared/protocol.js';
import { CliError, EXIT } from './exit-codes.js';

/** Where the server is and its token (a Connection has them; its own type here: connection.ts uses this class). */
export interface ServerAddress {
  url: string;
  token: string | undefined;
}

export class Api {
  constructor(private readonly connection: ServerAddress) {}

  /** The server's address (said to a user who must go there). */
  get url(): string {
    return this.connection.url;
  }

  headers(): Record<string, string> {
    const token = this.connection.token;
    return token ? { authorization: `Bearer ${token}` } : {};
  }

  async request<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', route: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(this.connection.url + route, {
        method,
        headers: { ...this.headers(), ...(body !== undefined && { 'content-type': 'application/json' }) },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
    } catch (err) {
      throw new CliError(EXIT.server, `cannot reach ${this.connection.url}: ${(err as Error & { cause?: Error }).cause?.message ?? (err as Error).message}`);
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      throw new CliError(EXIT.server, `${method} ${route}: ${res.status}, not JSON: ${text.slice(0, 200)}`);
    }
    if (res.ok) return parsed as T;
    const reason = (parsed as { error?: string } | undefined)?.error ?? res.statusText;
    if (res.status === 401 || res.status === 403) throw new CliError(EXIT.server, `${this.connection.url} refused access (${res.status}): ${reason}; give the token with SKEIN_TOKEN or --token`);
    if (res.status === 404 && reason === 'unknown session') throw new CliError(EXIT.notFound, 'no such session');
    if (res.status === 400) throw new CliError(EXIT.usage, reason);
    throw new CliError(EXIT.server, `${method} ${route}: ${res.status} ${reason}`);
  }

  sessions(): Promise<SessionSnapshot[]> {
    return this.request<{ sessions: SessionSnapshot[] }>('GET', '/api/sessions').then((r) => r.sessions);
  }

  session(id: string): Promise<SessionSnapshot> {
    return this.request<SessionSnapshot>('GET', `/api/sessions/${encodeURIComponent(id)}`);
  }

  async createSession(model: string | undefined): Promise<string> {
    const { id } = await this.request<{ id: string }>('POST', '/api/sessions', model ? { model } : {});
    return id;
  }

  events(id: string, since = 0): Promise<SkeinEvent[]> {
    return this.request<{ events: SkeinEvent[] }>('GET', `/api/sessions/${encodeURIComponent(id)}/events?since=${since}`).then((r) => r.events);
  }

  send(id: string, text: string, images?: readonly { mediaType: string; data: string }[]): Promise<unknown> {
    return this.request('POST', `/api/sessions/${encodeURIComponent(id)}/messages`, { text, ...(images?.length && { images }) });
  }

  /** A GET whose answer is text, not JSON (the Markdown export). */
  async text(route: string): Promise<string> {
    let res: Response;
    try {
      res = await fetch(this.connection.url + route, { headers: this.headers() });
    } catch (err) {
      throw new CliError(EXIT.server, `cannot reach ${this.connection.url}: ${(err as Error).message}`);
    }
    const text = await res.text();
    if (!res.ok) throw new CliError(res.status === 400 ? EXIT.usage : EXIT.server, `GET ${route}: ${res.status} ${text.slice(0, 200)}`);
    return text;
  }

  decide(id: string, callId: string, decision: ApprovalDecision): Promise<unknown> {
    return this.request('POST', `/api/sessions/${encodeURIComponent(id)}/approvals/${encodeURIComponent(callId)}`, { decision });
  }

  /** PUT /api/sessions/:id/mode: the session's approval mode (skein run --mode). */
  setMode(id: string, mode: string): Promise<SessionSnapshot> {
    return this.request<SessionSnapshot>('PUT', `/api/sessions/${encodeURIComponent(id)}/mode`, { mode });
  }

  cancel(id: string): Promise<unknown> {
    return this.request('POST', `/api/sessions/${encodeURIComponent(id)}/cancel`, {});
  }
}
