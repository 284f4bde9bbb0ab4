// Waits for a condition, never for a fixed time: polls `check` until it gives
// a truthy value (returned), or fails naming what it waited for.
export async function until<T>(check: () => T | false | undefined | null | Promise<T | false | undefined | null>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
