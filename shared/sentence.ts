// Messages built from other messages ("<what failed>: <its message>. <what
// now>") end the inner one with a period unless it has its own: the OpenAI
// SDK's "Connection error." must not read "Connection error..".

/** `text` as a whole sentence: a final period added unless it ends with ".", "!", "?" or "…" already. */
export function sentence(text: string): string {
  const trimmed = text.trimEnd();
  return /[.!?…]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}
