// Where a session keeps its files beside its log: a leaf, so the session and
// the tool runner can both use it without importing each other.
import path from 'node:path';

/** Where a session's saved full tool outputs live (read_file may read them). */
export function spillDirOf(session: { readonly id: string; readonly log: { readonly file: string } }): string {
  return path.join(path.dirname(session.log.file), session.id, 'outputs');
}

/** Where the images of the session's messages are kept (see images/image-files.ts). */
export function imagesDirOf(session: { readonly id: string; readonly log: { readonly file: string } }): string {
  return path.join(path.dirname(session.log.file), session.id, 'images');
}
