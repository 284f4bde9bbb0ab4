// Which image file GET /api/sessions/:id/images/:name serves: the first image
// of a `user` event of the session whose file has that base name, and only
// when that file lies inside the session's own folder. The name is looked up,
// never joined onto a path as given; an image named by a log that points
// elsewhere (a hand-edited log, a path with `..`) is not served.
import path from 'node:path';
import type { ImageRef } from '../../shared/protocol.js';

interface LoggedEvent {
  kind: string;
  images?: readonly ImageRef[];
}

/** The image to serve for `name`, or undefined (404). `sessionDir`: the folder of the session's log. */
export function imageToServe(events: Iterable<LoggedEvent>, name: string, sessionDir: string): ImageRef | undefined {
  for (const e of events) {
    if (e.kind !== 'user' || !e.images) continue;
    const image = e.images.find((i) => path.basename(i.file) === name);
    if (!image) continue;
    return isInside(image.file, sessionDir) ? image : undefined;
  }
  return undefined;
}

/** The file lies below the folder (not the folder itself, not a sibling whose name starts the same). */
export function isInside(file: string, dir: string): boolean {
  return path.resolve(file).startsWith(path.resolve(dir) + path.sep);
}
