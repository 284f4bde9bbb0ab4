// What a test of terminal output must not find raw: anything a terminal obeys
// (C0/C1 controls, DEL) or that hides, reorders or joins text (bidi controls,
// zero-width and other format characters, tags). See server/cli/terminal-text.ts.
export const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u200b\u200e\u200f\u2028-\u202e\u2060-\u206f\ufeff]|[\u{e0000}-\u{e007f}]/u;
