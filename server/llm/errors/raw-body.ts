// The raw body of every non-2xx answer. The SDKs keep only a body's `error`
// key (the OpenAI SDK turns vLLM's top-level `{"object":"error","message":…}`
// into "400 status code (no body)"), so the provider's fetch reads a copy of
// each failed answer first and files it under the response's Headers object,
// which the SDKs hand to their error unchanged (err.headers).
const bodies = new WeakMap<object, string>();

/** Error bodies are small; a longer one is cut (its start says what went wrong). */
const MAX_BODY = 64 * 1024;

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** `inner` (the global fetch by default) keeping a copy of every non-2xx body. */
export function keepingErrorBodies(inner: Fetch = (input, init) => fetch(input, init)): Fetch {
  return async (input, init) => {
    const res = await inner(input, init);
    if (!res.ok) {
      try {
        bodies.set(res.headers, (await res.clone().text()).slice(0, MAX_BODY));
      } catch {
        // The body broke off: the SDK reports what it could read.
      }
    }
    return res;
  };
}

/** The raw body of the failed answer whose headers these are. */
export function rawBodyOf(headers: unknown): string | undefined {
  return headers && typeof headers === 'object' ? bodies.get(headers) : undefined;
}
