// The server's log: one line per message, as text (default) or as JSON lines
// (SKEIN_LOG_FORMAT=json) for a log collector. A line about a session carries
// its id (`session`); a line about the whole server has `session: null`.
export type LogFormat = 'text' | 'json';
export const LOG_FORMATS: readonly LogFormat[] = ['text', 'json'];
export type LogLevel = 'info' | 'warn' | 'error';
const RANK: Record<LogLevel, number> = { info: 0, warn: 1, error: 2 };

export interface LogFields {
  /** The session the line is about. */
  session?: string;
  /** An error: its message (and stack in JSON lines). */
  error?: unknown;
  [field: string]: unknown;
}

interface LogSettings {
  format: LogFormat;
  /** Lines below this level are dropped (the CLI keeps only warnings and errors). */
  minLevel: LogLevel;
  /** Where a line goes; default: info to stdout, warnings and errors to stderr. */
  write: (level: LogLevel, line: string) => void;
}

const defaultWrite = (level: LogLevel, line: string) => (level === 'info' ? process.stdout : process.stderr).write(line + '\n');
const settings: LogSettings = { format: 'text', minLevel: 'info', write: defaultWrite };

export function configureLog(changes: Partial<LogSettings>): void {
  Object.assign(settings, changes);
}

export function toStderr(_level: LogLevel, line: string): void {
  process.stderr.write(line + '\n');
}

function emit(level: LogLevel, message: string, fields: LogFields = {}): void {
  if (RANK[level] < RANK[settings.minLevel]) return;
  const { session, error, ...rest } = fields;
  const errorText = error === undefined ? undefined : error instanceof Error ? error.message : String(error);
  if (settings.format === 'json') {
    const line: Record<string, unknown> = { ts: new Date().toISOString(), level, session: session ?? null, msg: message, ...rest };
    if (error !== undefined) line.error = errorText;
    if (error instanceof Error && error.stack) line.stack = error.stack;
    settings.write(level, JSON.stringify(line));
    return;
  }
  const about = session ? `session ${session}: ` : '';
  const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
  const cause = error === undefined ? '' : `: ${error instanceof Error && level === 'error' ? (error.stack ?? errorText) : errorText}`;
  settings.write(level, `[skein] ${about}${message}${cause}${extra}`);
}

export const log = {
  info: (message: string, fields?: LogFields) => emit('info', message, fields),
  warn: (message: string, fields?: LogFields) => emit('warn', message, fields),
  error: (message: string, fields?: LogFields) => emit('error', message, fields),
};
